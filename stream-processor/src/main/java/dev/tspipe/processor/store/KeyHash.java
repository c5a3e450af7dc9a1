package dev.tspipe.processor.store;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * A 64-bit hash of a key's bytes, eight at a time (a multiply and a shift per word, then the tail byte by byte): what
 * the per-reading and per-chunk tables hash with ({@link SeriesTable}, {@link RestoreBatch}). Not for anything that an
 * adversary's keys must not collide in: a collision there costs a comparison, never a wrong answer.
 */
final class KeyHash {

    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final long MULTIPLIER = 0x9E3779B97F4A7C15L;

    private KeyHash() {
    }

    /** The hash of {@code bytes[0, length)}. */
    static long of(byte[] bytes, int length) {
        long h = length * MULTIPLIER;
        int i = 0;
        for (; i + 8 <= length; i += 8) {
            h = (h ^ (long) LONGS.get(bytes, i)) * MULTIPLIER;
            h ^= h >>> 32;
        }
        for (; i < length; i++) {
            h = (h ^ (bytes[i] & 0xFF)) * 0x100000001B3L;
        }
        h ^= h >>> 29;
        h *= MULTIPLIER;
        return h ^ (h >>> 32);
    }
}
