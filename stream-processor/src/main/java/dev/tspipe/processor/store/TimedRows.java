package dev.tspipe.processor.store;

import java.util.Arrays;

/**
 * The raw rows one series buffered since the last flush ({@link SeriesBuffer}): per slot where the row's bytes are
 * in the store's {@link RowArena} (a correction replaces in place). Arrays of primitives only, so that buffering a row
 * writes no reference into this long-lived object.
 */
final class TimedRows extends TimedSlots {

    private int[] offsets = new int[4];
    private int[] lengths = new int[4];

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

    @Override
    void grow(int capacity) {
        offsets = Arrays.copyOf(offsets, capacity);
        lengths = Arrays.copyOf(lengths, capacity);
    }
}
