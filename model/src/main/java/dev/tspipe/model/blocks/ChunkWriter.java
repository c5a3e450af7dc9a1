package dev.tspipe.model.blocks;

import java.util.Arrays;

/**
 * Encodes readings of one series, all in one block (one time bucket), into one <em>chunk</em>. A block, the value of
 * one row of the raw table, is one chunk or several written one after the other: each commit appends the chunk of its
 * new readings (RocksDB's merge, concatenating), and a block that closes is written again as one chunk. A chunk
 * holds the readings in the order they were added; when a block holds two readings of one timestamp, the later one
 * (in its chunk, and by chunk) is the reading: that is how a correction replaces a value, and why appending a chunk
 * twice changes nothing ({@link BlockReader}).
 *
 * <table>
 *   <caption>Byte layout of a chunk</caption>
 *   <tr><th>field</th><th>bytes</th><th>content</th></tr>
 *   <tr><td>header</td><td>1</td><td>high nibble: format version {@value #VERSION}; bit 0: 0 values as decimal
 *       mantissas, 1 values as XOR of their IEEE 754 bits; bit 1: 1 when the chunk's tag-sets field holds only
 *       their count, its readings' sets being those of the chunk before it in the block</td></tr>
 *   <tr><td>count</td><td>varint</td><td>readings in the chunk, at least 1</td></tr>
 *   <tr><td>tag sets</td><td>varint, then per set varint + bytes (only the varint when header bit 1 is set)</td>
 *       <td>the distinct tag sets of the chunk, each a varint count, then per tag a varint length and the UTF-8 name,
 *       a varint length and the UTF-8 value</td></tr>
 *   <tr><td>first timestamp</td><td>varint</td><td>milliseconds after the block's start (the row key's time)</td></tr>
 *   <tr><td>first value</td><td>decimal: 1 byte exponent e (0..15), zigzag varint mantissa m (value = m / 10^e);
 *       XOR: 8 bytes, the IEEE 754 bits</td></tr>
 *   <tr><td>first delta</td><td>zigzag varint, if more than one reading</td><td>milliseconds from the first
 *       reading to the second</td></tr>
 *   <tr><td>time parameter</td><td>1</td><td>the Rice parameter of the timestamps' deltas of deltas</td></tr>
 *   <tr><td>value parameter</td><td>decimal only: 1</td><td>the Rice parameter of the mantissas' changes</td></tr>
 *   <tr><td>bits length</td><td>varint</td><td>bytes of the bits that follow</td></tr>
 *   <tr><td>bits</td><td>...</td><td>the tag set of the first reading if there are several; then per further
 *       reading: its tag set (if several); from the third reading on, the change of its timestamp's delta from the
 *       previous delta, zigzag, in a Rice code ({@link RiceCode}); its value: decimal, the change of the
 *       mantissa, zigzag, Rice; XOR, Gorilla's code ({@code 0} same value; {@code 10} and the XOR's meaningful bits
 *       in the previous window; {@code 11}, 6 bits of leading zeros, 6 bits of length - 1, the meaningful bits). A
 *       tag set is an index of as many bits as the number of sets needs. Padded with zero bits to a byte.</td></tr>
 * </table>
 *
 * <p>Values are written as decimal mantissas when every value of the chunk is exactly {@code m / 10^e} for one
 * {@code e} of at most 15 and {@code |m| < 2^53} (bit for bit, so {@code -0.0}, NaN and infinities are not): what
 * sensors send (21.37 °C, 1013.2 hPa), as VictoriaMetrics stores them. Otherwise, XOR, as Gorilla and Prometheus do.
 * Either way a value reads back with exactly its bits.
 *
 * <p>Reused for many chunks ({@link #start}); not thread-safe. Arrays grow and are kept.
 */
public final class ChunkWriter {

    /** The format version in a chunk's header; never renumbered. */
    public static final int VERSION = 1;

    static final int XOR_VALUES = 1;
    /** Header bit: the chunk holds only the count of its tag sets; they are those of the chunk before it in the block. */
    static final int INHERITED_TAG_SETS = 2;
    static final int MAX_DECIMALS = 15;
    static final double[] POWERS_OF_TEN = {1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15};
    private static final double MAX_MANTISSA = 0x1p53;

    private final BitWriter bits = new BitWriter();
    private long base;
    private int count;
    private long[] timestamps = new long[64];
    private double[] values = new double[64];
    private int[] tagSets = new int[64];
    private long[] timeCodes = new long[64];
    private long[] valueCodes = new long[64];
    private byte[][] compactTags = new byte[4][];
    private byte[] tagBytes = new byte[64];
    private int tagBytesLength;
    private int[] tagOffsets = new int[4];
    private int[] tagLengths = new int[4];
    private int tagSetCount;
    /** The tag-sets field of the chunk made last ({@link #tagSets}), or null. */
    private byte[] sets;

