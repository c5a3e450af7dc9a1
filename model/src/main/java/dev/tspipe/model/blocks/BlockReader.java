package dev.tspipe.model.blocks;

import java.util.Arrays;

/**
 * Decodes a block (one chunk or several, one after the other: {@link ChunkWriter}) into its readings, oldest first,
 * one per timestamp: of the readings of one timestamp the last written is the reading (a correction replaces a value;
 * a chunk appended twice changes nothing). The tags of a reading are {@code RawRow}'s tag bytes at
 * {@link #tagsOffset} in {@link #tagBytes}, one copy per tag set of a chunk.
 *
 * <p>Reused for many blocks ({@link #read}); not thread-safe. Arrays grow and are kept.
 */
public final class BlockReader {

    private byte[] tagBytes = new byte[256];
    private int tagBytesLength;
    private int chunks;
    private int size;
    private long[] timestamps = new long[64];
    private double[] values = new double[64];
    private int[] tagOffsets = new int[64];
    private int[] tagLengths = new int[64];
    private int[] order = new int[64];
    private int[] scratch = new int[64];
    private int[] setOffsets = new int[4];
    private int[] setLengths = new int[4];
    /** Tag sets of the chunk read last, at {@link #setOffsets}: those of a chunk that inherits them; 0 before the first. */
    private int sets;
    /** Where the tag-sets field of the chunk read last is, {@code lastSets[lastSetsFrom, lastSetsTo)}; null if not known. */
    private byte[] lastSets;
    private int lastSetsFrom;
    private int lastSetsTo;

    /** Decodes {@code length} bytes of {@code bytes} from {@code offset}: the block that begins at {@code blockStartMillis}. */
    public BlockReader read(byte[] bytes, int offset, int length, long blockStartMillis) {
        return readAfter(null, bytes, offset, length, blockStartMillis);
    }

    /**
     * Decodes {@code length} bytes of {@code bytes} from {@code offset}, chunks that follow in their block (which begins
     * at {@code blockStartMillis}) a chunk whose tag-sets field was {@code previousTagSets} ({@link #lastTagSets}, or
     * {@code ChunkWriter.tagSets}; null: not known): a first chunk that inherits its sets takes these.
     */
    public BlockReader readAfter(byte[] previousTagSets, byte[] bytes, int offset, int length, long blockStartMillis) {
        tagBytesLength = 0;
        chunks = 0;
        size = 0;
        sets = 0;
        lastSets = null;
        if (previousTagSets != null) {
            readTagSets(new Cursor(previousTagSets, 0, previousTagSets.length), 0, previousTagSets.length);
            lastSets = previousTagSets;
            lastSetsFrom = 0;
            lastSetsTo = previousTagSets.length;
        }
        int end = offset + length;
        int at = offset;
        while (at < end) {
            at = readChunk(bytes, at, end, blockStartMillis);
            chunks++;
        }
        resolve();
        return this;
    }

    public BlockReader read(byte[] bytes, long blockStartMillis) {
        return read(bytes, 0, bytes.length, blockStartMillis);
    }

    /** Readings of the block, one per timestamp. */
    public int size() {
        return size;
    }

    /** Chunks the block was made of. */
    public int chunks() {
        return chunks;
    }

    /**
     * The tag-sets field of the last chunk read, as {@code ChunkWriter.tagSets} gives it (what a chunk after it may
     * inherit), or null when it is not known: the chunk inherited the sets of a chunk that was not read.
     */
    public byte[] lastTagSets() {
        if (lastSets == null) {
            return null;
        }
        return lastSetsFrom == 0 && lastSetsTo == lastSets.length ? lastSets : Arrays.copyOfRange(lastSets, lastSetsFrom, lastSetsTo);
    }

