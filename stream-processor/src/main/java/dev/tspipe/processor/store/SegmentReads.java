package dev.tspipe.processor.store;

import dev.tspipe.model.blocks.BlockReader;
import dev.tspipe.model.keys.MalformedKeyException;
import dev.tspipe.model.keys.RowKey;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.locks.Lock;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.errors.ProcessorStateException;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.rocksdb.ReadOptions;
import org.rocksdb.RocksDBException;

/**
 * The reads of a task's tables, as Kafka Streams' {@code AbstractRocksDBSegmentedBytesStore} reads its segments: a
 * point read from the segment of the key's timestamp, and ranges that merge one iterator per segment
 * ({@link SegmentIterator}), opened only on the segments that overlap the range's time span when both bounds are keys
 * of one series. A reader's read sees one applied write whole ({@link CommitView}, docs/storage.md, "What a read
 * sees"): every iterator and point read of it at that write's snapshot, in the segments that write left, without the
 * rows its stream time expired, a rollup split into stored and computed buckets at its seal. The writing thread reads
 * the database as it is ({@link StoreRead#live}).
 *
 * <p>Thread rule: any thread; every read holds {@link Segments}' read lock while it touches RocksDB, iterators
 * included. {@link #closeAll} is called with the write lock held.
 */
final class SegmentReads {

    /** Decodes the blocks of a thread's point reads of raw rows. */
    private static final ThreadLocal<BlockReader> BLOCK_READER = ThreadLocal.withInitial(BlockReader::new);

    private final SeriesStoreSpec spec;
    private final SeriesDatabase database;
    private final Segments segments;
    private final StreamTime time;
    private final CommitViews views;

    SegmentReads(SeriesStoreSpec spec, SeriesDatabase database, Segments segments, StreamTime time, CommitViews views) {
        this.spec = spec;
        this.database = database;
        this.segments = segments;
        this.time = time;
        this.views = views;
    }

    /**
     * The stored value of {@code key} in {@code table} as of the last applied write, or null (also when expired).
     *
     * @throws IllegalArgumentException if a time-keyed table's key does not end with a 19-digit reversed timestamp
     */
    byte[] get(Table table, byte[] key) {
        try (StoreRead read = views.open()) {
            return get(read, table, key);
        }
    }

    /** {@link #get}, on the thread that writes the store: the last applied write, without a view (no other thread writes). */
    byte[] getOnWritingThread(Table table, byte[] key) {
        return get(StoreRead.live(segments.live(), time), table, key);
    }

    private byte[] get(StoreRead read, Table table, byte[] key) {
        long millis = table.timeOf(key);
        if (read.time.isExpired(table, millis)) {
            return null;
        }
        if (table.step() != null) {
            long sealed = read.time.sealed();
            if (sealed != StreamTime.NONE && millis + table.step().sizeMillis() <= sealed) {
                return storedGet(read, table, key);
            }
            // Only `key` itself is in [key, key + 0x00).
            try (KeyValueIterator<Bytes, byte[]> bucket = rollups(read, table, key, Arrays.copyOf(key, key.length + 1), false)) {
                return bucket.hasNext() ? bucket.next().value : null;
            }
        }
        if (table != Table.RAW) {
            return storedGet(read, table, key);
        }
        // A raw row is a reading of the block of its time (docs/storage.md, "Blocks").
        long start = BlockRows.blockStart(millis, spec.rawBlockMs());
        byte[] block = storedGet(read, Table.RAW, RowKey.withTimestamp(RowKey.seriesPrefixOf(key), start));
        if (block == null) {
            return null;
        }
        BlockReader reader = BLOCK_READER.get().read(block, start);
        int index = reader.indexOf(millis);
        return index < 0 ? null : reader.rawRow(index);
    }

    /**
     * The value the segment of {@code key}'s time stores under it, or null; expired or not (a rollup table: the counters
     * sealed so far, {@link RollupSeal}; the raw table: a block, its chunks one after the other). The writing thread.
     */
    byte[] storedGet(Table table, byte[] key) {
        return storedGet(StoreRead.live(segments.live(), time), table, key);
    }

