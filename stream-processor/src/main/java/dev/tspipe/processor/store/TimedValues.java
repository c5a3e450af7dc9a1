package dev.tspipe.processor.store;

import java.util.Arrays;

/**
 * Values by timestamp in the order they were first put, for the parked buckets of one series ({@link SeriesBuffer}):
 * few, written when a bucket is replaced by the next (once a minute at most per series and resolution).
 */
final class TimedValues extends TimedSlots {

    private byte[][] values = new byte[4][];

    /** The value at {@code at}, or null (never put, or taken). */
    byte[] get(long at) {
        int slot = slotOf(at);
        return slot < 0 ? null : values[slot];
    }

    /** Puts {@code value} at {@code at}: in the slot {@code at} already has (a correction keeps its place), else at the end. */
    void put(long at, byte[] value) {
        int slot = slotFor(at);    // first: it may grow (replace) the array
        values[slot] = value;
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

    /** The value of a slot; null for a taken one. */
    byte[] value(int slot) {
        return values[slot];
    }

    @Override
    void grow(int capacity) {
        values = Arrays.copyOf(values, capacity);
    }

    @Override
    void clear() {
        Arrays.fill(values, 0, size(), null);
        super.clear();
    }
}
