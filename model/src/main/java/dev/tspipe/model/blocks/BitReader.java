package dev.tspipe.model.blocks;

/** Reads what {@link BitWriter} wrote, from a bit position up to a limit; a read past the limit is a malformed block. */
final class BitReader {

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
        if (bits > 32) {
            long high = read(bits - 32);
            return (high << 32) | read(32);
        }
        if (position + bits > limit) {
            throw new MalformedBlockException("the bits of a chunk end early", (int) (position / 8));
        }
        long value = 0;
        int needed = bits;
        while (needed > 0) {
            int index = (int) (position >>> 3);
            int available = 8 - (int) (position & 7);
            int taken = Math.min(available, needed);
            int current = ((bytes[index] & 0xFF) >>> (available - taken)) & ((1 << taken) - 1);
            value = (value << taken) | current;
            needed -= taken;
            position += taken;
        }
        return value;
    }

    /** The next {@code bits} bits as a two's-complement number. */
    long readSigned(int bits) {
        long value = read(bits);
        return (value << (64 - bits)) >> (64 - bits);
    }

    /** Counts one bits up to the first zero bit (which is read too) or up to {@code max} ones. */
    int readOnes(int max) {
        int ones = 0;
        while (ones < max && read(1) == 1) {
            ones++;
        }
        return ones;
    }

    /** The byte offset, in the array, of the bit position: for error messages. */
    int byteOffset() {
        return (int) (position / 8);
    }
}