    /**
     * The tag-sets field of the chunk at {@code offset} of {@code bytes} (as {@link #lastTagSets} gives it), or null when
     * the chunk inherits the sets of the chunk before it; read from the chunk's first fields only, not decoded.
     */
    public static byte[] tagSetsField(byte[] bytes, int offset, int length) {
        int end = offset + length;
        int header = bytes[offset] & 0xFF;
        if (header >>> 4 != ChunkWriter.VERSION || (header & 0x0C) != 0) {
            throw new MalformedBlockException("unknown chunk header 0x" + Integer.toHexString(header)
                    + " (this tspipe reads chunk format " + ChunkWriter.VERSION + ")", offset);
        }
        if ((header & ChunkWriter.INHERITED_TAG_SETS) != 0) {
            return null;
        }
        Cursor cursor = new Cursor(bytes, offset + 1, end);
        cursor.count("reading count");
        int field = cursor.at;
        int sets = cursor.count("tag set count");
        for (int s = 0; s < sets; s++) {
            cursor.skip(cursor.count("tag set length"));
        }
        return Arrays.copyOfRange(bytes, field, cursor.at);
    }

    /** The {@code i}-th reading's time, ascending in {@code i}. */
    public long timestamp(int i) {
        return timestamps[i];
    }

    public double value(int i) {
        return values[i];
    }

    /** The tags of the readings, {@code RawRow}'s tag bytes, into which {@link #tagsOffset} points. */
    public byte[] tagBytes() {
        return tagBytes;
    }

    public int tagsOffset(int i) {
        return tagOffsets[i];
    }

    public int tagsLength(int i) {
        return tagLengths[i];
    }

    /** The index of the reading at {@code epochMillis}, or -1. */
    public int indexOf(long epochMillis) {
        int index = Arrays.binarySearch(timestamps, 0, size, epochMillis);
        return index >= 0 ? index : -1;
    }

    /** The {@code i}-th reading as {@code RawRow} writes it: its value's IEEE 754 bits, then its tags. */
    public byte[] rawRow(int i) {
        byte[] row = new byte[8 + tagLengths[i]];
        long bits = Double.doubleToRawLongBits(values[i]);
        for (int b = 0; b < 8; b++) {
            row[b] = (byte) (bits >>> (56 - 8 * b));
        }
        System.arraycopy(tagBytes, tagOffsets[i], row, 8, tagLengths[i]);
        return row;
    }

    /** The tag-sets field of a chunk: they become the sets its readings (and the chunks that inherit them) point to. */
    private void readTagSets(Cursor cursor, int start, int end) {
        int count = cursor.count("tag set count");
        if (count == 0 || count > end - cursor.at) {
            throw new MalformedBlockException("a chunk of " + count + " tag sets", start);
        }
        if (count > setOffsets.length) {
            setOffsets = new int[Math.max(count, setOffsets.length * 2)];
            setLengths = new int[setOffsets.length];
        }
        for (int s = 0; s < count; s++) {
            int compactLength = cursor.count("tag set length");
            int compactStart = cursor.skip(compactLength);
            int room = TagSets.rawLength(compactLength);
            if (tagBytesLength + room > tagBytes.length) {
                tagBytes = Arrays.copyOf(tagBytes, Math.max(tagBytes.length * 2, tagBytesLength + room));
            }
            int expanded = TagSets.expand(cursor.bytes, compactStart, compactLength, tagBytes, tagBytesLength);
            setOffsets[s] = tagBytesLength;
            setLengths[s] = expanded - tagBytesLength;
            tagBytesLength = expanded;
        }
        sets = count;
    }

    /** {@code count} tag sets, each of no tags ({@code RawRow}'s four zero bytes), for a chunk whose sets cannot be known. */
    private void noTags(int count) {
        if (tagBytesLength + 4 > tagBytes.length) {
            tagBytes = Arrays.copyOf(tagBytes, tagBytes.length * 2 + 4);
        }
        if (count > setOffsets.length) {
            setOffsets = new int[count];
            setLengths = new int[count];
        }
        Arrays.fill(tagBytes, tagBytesLength, tagBytesLength + 4, (byte) 0);
        Arrays.fill(setOffsets, 0, count, tagBytesLength);
        Arrays.fill(setLengths, 0, count, 4);
        tagBytesLength += 4;
        sets = count;
    }

