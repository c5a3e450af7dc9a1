package dev.tspipe.processor.store;

import java.util.Arrays;

/**
 * Values by timestamp in the order they were first put, for the buffers of one series ({@link SeriesBuffer}): its raw
 * rows and its parked buckets since the last flush. Few, mostly in time order: parallel arrays, no boxing, and a
 * lookup past the newest timestamp put is answered without a scan. Only the stream thread touches it.
 */
final class TimedValues {

    private static final long NONE = Long.MIN_VALUE;

    private long[] millis = new long[4];
    private byte[][] values = new byte[4][];
    private int count;
    private long newest = NONE;

    /** The value at {@code at}, or null (never put, or taken). */
    byte[] get(long at) {
        int slot = slotOf(at);
        return slot < 0 ? null : values[slot];
    }

    /** Puts {@code value} at {@code at}: in the slot {@code at} already has (a correction keeps its place), else at the end. */
    void put(long at, byte[] value) {
        int slot = slotOf(at);
        if (slot >= 0) {
            values[slot] = value;
            return;
        }
        if (count == millis.length) {
            millis = Arrays.copyOf(millis, count * 2);
            values = Arrays.copyOf(values, count * 2);
        }
        millis[count] = at;
        values[count] = value;
        count++;
        newest = Math.max(newest, at);
    }

    /** The value at {@code at}, removed (its slot stays, empty), or null. */
    byte[] take(long at) {
        int slot = slotOf(at);
        if (slot < 0) {
            return null;
        }
        byte[] value = values[slot];
        values[slot] = null;
        return value;
    }

    /** Slots in the order first put; {@link #value} is null for a taken one. */
    int size() {
        return count;
    }

    long millis(int slot) {
        return millis[slot];
    }

    byte[] value(int slot) {
        return values[slot];
    }

    void clear() {
        Arrays.fill(values, 0, count, null);
        count = 0;
        newest = NONE;
    }

    private int slotOf(long at) {
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
}