    private byte[] storedGet(StoreRead read, Table table, byte[] key) {
        Lock lock = segments.readLock();
        lock.lock();
        try {
            database.validateOpen();
            read.checkNotRevoked();
            Segment segment = read.segments.get(table, table.timeOf(key));
            if (segment == null) {
                return null;
            }
            ReadOptions options = read.pointReads();
            return options == null ? database.rocksDb().get(segment.handle, key) : database.rocksDb().get(segment.handle, options, key);
        } catch (RocksDBException e) {
            throw new ProcessorStateException("cannot read from the series store in " + database.dir(), e);
        } finally {
            lock.unlock();
        }
    }

    /**
     * The rows of {@code table} with {@code lower <= key < upperExclusive} (null: unbounded), in unsigned byte order or
     * its reverse, as of the last applied write and without expired rows. The iterator must be closed: until then, it
     * holds the write's view.
     */
    KeyValueIterator<Bytes, byte[]> range(Table table, byte[] lower, byte[] upperExclusive, boolean reverse) {
        StoreRead read = views.open();
        try {
            return new ReadIterator(range(read, table, lower, upperExclusive, reverse), read);
        } catch (RuntimeException e) {
            read.close();
            throw e;
        }
    }

    private KeyValueIterator<Bytes, byte[]> range(StoreRead read, Table table, byte[] lower, byte[] upperExclusive,
                                                  boolean reverse) {
        if (table == Table.RAW) {
            long cutoff = read.time.cutoff(Table.RAW);
            return BlockRows.of((from, to, backwards) -> stored(read, Table.RAW, from, to, backwards, true),
                    (from, to, backwards) -> probe(read, from, to, backwards), lower, upperExclusive, reverse,
                    spec.rawBlockMs(), cutoff);
        }
        if (table.step() != null) {
            return rollups(read, table, lower, upperExclusive, reverse);
        }
        return stored(read, table, lower, upperExclusive, reverse, true);
    }

    /**
     * A rollup table's rows ({@link RollupRows}): the buckets stored before the read's seal, and those computed from the
     * raw blocks' readings since (blocks read whether or not the raw table still shows them: a bucket outlives its
     * readings), both at the read's snapshot.
     */
    private KeyValueIterator<Bytes, byte[]> rollups(StoreRead read, Table table, byte[] lower, byte[] upperExclusive,
                                                    boolean reverse) {
        long sealed = read.time.sealed();
        KeyValueIterator<Bytes, byte[]> stored = stored(read, table, lower, upperExclusive, reverse, true);
        try {
            BlockBuckets computed = BlockBuckets.of((from, to, backwards) -> stored(read, Table.RAW, from, to, backwards, false),
                    lower, upperExclusive, reverse, spec.rawBlockMs(), table.step().sizeMillis(), read.time.cutoff(table),
                    sealed, key -> storedGet(read, table, key));
            return new RollupRows(stored, computed, reverse);
        } catch (RuntimeException e) {
            stored.close();
            throw e;
        }
    }

    /**
     * The raw blocks that start in {@code [from, to)} (from NONE: every block before {@code to}), of every series, in
     * key order, expired for readers or not: what {@link RollupSeal} seals. The writing thread.
     */
    KeyValueIterator<Bytes, byte[]> rawBlocks(long from, long to) {
        Lock lock = segments.readLock();
        lock.lock();
        try {
            database.validateOpen();
            List<Segment> overlapping = new ArrayList<>(from == StreamTime.NONE
                    ? segments.overlapping(Table.RAW, Long.MIN_VALUE / 2, to - 1) : segments.overlapping(Table.RAW, from, to - 1));
            return new SegmentIterator(StoreRead.live(segments.live(), time), lock, Table.RAW, database.rocksDb(),
                    overlapping, null, null, false, false);
        } finally {
            lock.unlock();
        }
    }

    /**
     * The raw table's blocks from a range's upper bound {@code lower} on, for the one whose span may hold the bound
     * ({@link BlockRows}): when the bound is a row key (or one and a 0x00 byte), only up to that key's block, which
     * is in one segment: the block looked for is that one or none.
     */
    private KeyValueIterator<Bytes, byte[]> probe(StoreRead read, byte[] lower, byte[] upperExclusive, boolean reverse) {
        if (upperExclusive == null && lower != null && !reverse) {
            byte[] blockKey = blockKeyOf(lower);
            if (blockKey != null) {
                // Just past the block's key: every key of the series from `lower` up to the block itself.
                return stored(read, Table.RAW, lower, Arrays.copyOf(blockKey, blockKey.length + 1), false, true);
            }
        }
        return stored(read, Table.RAW, lower, upperExclusive, reverse, true);
    }

