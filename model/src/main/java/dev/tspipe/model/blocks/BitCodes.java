package dev.tspipe.model.blocks;

/**
 * The variable-length codes of a chunk's bits: a signed number is written as a run of one bits that picks its width,
 * then the number in that many bits (two's complement). Zero is a single zero bit. For the widths {@code {0, 8, 14,
 * 20, 32, 64}}: {@code 0} is 0; {@code 10} and 8 bits is -128..127; {@code 110} and 14 bits; {@code 1110} and 20
 * bits; {@code 11110} and 32 bits; {@code 11111} and 64 bits (no closing zero). Gorilla's timestamp code, with widths
 * for milliseconds.
 */
final class BitCodes {

    /** Widths of a timestamp's delta of delta, in milliseconds. */
    static final int[] TIMESTAMP_WIDTHS = {0, 8, 14, 20, 32, 64};

    /** Widths of the change of a decimal mantissa. */
    static final int[] MANTISSA_WIDTHS = {0, 4, 7, 13, 21, 64};

    private BitCodes() {
    }

    static void write(BitWriter out, long value, int[] widths) {
        if (value == 0) {
            out.write(0, 1);
            return;
        }
        int last = widths.length - 1;
        for (int ones = 1; ones < last; ones++) {
            int width = widths[ones];
            long half = 1L << (width - 1);
            if (value >= -half && value < half) {
                out.write(((1L << ones) - 1) << 1, ones + 1);
                out.write(value, width);
                return;
            }
        }
        out.write((1L << last) - 1, last);
        out.write(value, 64);
    }

    static long read(BitReader in, int[] widths) {
        int ones = in.readOnes(widths.length - 1);
        return ones == 0 ? 0 : in.readSigned(widths[ones]);
    }
}
