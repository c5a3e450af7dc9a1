package dev.tspipe.model.blocks;

import java.util.Arrays;

/** Bits written most significant first into a growing byte array; reused with {@link #reset()}. Not thread-safe. */
final class BitWriter {

    private byte[] bytes = new byte[256];
    private int length;
    private long pending;
    private int pendingBits;

    void reset() {
        length = 0;
        pending = 0;
        pendingBits = 0;
    }

    /** Writes the low {@code bits} bits of {@code value}, 1 to 64 of them. */
    void write(long value, int bits) {
        if (bits > 32) {
            write(value >>> 32, bits - 32);
            write(value, 32);
            return;
        }
        pending = (pending << bits) | (value & ((1L << bits) - 1));
        pendingBits += bits;
        while (pendingBits >= 8) {
            pendingBits -= 8;
            put((byte) (pending >>> pendingBits));
        }
        pending &= (1L << pendingBits) - 1;
    }

    /** Pads the last byte with zero bits; returns the number of bytes written. */
    int finish() {
        if (pendingBits > 0) {
            put((byte) (pending << (8 - pendingBits)));
            pending = 0;
            pendingBits = 0;
        }
        return length;
    }

    byte[] array() {
        return bytes;
    }

    private void put(byte b) {
        if (length == bytes.length) {
            bytes = Arrays.copyOf(bytes, bytes.length * 2);
        }
        bytes[length++] = b;
    }
}