    private int readChunk(byte[] bytes, int start, int end, long base) {
        int at = start;
        int header = bytes[at++] & 0xFF;
        if (header >>> 4 != ChunkWriter.VERSION || (header & 0x0C) != 0) {
            throw new MalformedBlockException("unknown chunk header 0x" + Integer.toHexString(header)
                    + " (this tspipe reads chunk format " + ChunkWriter.VERSION + ")", start);
        }
        boolean xor = (header & ChunkWriter.XOR_VALUES) != 0;
        Cursor cursor = new Cursor(bytes, at, end);
        int count = cursor.count("reading count");
        if (count == 0) {
            throw new MalformedBlockException("a chunk of no readings", start);
        }
        if ((header & ChunkWriter.INHERITED_TAG_SETS) != 0) {
            int inherited = cursor.count("tag set count");
            if (inherited == 0 || inherited > end - cursor.at) {
                throw new MalformedBlockException("a chunk of " + inherited + " tag sets", start);
            }
            if (inherited != sets) {
                // Not the chunk it follows (the broker deleted that one: a changelog read from past its retention; or
                // it is decoded on its own): its readings have no tags.
                noTags(inherited);
                lastSets = null;
            }
        } else {
            int field = cursor.at;
            readTagSets(cursor, start, end);
            lastSets = bytes;
            lastSetsFrom = field;
            lastSetsTo = cursor.at;
        }
        long timestamp = base + cursor.varint("first timestamp");
        int decimals = 0;
        long mantissa = 0;
        long valueBits;
        if (xor) {
            valueBits = cursor.longBits();
        } else {
            decimals = cursor.aByte();
            if (decimals > ChunkWriter.MAX_DECIMALS) {
                throw new MalformedBlockException("a decimal exponent of " + decimals, cursor.at - 1);
            }
            mantissa = Varints.unzigzag(cursor.varint("first mantissa"));
            valueBits = Double.doubleToRawLongBits(mantissa / ChunkWriter.POWERS_OF_TEN[decimals]);
        }
        long firstDelta = count > 1 ? Varints.unzigzag(cursor.varint("first delta")) : 0;
        int timeK = cursor.aByte();
        int valueK = xor ? 0 : cursor.aByte();
        if (timeK > RiceCode.MAX_K || valueK > RiceCode.MAX_K) {
            throw new MalformedBlockException("a Rice parameter above " + RiceCode.MAX_K, cursor.at - 1);
        }
        int bitBytes = cursor.count("bits length");
        int bitsStart = cursor.skip(bitBytes);
        if (count - 1 > 8L * bitBytes) {
            throw new MalformedBlockException(count + " readings in " + bitBytes + " bytes of bits", start);
        }
        ensure(size + count);
        BitReader in = new BitReader(bytes, bitsStart, bitBytes);
        int tagBits = sets > 1 ? 32 - Integer.numberOfLeadingZeros(sets - 1) : 0;
        long delta = firstDelta;
        int leading = -1;
        int trailing = 0;
        for (int i = 0; i < count; i++) {
            int set = tagBits > 0 ? (int) in.read(tagBits) : 0;
            if (set >= sets) {
                throw new MalformedBlockException("tag set " + set + " of " + sets, in.byteOffset());
            }
            if (i > 0) {
                if (i > 1) {
                    delta += Varints.unzigzag(RiceCode.read(in, timeK));
                }
                timestamp += delta;
                if (xor) {
                    if (in.read(1) == 1) {
                        if (in.read(1) == 0) {
                            if (leading < 0) {
                                throw new MalformedBlockException("a value in the previous window before any window", in.byteOffset());
                            }
                            valueBits ^= in.read(64 - leading - trailing) << trailing;
                        } else {
                            leading = (int) in.read(6);
                            int meaningful = (int) in.read(6) + 1;
                            if (leading + meaningful > 64) {
                                throw new MalformedBlockException("a value window past 64 bits", in.byteOffset());
                            }
                            trailing = 64 - leading - meaningful;
                            valueBits ^= in.read(meaningful) << trailing;
                        }
                    }
                } else {
                    mantissa += Varints.unzigzag(RiceCode.read(in, valueK));
                    valueBits = Double.doubleToRawLongBits(mantissa / ChunkWriter.POWERS_OF_TEN[decimals]);
                }
            }
            timestamps[size] = timestamp;
            values[size] = Double.longBitsToDouble(valueBits);
            tagOffsets[size] = setOffsets[set];
            tagLengths[size] = setLengths[set];
            size++;
        }
        return cursor.at;
    }

