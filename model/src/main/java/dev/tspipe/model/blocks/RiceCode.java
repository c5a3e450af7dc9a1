package dev.tspipe.model.blocks;

/**
 * Golomb-Rice codes of zigzag-encoded signed numbers, with the parameter {@code k} chosen per chunk: a number
 * {@code v >= 0} is {@code v >>> k} one bits, a zero bit, then the low {@code k} bits of {@code v}. A quotient of
 * {@value #ESCAPE} or more is written as {@value #ESCAPE} one bits and then all 64 bits of {@code v}. For numbers
 * spread like a sensor's steps or a timer's jitter this is within a bit of their entropy, where fixed-width
 * buckets (Gorilla's) lose two to three bits a number.
 */
final class RiceCode {

    static final int ESCAPE = 32;
    static final int MAX_K = 62;

    private RiceCode() {
    }

    static void write(BitWriter out, long zigzagged, int k) {
        long quotient = zigzagged >>> k;
        if (quotient >= ESCAPE) {
            out.write(-1L, ESCAPE);
            out.write(zigzagged, 64);
            return;
        }
        out.write(((1L << quotient) - 1) << 1, (int) quotient + 1);
        if (k > 0) {
            out.write(zigzagged, k);
        }
    }

    static long read(BitReader in, int k) {
        int quotient = in.readOnes(ESCAPE);
        if (quotient == ESCAPE) {
            return in.read(64);
        }
        return k == 0 ? quotient : ((long) quotient << k) | in.read(k);
    }

    /** Bits of {@code count} numbers written with parameter {@code k}. */
    static long cost(long[] zigzagged, int from, int to, int k) {
        long bits = 0;
        for (int i = from; i < to; i++) {
            long quotient = zigzagged[i] >>> k;
            bits += quotient >= ESCAPE ? ESCAPE + 64 : quotient + 1 + k;
        }
        return bits;
    }

    /**
     * The parameter that writes these numbers in the fewest bits, of those near the one their mean suggests (the
     * cost is convex in {@code k} around it, and a search of every {@code k} would cost 60 passes).
     */
    static int best(long[] zigzagged, int from, int to) {
        double sum = 0;
        for (int i = from; i < to; i++) {
            sum += zigzagged[i];
        }
        long mean = (long) (sum / Math.max(1, to - from));
        int guess = 63 - Long.numberOfLeadingZeros(Math.max(1, mean));
        int best = 0;
        long fewest = Long.MAX_VALUE;
        for (int k = Math.max(0, guess - 2); k <= Math.min(MAX_K, guess + 2); k++) {
            long bits = cost(zigzagged, from, to, k);
            if (bits < fewest) {
                fewest = bits;
                best = k;
            }
        }
        return best;
    }
}
