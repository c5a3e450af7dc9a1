package dev.tspipe.processor.store;

import java.util.Arrays;

/**
 * Slots by timestamp, in the order first put, for the buffers of one series ({@link SeriesBuffer}): the timestamps
 * of {@link TimedRows} and {@link TimedValues}, which keep what each slot holds. Few, mostly in time order: an array of
 * primitives, and a lookup past the newest timestamp put is answered without a scan. Only the stream thread touches it.
 */
abstract class TimedSlots {

    private static final long NONE = Long.MIN_VALUE;

    private long[] millis = new long[4];
    private int count;
    private long newest = NONE;

    /** The slot of {@code at}, or -1. */
    final int slotOf(long at) {
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
    final int slotFor(long at) {
        int slot = slotOf(at);
        if (slot >= 0) {
            return slot;
        }
        if (count == millis.length) {
            millis = Arrays.copyOf(millis, count * 2);
            grow(count * 2);
        }
        millis[count] = at;
        newest = Math.max(newest, at);
        return count++;
    }

    /** Makes room for {@code capacity} slots in what the subclass keeps per slot. */
    abstract void grow(int capacity);

    /** Slots in the order first put. */
    final int size() {
        return count;
    }

    final long millis(int slot) {
        return millis[slot];
    }

    void clear() {
        count = 0;
        newest = NONE;
    }
}
