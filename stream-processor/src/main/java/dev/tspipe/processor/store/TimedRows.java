package dev.tspipe.processor.store;

import java.util.Arrays;

/**
 * The raw rows one series buffered since the last flush, or the buckets of one resolution it replaced
 * ({@link SeriesBuffer}): per slot where the row's bytes are in the store's {@link RowArena} (a correction, or a bucket
 * parked again, replaces in place), by timestamp in the order first put. Few, mostly in time order:
 * arrays of primitives, so that buffering a row writes no reference into this long-lived object, and a lookup past
 * the newest timestamp put is answered without a scan. Only the stream thread touches it.
 */
final class TimedRows {

    private static final long NONE = Long.MIN_VALUE;

    private long[] millis = new long[4];
    private int[] offsets = new int[4];
    private int[] lengths = new int[4];
    private int count;
    private long newest = NONE;

    /** The slot of {@code at}, or -1. */
    int slotOf(long at) {
        if (count == 0 || at > newest) {
            return -1;
        }
        for (int i = count - 1; i >= 0; i--) {
            if (millis[i] == at) {
                return i;
            }
        }
        return -1;
    }

    /** The slot of {@code at}: the one it has, else a new one at the end. */
    private int slotFor(long at) {
        int slot = slotOf(at);
        if (slot >= 0) {
            return slot;
        }
        if (count == millis.length) {
            millis = Arrays.copyOf(millis, count * 2);
            offsets = Arrays.copyOf(offsets, count * 2);
            lengths = Arrays.copyOf(lengths, count * 2);
        }
        millis[count] = at;
        newest = Math.max(newest, at);
        return count++;
    }

    /** Slots in the order first put. */
    int size() {
        return count;
    }

    long millis(int slot) {
        return millis[slot];
    }

    void clear() {
        count = 0;
        newest = NONE;
    }

    /** Puts the row at {@code at} (its bytes at {@code offset} in the arena); returns its slot. */
    int put(long at, int offset, int length) {
        int slot = slotFor(at);
        offsets[slot] = offset;
        lengths[slot] = length;
        return slot;
    }

    int offset(int slot) {
        return offsets[slot];
    }

    int length(int slot) {
        return lengths[slot];
    }
}
