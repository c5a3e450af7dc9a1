package dev.tspipe.model.blocks;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/** Reads what {@link BitWriter} wrote, from a bit position up to a limit; a read past the limit is a malformed block. */
final class BitReader {

    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);

    private final byte[] bytes;
    private long position;
    private final long limit;

    BitReader(byte[] bytes, int offset, int length) {
        this.bytes = bytes;
        this.position = (long) offset * 8;
        this.limit = (long) (offset + length) * 8;
    }

    /** The next {@code bits} bits (1 to 64) as an unsigned number. */
    long read(int bits) {
        if (bits > 56) {
            long high = read(bits - 32);
            return (high << 32) | read(32);
        }
        if (position + bits > limit) {
            throw new MalformedBlockException("the bits of a chunk end early", (int) (position / 8));
        }
        long value = (word() << (position & 7)) >>> (64 - bits);
        position += bits;
        return value;
    }

    /** The next {@code bits} bits as a two's-complement number. */
    long readSigned(int bits) {
        long value = read(bits);
        return (value << (64 - bits)) >> (64 - bits);
    }

    /** Counts one bits up to the first zero bit (which is read too) or up to {@code max} (at most 56) ones. */
    int readOnes(int max) {
        long window = word() << (position & 7);
        int ones = Math.min(max, Long.numberOfLeadingZeros(~window));
        long consumed = ones < max ? ones + 1 : ones;
        if (position + consumed > limit) {
            throw new MalformedBlockException("the bits of a chunk end early", (int) (position / 8));
        }
        position += consumed;
        return ones;
    }

    /** The byte offset, in the array, of the bit position: for error messages. */
    int byteOffset() {
        return (int) (position / 8);
    }

    /** The 8 bytes from the byte of the position, big-endian; zeros past the array's end. */
    private long word() {
        int index = (int) (position >>> 3);
        if (index + 8 <= bytes.length) {
            return (long) LONGS.get(bytes, index);
        }
        long word = 0;
        for (int i = 0; i < 8; i++) {
            word = (word << 8) | (index + i < bytes.length ? bytes[index + i] & 0xFF : 0);
        }
        return word;
    }
}
