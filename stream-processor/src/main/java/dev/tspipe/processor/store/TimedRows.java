package dev.tspipe.processor.store;

import java.util.Arrays;

/**
 * The raw rows one series buffered since the last flush, or the buckets of one resolution it replaced
 * ({@link SeriesBuffer}): per slot where the row's bytes are in the store's {@link RowArena} (a correction, or a bucket
 * parked again, replaces in place), by timestamp in the order first put. Few, mostly in time order:
 * one array of primitives, so that buffering a row writes no reference into this long-lived object, and a lookup past
 * the newest timestamp put is answered without a scan. Only the stream thread touches it.
 */
final class TimedRows {

    private static final long NONE = Long.MIN_VALUE;

    /**
     * Per slot, two longs: the timestamp, then the offset (high 32 bits) and length (low 32 bits) of its bytes. One
     * array, so that a put touches one or two cache lines of this series, not one per array: with 10,000 series the
     * buffers do not stay in the caches, and each reading puts a raw row and, at 1-minute resolution, a bucket.
     */
    private long[] slots = new long[8];
    private int count;
    private long newest = NONE;

    /** The slot of {@code at}, or -1. */
    int slotOf(long at) {
        if (count == 0 || at > newest) {
            return -1;
        }
        for (int i = count - 1; i >= 0; i--) {
            if (slots[2 * i] == at) {
                return i;
            }
        }
        return -1;
    }

    /** Puts the row at {@code at} (its bytes at {@code offset} in the arena); returns its slot. */
    int put(long at, int offset, int length) {
        int slot = slotOf(at);
        if (slot < 0) {
            if (2 * count == slots.length) {
                slots = Arrays.copyOf(slots, slots.length * 2);
            }
            slot = count++;
            slots[2 * slot] = at;
            newest = Math.max(newest, at);
        }
        slots[2 * slot + 1] = ((long) offset << 32) | (length & 0xFFFF_FFFFL);
        return slot;
    }

    /** Slots in the order first put. */
    int size() {
        return count;
    }

    long millis(int slot) {
        return slots[2 * slot];
    }

    int offset(int slot) {
        return (int) (slots[2 * slot + 1] >>> 32);
    }

    int length(int slot) {
        return (int) slots[2 * slot + 1];
    }

    void clear() {
        count = 0;
        newest = NONE;
    }
}
