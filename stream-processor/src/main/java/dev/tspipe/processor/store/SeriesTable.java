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
    /**
     * Each slot's prefix, also in one array ({@code prefixes[prefixOffsets[i], + prefixLengths[i])}): a lookup compares
     * the row key with these bytes, without loading the entry and then its own prefix array (two cache misses per
     * reading in a catch-up of 10,000 series, where the entries outgrow the caches: docs/storage.md, "The write path").
     */
    private byte[] prefixes = new byte[16 * 1024];
    private int prefixesLength;
    private int[] prefixOffsets = new int[1024];
    private int[] prefixLengths = new int[1024];
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
            if (hashes[i] == hash && prefixLengths[i] == length
                    && Arrays.equals(prefixes, prefixOffsets[i], prefixOffsets[i] + length, rowKey, 0, length)) {
                return (T) entry;
            }
        }
    }

    /** Adds {@code buffer}, whose series has none yet. */
    void add(T buffer) {
        if (2 * (size + 1) > slots.length) {
            grow();
        }
        byte[] prefix = buffer.prefix;
        if (prefixesLength + prefix.length > prefixes.length) {
            prefixes = Arrays.copyOf(prefixes, Math.max(prefixes.length * 2, prefixesLength + prefix.length));
        }
        System.arraycopy(prefix, 0, prefixes, prefixesLength, prefix.length);
        insert(buffer, hash(prefix, prefix.length), prefixesLength, prefix.length);
        prefixesLength += prefix.length;
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
            prefixOffsets = new int[1024];
            prefixLengths = new int[1024];
            prefixes = new byte[16 * 1024];
        } else {
            Arrays.fill(slots, null);
        }
        prefixesLength = 0;
        size = 0;
    }

    private void grow() {
        Entry[] old = slots;
        int[] oldHashes = hashes;
        int[] oldOffsets = prefixOffsets;
        int[] oldLengths = prefixLengths;
        slots = new Entry[old.length * 2];
        hashes = new int[old.length * 2];
        prefixOffsets = new int[old.length * 2];
        prefixLengths = new int[old.length * 2];
        for (int i = 0; i < old.length; i++) {
            if (old[i] != null) {
                insert(old[i], oldHashes[i], oldOffsets[i], oldLengths[i]);
            }
        }
    }

    private void insert(Entry buffer, int hash, int prefixOffset, int prefixLength) {
        int mask = slots.length - 1;
        int i = hash & mask;
        while (slots[i] != null) {
            i = (i + 1) & mask;
        }
        slots[i] = buffer;
        hashes[i] = hash;
        prefixOffsets[i] = prefixOffset;
        prefixLengths[i] = prefixLength;
    }

    private static int hash(byte[] bytes, int length) {
        return (int) KeyHash.of(bytes, length);
    }
}