    /**
     * The key of the block that holds the row key {@code key} (or the key just after it, a row key and a 0x00 byte, as
     * {@code RowKey.seriesRange} bounds a range), or null when it is neither: then no probe is narrowed.
     */
    private byte[] blockKeyOf(byte[] key) {
        int length = key.length > 0 && key[key.length - 1] == 0 ? key.length - 1 : key.length;
        if (length <= RowKey.TIMESTAMP_DIGITS) {
            return null;
        }
        try {
            byte[] rowKey = Arrays.copyOf(key, length);
            long millis = RowKey.timestampOf(rowKey);
            return RowKey.withTimestamp(Arrays.copyOf(rowKey, length - RowKey.TIMESTAMP_DIGITS),
                    BlockRows.blockStart(millis, spec.rawBlockMs()));
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    /**
     * The rows as stored in {@code table}'s segments of the read (for the raw table: its blocks), without those expired
     * for the read if {@code expire}.
     */
    private KeyValueIterator<Bytes, byte[]> stored(StoreRead read, Table table, byte[] lower, byte[] upperExclusive,
                                                   boolean reverse, boolean expire) {
        Lock lock = segments.readLock();
        lock.lock();
        try {
            database.validateOpen();
            read.checkNotRevoked();
            List<Segment> overlapping = new ArrayList<>();
            if (lower == null || upperExclusive == null || Arrays.compareUnsigned(lower, upperExclusive) < 0) {
                long[] span = table.timeKeyed() ? timeSpan(lower, upperExclusive) : null;
                SegmentSet set = read.segments;
                overlapping.addAll(span == null ? set.of(table) : set.overlapping(table, span[0], span[1]));
            }
            SegmentIterator iterator = new SegmentIterator(read, lock, table, database.rocksDb(), overlapping, lower,
                    upperExclusive, reverse, expire);
            read.opened(iterator);
            return iterator;
        } finally {
            lock.unlock();
        }
    }

    /**
     * The oldest and newest timestamp a key in {@code [lower, upperExclusive)} can have, when both bounds are keys of one
     * series (the upper one possibly followed by one more byte, as {@code RowKey.seriesRange} makes it); otherwise null.
     */
    static long[] timeSpan(byte[] lower, byte[] upperExclusive) {
        if (lower == null || upperExclusive == null) {
            return null;
        }
        // A key of the series is as long as `lower`; one below a longer bound is at most the bound's first bytes.
        byte[] upper = upperExclusive.length > lower.length ? Arrays.copyOf(upperExclusive, lower.length) : upperExclusive;
        if (upper.length != lower.length || lower.length <= RowKey.TIMESTAMP_DIGITS
                || !Arrays.equals(lower, 0, lower.length - RowKey.TIMESTAMP_DIGITS, upper, 0, upper.length - RowKey.TIMESTAMP_DIGITS)) {
            return null;
        }
        try {
            // Reversed timestamps: the smaller key is the newer time.
            return new long[] {RowKey.timestampOf(upper), RowKey.timestampOf(lower)};
        } catch (MalformedKeyException e) {
            return null;
        }
    }

    /** The store closes (the write lock held): every open read is revoked, its next use fails; every snapshot goes. */
    void closeAll() {
        views.closeAll();
    }

    /**
     * A reader's range: the rows of its iterators, and its read closed with it (the view released, so that a newer
     * commit's seal may drop the segments it listed).
     */
    static final class ReadIterator implements KeyValueIterator<Bytes, byte[]> {
        private final KeyValueIterator<Bytes, byte[]> rows;
        private final StoreRead read;

        ReadIterator(KeyValueIterator<Bytes, byte[]> rows, StoreRead read) {
            this.rows = rows;
            this.read = read;
        }

        @Override
        public boolean hasNext() {
            return rows.hasNext();
        }

        @Override
        public KeyValue<Bytes, byte[]> next() {
            return rows.next();
        }

        @Override
        public Bytes peekNextKey() {
            return rows.peekNextKey();
        }

        /** How many segments a raw range reads (tests: a range of one series reads only those that overlap it), or -1. */
        int segmentsRead() {
            return rows instanceof BlockRows blocks ? blocks.segmentsRead() : -1;
        }

        @Override
        public void close() {
            try {
                rows.close();
            } finally {
                read.close();
            }
        }
    }
}