    /** Starts a chunk of the block that begins at {@code blockStartMillis}. */
    public ChunkWriter start(long blockStartMillis) {
        base = blockStartMillis;
        count = 0;
        sets = null;
        tagBytesLength = 0;
        tagSetCount = 0;
        return this;
    }

    /** Adds a reading: its time (not before the block's start), value and tags as {@code RawRow} writes them. */
    public void add(long epochMillis, double value, byte[] tags, int tagsOffset, int tagsLength) {
        if (epochMillis < base) {
            throw new IllegalArgumentException("a reading at " + epochMillis + " is before its block's start " + base);
        }
        if (count == timestamps.length) {
            timestamps = Arrays.copyOf(timestamps, count * 2);
            values = Arrays.copyOf(values, count * 2);
            tagSets = Arrays.copyOf(tagSets, count * 2);
            timeCodes = new long[count * 2];
            valueCodes = new long[count * 2];
        }
        timestamps[count] = epochMillis;
        values[count] = value;
        tagSets[count] = tagSet(tags, tagsOffset, tagsLength);
        count++;
    }

    public void add(long epochMillis, double value, byte[] tags) {
        add(epochMillis, value, tags, 0, tags.length);
    }

    /** Readings added since {@link #start}. */
    public int count() {
        return count;
    }

    /** The chunk of the readings added since {@link #start}; at least one must have been added. */
    public byte[] toChunk() {
        return toChunk(null);
    }

    /**
     * The chunk of the readings added since {@link #start}, to follow in its block a chunk whose {@link #tagSets} were
     * {@code previousTagSets} (null: not known): when its own are the same, the chunk holds only their count and says so
     * in its header, and a reader takes those of the chunk before it. The caller must know that chunk for sure: it is the
     * one before this one in the block wherever the block is read, from the table or from its changelog.
     */
    public byte[] toChunk(byte[] previousTagSets) {
        if (count == 0) {
            throw new IllegalStateException("a chunk holds at least one reading");
        }
        int decimals = commonDecimals();
        long firstDelta = count > 1 ? timestamps[1] - timestamps[0] : 0;
        long delta = firstDelta;
        long mantissa = decimals >= 0 ? mantissa(values[0], decimals) : 0;
        for (int i = 1; i < count; i++) {
            long next = timestamps[i] - timestamps[i - 1];
            timeCodes[i] = Varints.zigzag(next - delta);
            delta = next;
            if (decimals >= 0) {
                long nextMantissa = mantissa(values[i], decimals);
                valueCodes[i] = Varints.zigzag(nextMantissa - mantissa);
                mantissa = nextMantissa;
            }
        }
        int timeK = RiceCode.best(timeCodes, 2, count);
        int valueK = decimals >= 0 ? RiceCode.best(valueCodes, 1, count) : 0;

        bits.reset();
        int tagBits = tagSetCount > 1 ? 32 - Integer.numberOfLeadingZeros(tagSetCount - 1) : 0;
        if (tagBits > 0) {
            bits.write(tagSets[0], tagBits);
        }
        long previousBits = Double.doubleToRawLongBits(values[0]);
        int previousLeading = -1;
        int previousTrailing = 0;
        for (int i = 1; i < count; i++) {
            if (tagBits > 0) {
                bits.write(tagSets[i], tagBits);
            }
            if (i > 1) {
                RiceCode.write(bits, timeCodes[i], timeK);
            }
            if (decimals >= 0) {
                RiceCode.write(bits, valueCodes[i], valueK);
                continue;
            }
            long valueBits = Double.doubleToRawLongBits(values[i]);
            long xor = valueBits ^ previousBits;
            previousBits = valueBits;
            if (xor == 0) {
                bits.write(0, 1);
                continue;
            }
            int leading = Long.numberOfLeadingZeros(xor);
            int trailing = Long.numberOfTrailingZeros(xor);
            if (previousLeading >= 0 && leading >= previousLeading && trailing >= previousTrailing) {
                bits.write(0b10, 2);
                bits.write(xor >>> previousTrailing, 64 - previousLeading - previousTrailing);
            } else {
                int meaningful = 64 - leading - trailing;
                bits.write(0b11, 2);
                bits.write(leading, 6);
                bits.write(meaningful - 1, 6);
                bits.write(xor >>> trailing, meaningful);
                previousLeading = leading;
                previousTrailing = trailing;
            }
        }
        int bitBytes = bits.finish();

        sets = tagSetSection();
        boolean inherited = Arrays.equals(sets, previousTagSets);
        int size = 1 + Varints.size(count) + (inherited ? Varints.size(tagSetCount) : sets.length);
        long firstOffset = timestamps[0] - base;
        long firstMantissa = decimals >= 0 ? Varints.zigzag(mantissa(values[0], decimals)) : 0;
        size += Varints.size(firstOffset) + (decimals >= 0 ? 1 + Varints.size(firstMantissa) + 2 : 8 + 1);
        if (count > 1) {
            size += Varints.size(Varints.zigzag(firstDelta));
        }
        size += Varints.size(bitBytes) + bitBytes;

        byte[] chunk = new byte[size];
        int at = 0;
        chunk[at++] = (byte) (VERSION << 4 | (decimals >= 0 ? 0 : XOR_VALUES) | (inherited ? INHERITED_TAG_SETS : 0));
        at = Varints.put(chunk, at, count);
        if (inherited) {
            at = Varints.put(chunk, at, tagSetCount);
        } else {
            System.arraycopy(sets, 0, chunk, at, sets.length);
            at += sets.length;
        }
        at = Varints.put(chunk, at, firstOffset);
        if (decimals >= 0) {
            chunk[at++] = (byte) decimals;
            at = Varints.put(chunk, at, firstMantissa);
        } else {
            long first = Double.doubleToRawLongBits(values[0]);
            for (int shift = 56; shift >= 0; shift -= 8) {
                chunk[at++] = (byte) (first >>> shift);
            }
        }
        if (count > 1) {
            at = Varints.put(chunk, at, Varints.zigzag(firstDelta));
        }
        chunk[at++] = (byte) timeK;
        if (decimals >= 0) {
            chunk[at++] = (byte) valueK;
        }
        at = Varints.put(chunk, at, bitBytes);
        System.arraycopy(bits.array(), 0, chunk, at, bitBytes);
        return chunk;
    }