    /** Sorts by timestamp, keeping the last written of each timestamp; nothing to do for a block written in order. */
    private void resolve() {
        boolean ascending = true;
        for (int i = 1; i < size && ascending; i++) {
            ascending = timestamps[i] > timestamps[i - 1];
        }
        if (ascending) {
            return;
        }
        for (int i = 0; i < size; i++) {
            order[i] = i;
        }
        mergeSort(0, size);
        long[] sortedTimes = new long[timestamps.length];
        double[] sortedValues = new double[values.length];
        int[] sortedOffsets = new int[tagOffsets.length];
        int[] sortedLengths = new int[tagLengths.length];
        int kept = 0;
        for (int i = 0; i < size; i++) {
            int from = order[i];
            if (i + 1 < size && timestamps[order[i + 1]] == timestamps[from]) {
                continue;
            }
            sortedTimes[kept] = timestamps[from];
            sortedValues[kept] = values[from];
            sortedOffsets[kept] = tagOffsets[from];
            sortedLengths[kept] = tagLengths[from];
            kept++;
        }
        timestamps = sortedTimes;
        values = sortedValues;
        tagOffsets = sortedOffsets;
        tagLengths = sortedLengths;
        size = kept;
    }

    /** A stable sort of {@code order[from, to)} by timestamp: of equal timestamps the one written first stays first. */
    private void mergeSort(int from, int to) {
        if (to - from < 2) {
            return;
        }
        int middle = (from + to) >>> 1;
        mergeSort(from, middle);
        mergeSort(middle, to);
        if (timestamps[order[middle - 1]] <= timestamps[order[middle]]) {
            return;
        }
        System.arraycopy(order, from, scratch, from, to - from);
        int left = from;
        int right = middle;
        for (int i = from; i < to; i++) {
            if (right >= to || (left < middle && timestamps[scratch[left]] <= timestamps[scratch[right]])) {
                order[i] = scratch[left++];
            } else {
                order[i] = scratch[right++];
            }
        }
    }

    private void ensure(int capacity) {
        if (capacity > timestamps.length) {
            int grown = Math.max(capacity, timestamps.length * 2);
            timestamps = Arrays.copyOf(timestamps, grown);
            values = Arrays.copyOf(values, grown);
            tagOffsets = Arrays.copyOf(tagOffsets, grown);
            tagLengths = Arrays.copyOf(tagLengths, grown);
            order = new int[grown];
            scratch = new int[grown];
        }
    }

    /** Reads a chunk's byte-aligned fields, refusing to pass the block's end. */
    private static final class Cursor {
        private final byte[] bytes;
        private final int end;
        private int at;

        Cursor(byte[] bytes, int at, int end) {
            this.bytes = bytes;
            this.at = at;
            this.end = end;
        }

        long varint(String field) {
            int start = at;
            long value = 0;
            for (int shift = 0; shift < 64; shift += 7) {
                if (at >= end) {
                    throw new MalformedBlockException("the " + field + " ends early", start);
                }
                int b = bytes[at++] & 0xFF;
                value |= (long) (b & 0x7F) << shift;
                if ((b & 0x80) == 0) {
                    return value;
                }
            }
            throw new MalformedBlockException("the " + field + " is longer than 10 bytes", start);
        }

        int count(String field) {
            int start = at;
            long value = varint(field);
            if (value < 0 || value > Integer.MAX_VALUE) {
                throw new MalformedBlockException("the " + field + " " + Long.toUnsignedString(value) + " is too large", start);
            }
            return (int) value;
        }

        int skip(int length) {
            if (length > end - at) {
                throw new MalformedBlockException("a field of " + length + " bytes past the block's end", at);
            }
            int start = at;
            at += length;
            return start;
        }

        int aByte() {
            if (at >= end) {
                throw new MalformedBlockException("a chunk ends early", at);
            }
            return bytes[at++] & 0xFF;
        }

        long longBits() {
            int start = skip(8);
            long value = 0;
            for (int i = 0; i < 8; i++) {
                value = (value << 8) | (bytes[start + i] & 0xFF);
            }
            return value;
        }
    }
}
