package dev.tspipe.processor.store;

import dev.tspipe.model.keys.RowKey;
import java.util.Arrays;

/**
 * What a store knows per series ({@link SeriesBuffer}s of the write buffer, {@link RestoredLatest.Series} of a restore)
 * by series prefix, looked up straight from a row key (its bytes before the reversed timestamp): no copy of the prefix
 * and no wrapper object per reading, as a {@code HashMap<Bytes, SeriesBuffer>} needed. Open addressing with linear
 * probing over a power-of-two table, at most half full. One thread: the one that owns its owner.
 */
final class SeriesTable<T extends SeriesTable.Entry> {

    /** What the table holds: something keyed by its series prefix {@code device#metric#}. */
    abstract static class Entry {
        final byte[] prefix;

        Entry(byte[] prefix) {
            this.prefix = prefix;
        }
    }

    private Entry[] slots = new Entry[1024];
    private int[] hashes = new int[1024];
    private int size;

    /** The entry of the series of {@code rowKey}, or null. */
    T get(byte[] rowKey) {
        return get(rowKey, RowKey.seriesPrefixLength(rowKey));
    }

    /** The entry of the series whose prefix is {@code prefix}, or null. */
    T getByPrefix(byte[] prefix) {
        return get(prefix, prefix.length);
    }

    @SuppressWarnings("unchecked")
    private T get(byte[] rowKey, int length) {
        int hash = hash(rowKey, length);
        int mask = slots.length - 1;
        for (int i = hash & mask; ; i = (i + 1) & mask) {
            Entry entry = slots[i];
            if (entry == null) {
                return null;
            }
            if (hashes[i] == hash && Arrays.equals(entry.prefix, 0, entry.prefix.length, rowKey, 0, length)) {
                return (T) entry;
            }
        }
    }

    /** Adds {@code buffer}, whose series has none yet. */
    void add(T buffer) {
        if (2 * (size + 1) > slots.length) {
            grow();
        }
        insert(buffer, hash(buffer.prefix, buffer.prefix.length));
        size++;
    }

    int size() {
        return size;
    }

    boolean isEmpty() {
        return size == 0;
    }

    void clear() {
        if (slots.length > 1024) {
            slots = new Entry[1024];
            hashes = new int[1024];
        } else {
            Arrays.fill(slots, null);
        }
        size = 0;
    }

    private void grow() {
        Entry[] old = slots;
        int[] oldHashes = hashes;
        slots = new Entry[old.length * 2];
        hashes = new int[old.length * 2];
        for (int i = 0; i < old.length; i++) {
            if (old[i] != null) {
                insert(old[i], oldHashes[i]);
            }
        }
    }

    private void insert(Entry buffer, int hash) {
        int mask = slots.length - 1;
        int i = hash & mask;
        while (slots[i] != null) {
            i = (i + 1) & mask;
        }
        slots[i] = buffer;
        hashes[i] = hash;
    }

    /** FNV-1a over {@code bytes[0, length)}, its bits mixed so that the low ones vary (the table masks them). */
    private static int hash(byte[] bytes, int length) {
        int h = 0x811C9DC5;
        for (int i = 0; i < length; i++) {
            h = (h ^ bytes[i]) * 0x01000193;
        }
        return h ^ (h >>> 16);
    }
}