    /**
     * The tag sets of the chunk {@link #toChunk} made last, as its tag-sets field holds them (the count, then each set
     * with its length), in the order of their first reading: what {@link #toChunk(byte[])} compares.
     */
    public byte[] tagSets() {
        if (sets == null) {
            throw new IllegalStateException("no chunk made since the start");
        }
        return sets;
    }

    private byte[] tagSetSection() {
        int size = Varints.size(tagSetCount);
        for (int s = 0; s < tagSetCount; s++) {
            size += Varints.size(compactTags[s].length) + compactTags[s].length;
        }
        byte[] section = new byte[size];
        int at = Varints.put(section, 0, tagSetCount);
        for (int s = 0; s < tagSetCount; s++) {
            at = Varints.put(section, at, compactTags[s].length);
            System.arraycopy(compactTags[s], 0, section, at, compactTags[s].length);
            at += compactTags[s].length;
        }
        return section;
    }

    /** The one exponent that writes every value as an exact mantissa, or -1 if none does. */
    private int commonDecimals() {
        int decimals = 0;
        for (int i = 0; i < count; i++) {
            int own = decimalsOf(values[i]);
            if (own < 0) {
                return -1;
            }
            decimals = Math.max(decimals, own);
        }
        for (int i = 0; i < count; i++) {
            if (!exactAt(values[i], decimals)) {
                return -1;
            }
        }
        return decimals;
    }

    /** The fewest decimals that write {@code value} exactly, or -1. */
    static int decimalsOf(double value) {
        for (int decimals = 0; decimals <= MAX_DECIMALS; decimals++) {
            if (exactAt(value, decimals)) {
                return decimals;
            }
        }
        return -1;
    }

    private static boolean exactAt(double value, int decimals) {
        double scaled = value * POWERS_OF_TEN[decimals];
        if (!(Math.abs(scaled) < MAX_MANTISSA)) {
            return false;
        }
        long mantissa = (long) Math.rint(scaled);
        return Double.doubleToRawLongBits(mantissa / POWERS_OF_TEN[decimals]) == Double.doubleToRawLongBits(value);
    }

    private static long mantissa(double value, int decimals) {
        return (long) Math.rint(value * POWERS_OF_TEN[decimals]);
    }

    private int tagSet(byte[] tags, int offset, int length) {
        for (int s = 0; s < tagSetCount; s++) {
            if (Arrays.equals(tagBytes, tagOffsets[s], tagOffsets[s] + tagLengths[s], tags, offset, offset + length)) {
                return s;
            }
        }
        if (tagSetCount == tagOffsets.length) {
            tagOffsets = Arrays.copyOf(tagOffsets, tagSetCount * 2);
            tagLengths = Arrays.copyOf(tagLengths, tagSetCount * 2);
            compactTags = Arrays.copyOf(compactTags, tagSetCount * 2);
        }
        compactTags[tagSetCount] = TagSets.compact(tags, offset, length);
        if (tagBytesLength + length > tagBytes.length) {
            tagBytes = Arrays.copyOf(tagBytes, Math.max(tagBytes.length * 2, tagBytesLength + length));
        }
        System.arraycopy(tags, offset, tagBytes, tagBytesLength, length);
        tagOffsets[tagSetCount] = tagBytesLength;
        tagLengths[tagSetCount] = length;
        tagBytesLength += length;
        return tagSetCount++;
    }
}
