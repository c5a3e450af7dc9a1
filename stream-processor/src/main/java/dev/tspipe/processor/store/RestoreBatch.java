package dev.tspipe.processor.store;

import java.util.Arrays;

/**
 * The rows a restore has collected and not yet written (docs/storage.md, "Restore"): kept across Kafka Streams'
 * restore batches until the next commit report or until they hold {@link #MAX_BYTES}, then written as one RocksDB
 * write batch, in key order per column family, only the last write of each key.
 *
 * <ul>
 *   <li><b>Key order.</b> RocksDB's memtable is a skip list whose insert remembers where the previous key went (a
 *       "splice"): a key just after the previous one is found in a few steps, any other key by a search from the
 *       top, a cache miss per level. Changelog records come series by series, each with its rows oldest first, that
 *       is in descending key order (reversed timestamps), so written as they come nearly every insert is a full
 *       search; in key order each one starts where the last one ended.</li>
 *   <li><b>The last write of each key.</b> Hourly and daily buckets, latest values and the current 1-minute bucket
 *       are written again by every commit that changed them; of the writes of one key in a batch only the last one
 *       counts, so the others are left out (the sort is stable, so "last" is the order they came in).</li>
 *   <li><b>One batch, built here.</b> The batch is handed to RocksDB as its serialized form
 *       ({@code WriteBatch(byte[])}: one JNI call instead of one per row, and no copy of each row into a Java array
 *       first), in RocksDB's own batch format (the one its write-ahead log stores: {@code db/write_batch.cc}),
 *       checked byte for byte against RocksDB's by {@code RestoreBatchTest}.</li>
 * </ul>
 */
final class RestoreBatch {

    /** Key and value bytes held before the rows are written even without a commit report: bounds the heap used. */
    static final long MAX_BYTES = 8L * 1024 * 1024;
    /** RocksDB's record types (db/dbformat.h): in the default column family, and in another one (then its id follows). */
    private static final int TYPE_DELETION = 0x0;
    private static final int TYPE_VALUE = 0x1;
    private static final int TYPE_COLUMN_FAMILY_DELETION = 0x4;
    private static final int TYPE_COLUMN_FAMILY_VALUE = 0x5;
    /** A batch starts with its sequence number (8 bytes, set by RocksDB when written) and its count of records (4). */
    private static final int HEADER_BYTES = 12;

    private Entry[] entries = new Entry[1024];
    private int size;
    private long bytes;
    private long superseded;

    /** One write: a put of {@code length} bytes of {@code source} from {@code offset}, or a delete when {@code source} is null. */
    private record Entry(Partition partition, byte[] key, byte[] source, int offset, int length)
            implements Comparable<Entry> {
        @Override
        public int compareTo(Entry other) {
            if (partition != other.partition) {
                return Integer.compare(partition.familyId, other.partition.familyId);
            }
            return Arrays.compareUnsigned(key, other.key);
        }

        boolean sameKey(Entry other) {
            return partition == other.partition && Arrays.equals(key, other.key);
        }
    }

    /** Puts {@code length} bytes of {@code source} from {@code offset} (not copied: the array must not change) under {@code key}. */
    void put(Partition partition, byte[] key, byte[] source, int offset, int length) {
        add(new Entry(partition, key, source, offset, length));
        bytes += key.length + length;
    }

    void delete(Partition partition, byte[] key) {
        add(new Entry(partition, key, null, 0, 0));
        bytes += key.length;
    }

    private void add(Entry entry) {
        if (size == entries.length) {
            entries = Arrays.copyOf(entries, size * 2);
        }
        entries[size++] = entry;
    }

    boolean isEmpty() {
        return size == 0;
    }

    boolean isFull() {
        return bytes >= MAX_BYTES;
    }

    /** Rows left out so far because a later row of the same key came in the same batch (all batches of this object). */
    long superseded() {
        return superseded;
    }

    /**
     * The rows as a serialized RocksDB write batch ({@code new WriteBatch(bytes)}): in key order per column family,
     * the last write of each key only.
     */
    byte[] serialize() {
        // Stable: of two writes of one key, the later stays after the earlier.
        Arrays.sort(entries, 0, size);
        int count = 0;
        long length = HEADER_BYTES;
        for (int i = 0; i < size; i++) {
            Entry entry = entries[i];
            if (i + 1 < size && entries[i + 1].sameKey(entry)) {
                // Left out: the next write of the key replaces it.
                entries[i] = null;
                superseded++;
                continue;
            }
            int family = entry.partition.familyId;
            length += 1 + (family == 0 ? 0 : varintLength(family)) + varintLength(entry.key.length) + entry.key.length
                    + (entry.source == null ? 0 : varintLength(entry.length) + entry.length);
            count++;
        }
        if (length > Integer.MAX_VALUE - 16) {
            throw new IllegalStateException("a restore batch of " + length + " bytes is too large for one array");
        }
        byte[] out = new byte[(int) length];
        // The sequence number (8 bytes) stays zero: RocksDB sets it when it writes the batch. The count is fixed32, little-endian.
        for (int i = 0; i < 4; i++) {
            out[8 + i] = (byte) (count >>> (8 * i));
        }
        int position = HEADER_BYTES;
        for (int i = 0; i < size; i++) {
            Entry entry = entries[i];
            if (entry == null) {
                continue;
            }
            int family = entry.partition.familyId;
            if (entry.source == null) {
                out[position++] = (byte) (family == 0 ? TYPE_DELETION : TYPE_COLUMN_FAMILY_DELETION);
            } else {
                out[position++] = (byte) (family == 0 ? TYPE_VALUE : TYPE_COLUMN_FAMILY_VALUE);
            }
            if (family != 0) {
                position = putVarint(out, position, family);
            }
            position = putVarint(out, position, entry.key.length);
            System.arraycopy(entry.key, 0, out, position, entry.key.length);
            position += entry.key.length;
            if (entry.source != null) {
                position = putVarint(out, position, entry.length);
                System.arraycopy(entry.source, entry.offset, out, position, entry.length);
                position += entry.length;
            }
        }
        return out;
    }

    /** RocksDB's varint32: 7 bits at a time, lowest first, the high bit set on all but the last byte. */
    private static int putVarint(byte[] out, int position, int value) {
        int rest = value;
        while ((rest & ~0x7F) != 0) {
            out[position++] = (byte) ((rest & 0x7F) | 0x80);
            rest >>>= 7;
        }
        out[position++] = (byte) rest;
        return position;
    }

    private static int varintLength(int value) {
        int length = 1;
        for (int rest = value >>> 7; rest != 0; rest >>>= 7) {
            length++;
        }
        return length;
    }

    /** Rows collected (superseded ones included). */
    int size() {
        return size;
    }

    /** Forgets the rows collected after the first {@code keep}: those of a restore batch that failed half-way. */
    void truncate(int keep) {
        for (int i = keep; i < size; i++) {
            Entry entry = entries[i];
            if (entry != null) {
                // (Null: left out by serialize, which clears the batch afterwards anyway.)
                bytes -= entry.key.length + entry.length;
                entries[i] = null;
            }
        }
        size = Math.min(size, keep);
    }

    void clear() {
        truncate(0);
        bytes = 0;
    }
}
