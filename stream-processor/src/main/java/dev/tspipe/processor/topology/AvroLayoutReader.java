package dev.tspipe.processor.topology;

import java.nio.charset.StandardCharsets;

/**
 * The Avro binary primitives (zig-zag varints, little-endian doubles, length-prefixed strings, map blocks) of the
 * decoders' fast paths ({@link ReadingDecoder.FastReader}, the batch reader): a cursor over one value that sets
 * {@link #failed} as soon as anything is not the plain case, so that the generic path decides. The text checks are
 * {@link ReadingValidator}'s, and the raw row is {@code RawRow.toBytes()}'s layout.
 */
abstract class AvroLayoutReader {

    /** Tags a reading can have on this path; more go the generic way. */
    static final int MAX_TAGS = 32;

    byte[] data;
    int pos;
    boolean failed;
    /** Per tag: offset and length of its name, offset and length of its value. */
    final int[] tags = new int[MAX_TAGS * 4];

    /** Skips a string of {@code length} bytes (from {@link #readStringLength}); where it starts, or -1 if reading failed. */
    int skip(int length) {
        if (failed) {
            return -1;
        }
        int start = pos;
        pos += length;
        return start;
    }

    /**
     * The {@code length} bytes at {@code start} as a string if they are well-formed UTF-8 without control characters
     * (and non-empty unless allowed), else null: what {@code ReadingValidator} accepts as a name.
     */
    String printableText(int start, int length, boolean emptyAllowed) {
        if (length == 0 && !emptyAllowed) {
            return null;
        }
        int end = start + length;
        boolean ascii = true;
        for (int i = start; i < end; i++) {
            byte b = data[i];
            if (b < 0) {
                ascii = false;
            } else if (b < 0x20 || b == 0x7F) {
                return null;
            }
        }
        if (!ascii && (!wellFormedUtf8(data, start, end) || hasC1Control(data, start, end))) {
            return null;
        }
        return new String(data, start, length, ascii ? StandardCharsets.ISO_8859_1 : StandardCharsets.UTF_8);
    }

    /** Whether UTF-8 text holds U+0080..U+009F (C2 80..C2 9F), the C1 controls. */
    static boolean hasC1Control(byte[] bytes, int from, int to) {
        for (int i = from; i + 1 < to; i++) {
            if (bytes[i] == (byte) 0xC2 && (bytes[i + 1] & 0xFF) <= 0x9F) {
                return true;
            }
        }
        return false;
    }

    /**
     * Whether the bytes are well-formed UTF-8 (Unicode table 3-7: no overlong forms, no surrogates, nothing above
     * U+10FFFF), the rule of the JDK's strict decoder that the generic path uses.
     */
    static boolean wellFormedUtf8(byte[] bytes, int from, int to) {
        int i = from;
        while (i < to) {
            int c = bytes[i] & 0xFF;
            if (c < 0x80) {
                i++;
            } else if (c < 0xC2) {
                return false;
            } else if (c < 0xE0) {
                if (i + 1 >= to || !continuation(bytes[i + 1])) {
                    return false;
                }
                i += 2;
            } else if (c < 0xF0) {
                if (i + 2 >= to) {
                    return false;
                }
                int c1 = bytes[i + 1] & 0xFF;
                if ((c == 0xE0 && c1 < 0xA0) || (c == 0xED && c1 > 0x9F) || !continuation(bytes[i + 1])
                        || !continuation(bytes[i + 2])) {
                    return false;
                }
                i += 3;
            } else if (c < 0xF5) {
                if (i + 3 >= to) {
                    return false;
                }
                int c1 = bytes[i + 1] & 0xFF;
                if ((c == 0xF0 && c1 < 0x90) || (c == 0xF4 && c1 > 0x8F) || !continuation(bytes[i + 1])
                        || !continuation(bytes[i + 2]) || !continuation(bytes[i + 3])) {
                    return false;
                }
                i += 4;
            } else {
                return false;
            }
        }
        return true;
    }

    static boolean continuation(byte b) {
        return (b & 0xC0) == 0x80;
    }

    /** A string's length, checked against the bytes left; -1 (and failed) if it does not fit. */
    int readStringLength() {
        int length = readInt();
        if (failed || length < 0 || length > data.length - pos) {
            failed = true;
            return -1;
        }
        return length;
    }

