package dev.tspipe.model.blocks;

/** Unsigned LEB128 varints (as protobuf and Avro write them) and zigzag for signed ones. */
public final class Varints {

    private Varints() {
    }

    public static int put(byte[] out, int offset, long value) {
        while ((value & ~0x7FL) != 0) {
            out[offset++] = (byte) ((value & 0x7F) | 0x80);
            value >>>= 7;
        }
        out[offset++] = (byte) value;
        return offset;
    }

    public static int size(long value) {
        int size = 1;
        while ((value & ~0x7FL) != 0) {
            size++;
            value >>>= 7;
        }
        return size;
    }

    public static long zigzag(long value) {
        return (value << 1) ^ (value >> 63);
    }

    public static long unzigzag(long value) {
        return (value >>> 1) ^ -(value & 1);
    }
}
