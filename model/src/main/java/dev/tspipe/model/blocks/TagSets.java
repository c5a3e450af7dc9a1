package dev.tspipe.model.blocks;

import java.util.Arrays;

/**
 * A chunk keeps each distinct tag set once, compactly: a varint count, then per tag a varint length and the UTF-8
 * name, a varint length and the UTF-8 value. Writers and readers see tags as {@code RawRow} writes them (a 4-byte
 * count, then 4-byte lengths); this converts between the two.
 */
final class TagSets {

    private TagSets() {
    }

    /** The compact form of {@code RawRow}'s tag bytes. */
    static byte[] compact(byte[] raw, int offset, int length) {
        int count = readInt(raw, offset);
        byte[] out = new byte[length];
        int at = Varints.put(out, 0, count);
        int from = offset + 4;
        for (int i = 0; i < 2 * count; i++) {
            int size = readInt(raw, from);
            at = Varints.put(out, at, size);
            System.arraycopy(raw, from + 4, out, at, size);
            at += size;
            from += 4 + size;
        }
        return Arrays.copyOf(out, at);
    }

    /**
     * Appends {@code RawRow}'s tag bytes of the compact set at {@code offset} (of {@code length} bytes) to {@code out}
     * from {@code outOffset}; returns the new end. {@code out} must have room for {@link #rawLength}.
     */
    static int expand(byte[] compact, int offset, int length, byte[] out, int outOffset) {
        int end = offset + length;
        int[] at = {offset};
        long count = varint(compact, at, end);
        if (count > length) {
            throw new MalformedBlockException("a tag set of " + count + " tags in " + length + " bytes", offset);
        }
        int to = putInt(out, outOffset, (int) count);
        for (long i = 0; i < 2 * count; i++) {
            long size = varint(compact, at, end);
            if (size > end - at[0]) {
                throw new MalformedBlockException("a tag of " + size + " bytes past its set's end", at[0]);
            }
            to = putInt(out, to, (int) size);
            System.arraycopy(compact, at[0], out, to, (int) size);
            to += (int) size;
            at[0] += (int) size;
        }
        if (at[0] != end) {
            throw new MalformedBlockException("a tag set with " + (end - at[0]) + " bytes left over", at[0]);
        }
        return to;
    }

    /** An upper bound of the {@code RawRow} bytes of a compact set of {@code length} bytes: each varint (at least one byte) becomes 4. */
    static int rawLength(int length) {
        return 4 * length + 4;
    }

    private static long varint(byte[] bytes, int[] at, int end) {
        int start = at[0];
        long value = 0;
        for (int shift = 0; shift < 35; shift += 7) {
            if (at[0] >= end) {
                throw new MalformedBlockException("a tag set ends early", start);
            }
            int b = bytes[at[0]++] & 0xFF;
            value |= (long) (b & 0x7F) << shift;
            if ((b & 0x80) == 0) {
                return value;
            }
        }
        throw new MalformedBlockException("a tag length longer than 5 bytes", start);
    }

    private static int readInt(byte[] bytes, int offset) {
        return (bytes[offset] & 0xFF) << 24 | (bytes[offset + 1] & 0xFF) << 16 | (bytes[offset + 2] & 0xFF) << 8 | (bytes[offset + 3] & 0xFF);
    }

    private static int putInt(byte[] out, int offset, int value) {
        out[offset] = (byte) (value >>> 24);
        out[offset + 1] = (byte) (value >>> 16);
        out[offset + 2] = (byte) (value >>> 8);
        out[offset + 3] = (byte) value;
        return offset + 4;
    }
}