    /** Reads the tags into {@link #tags}, sorted by name; their number, or -1 (and failed). */
    int readTags() {
        int count = 0;
        while (!failed) {
            long block = readLong();
            if (failed || block < 0 || block > (data.length - pos) / 2 || count + block > MAX_TAGS) {
                break;
            }
            if (block == 0) {
                return count;
            }
            for (long i = 0; i < block; i++) {
                int nameLength = readStringLength();
                if (failed || !tagText(pos, nameLength, true)) {
                    return fail();
                }
                int nameStart = pos;
                pos += nameLength;
                int valueLength = readStringLength();
                if (failed || !tagText(pos, valueLength, false)) {
                    return fail();
                }
                int valueStart = pos;
                pos += valueLength;
                if (!insertSorted(count, nameStart, nameLength, valueStart, valueLength)) {
                    return fail();
                }
                count++;
            }
        }
        return fail();
    }

    int fail() {
        failed = true;
        return -1;
    }

    /**
     * Whether a tag's name or value is well-formed UTF-8 (any text: tags are not checked for control characters).
     * A name with a character above U+FFFF goes the generic way: sorted as a Java string (by UTF-16 units) it
     * can come before a name that its UTF-8 bytes come after.
     */
    boolean tagText(int start, int length, boolean name) {
        int end = start + length;
        for (int i = start; i < end; i++) {
            if (data[i] < 0) {
                if (name) {
                    for (int j = i; j < end; j++) {
                        if ((data[j] & 0xFF) >= 0xF0) {
                            return false;
                        }
                    }
                }
                return wellFormedUtf8(data, i, end);
            }
        }
        return true;
    }

    /** Inserts a tag by name (below U+10000, UTF-8 byte order is String order); false on a name seen before (the map keeps the last, the generic path decides). */
    boolean insertSorted(int count, int nameStart, int nameLength, int valueStart, int valueLength) {
        int at = count;
        while (at > 0) {
            int c = compare(tags[(at - 1) * 4], tags[(at - 1) * 4 + 1], nameStart, nameLength);
            if (c == 0) {
                return false;
            }
            if (c < 0) {
                break;
            }
            at--;
        }
        System.arraycopy(tags, at * 4, tags, (at + 1) * 4, (count - at) * 4);
        tags[at * 4] = nameStart;
        tags[at * 4 + 1] = nameLength;
        tags[at * 4 + 2] = valueStart;
        tags[at * 4 + 3] = valueLength;
        return true;
    }

    int compare(int aStart, int aLength, int bStart, int bLength) {
        return java.util.Arrays.compareUnsigned(data, aStart, aStart + aLength, data, bStart, bStart + bLength);
    }

    /** The raw row ({@code RawRow.toBytes()}'s layout) of the value and the sorted tags. */
    byte[] row(double value, int tagCount) {
        int size = 12;
        for (int i = 0; i < tagCount; i++) {
            size += 8 + tags[i * 4 + 1] + tags[i * 4 + 3];
        }
        byte[] row = new byte[size];
        putLong(row, 0, Double.doubleToRawLongBits(value));
        putInt(row, 8, tagCount);
        int at = 12;
        for (int i = 0; i < tagCount; i++) {
            at = putString(row, at, tags[i * 4], tags[i * 4 + 1]);
            at = putString(row, at, tags[i * 4 + 2], tags[i * 4 + 3]);
        }
        return row;
    }

    int putString(byte[] row, int at, int start, int length) {
        putInt(row, at, length);
        System.arraycopy(data, start, row, at + 4, length);
        return at + 4 + length;
    }

    static void putInt(byte[] target, int at, int value) {
        target[at] = (byte) (value >>> 24);
        target[at + 1] = (byte) (value >>> 16);
        target[at + 2] = (byte) (value >>> 8);
        target[at + 3] = (byte) value;
    }

    static void putLong(byte[] target, int at, long value) {
        putInt(target, at, (int) (value >>> 32));
        putInt(target, at + 4, (int) value);
    }

    /** An Avro int of at most 4 varint bytes (longer ones, legal or not, go the generic way). */
    int readInt() {
        long n = readVarint(4);
        return (int) ((n >>> 1) ^ -(n & 1));
    }

    /** An Avro long of at most 9 varint bytes (|value| < 2^62; longer ones go the generic way). */
    long readLong() {
        long n = readVarint(9);
        return (n >>> 1) ^ -(n & 1);
    }

    long readVarint(int maxBytes) {
        long n = 0;
        for (int i = 0; i < maxBytes && pos < data.length; i++) {
            int b = data[pos++] & 0xFF;
            n |= (long) (b & 0x7F) << (7 * i);
            if ((b & 0x80) == 0) {
                return n;
            }
        }
        failed = true;
        return 0;
    }

    double readDouble() {
        if (failed || data.length - pos < 8) {
            failed = true;
            return 0;
        }
        long bits = 0;
        for (int i = 7; i >= 0; i--) {
            bits = (bits << 8) | (data[pos + i] & 0xFF);
        }
        pos += 8;
        return Double.longBitsToDouble(bits);
    }
}
