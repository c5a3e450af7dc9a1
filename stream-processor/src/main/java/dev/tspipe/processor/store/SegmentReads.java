package dev.tspipe.processor.store;

import dev.tspipe.model.blocks.BlockReader;
import dev.tspipe.model.keys.MalformedKeyException;
import dev.tspipe.model.keys.RowKey;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.Lock;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.errors.ProcessorStateException;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.rocksdb.RocksDBException;

/**
 * The reads of a task's tables, as Kafka Streams' {@code AbstractRocksDBSegmentedBytesStore} reads its segments: a
 * point read from the segment of the key's timestamp, and ranges that merge one iterator per segment
 * ({@link SegmentIterator}), opened only on the segments that overlap the range's time span when both bounds are keys
 * of one series. What they read is what the last applied write left, without the rows expired by its stream time.
 * Keeps the open iterators, so that a dropped segment and the store's close release theirs.
 *
 * <p>Thread rule: any thread; every read holds {@link Segments}' read lock while it touches RocksDB, iterators
 * included. {@link #segmentDropped} and {@link #closeAll} are called with the write lock held.
 */
final class SegmentReads {

    /** Decodes the blocks of a thread's point reads of raw rows. */
    private static final ThreadLocal<BlockReader> BLOCK_READER = ThreadLocal.withInitial(BlockReader::new);

    private final SeriesStoreSpec spec;
    private final SeriesDatabase database;
    private final Segments segments;
    private final StreamTime time;
    private final Set<SegmentIterator> iterators = ConcurrentHashMap.newKeySet();

    SegmentReads(SeriesStoreSpec spec, SeriesDatabase database, Segments segments, StreamTime time) {
        this.spec = spec;
        this.database = database;
        this.segments = segments;
        this.time = time;
    }

    /**
     * The stored value of {@code key} in {@code table} as of the last applied write, or null (also when expired).
     *
     * @throws IllegalArgumentException if a time-keyed table's key does not end with a 19-digit reversed timestamp
     */
    byte[] get(Table table, byte[] key) {
        long millis = table.timeOf(key);
        if (time.isExpiredForReaders(table, millis)) {
            return null;
        }
        if (table.step() != null) {
            long sealed = time.visibleSealed();
            if (sealed != StreamTime.NONE && millis + table.step().sizeMillis() <= sealed) {
                return storedGet(table, key);
            }
            // Only `key` itself is in [key, key + 0x00).
            try (KeyValueIterator<Bytes, byte[]> bucket = rollups(table, key, Arrays.copyOf(key, key.length + 1), false)) {
                return bucket.hasNext() ? bucket.next().value : null;
            }
        }
        if (table != Table.RAW) {
            return storedGet(table, key);
        }
        // A raw row is a reading of the block of its time (docs/storage.md, "Blocks").
        long start = BlockRows.blockStart(millis, spec.rawBlockMs());
        byte[] block = storedGet(Table.RAW, RowKey.withTimestamp(RowKey.seriesPrefixOf(key), start));
        if (block == null) {
            return null;
        }
        BlockReader reader = BLOCK_READER.get().read(block, start);
        int index = reader.indexOf(millis);
        return index < 0 ? null : reader.rawRow(index);
    }

    /**
     * The value the segment of {@code key}'s time stores under it, or null; expired or not (a rollup table: the counters
     * sealed so far, {@link RollupSeal}; the raw table: a block, its chunks one after the other).
     */
    byte[] storedGet(Table table, byte[] key) {
        Lock lock = segments.readLock();
        lock.lock();
        try {
            database.validateOpen();
            Segment segment = segments.get(table, table.timeOf(key));
            return segment == null ? null : database.rocksDb().get(segment.handle, key);
        } catch (RocksDBException e) {
            throw new ProcessorStateException("cannot read from the series store in " + database.dir(), e);
        } finally {
            lock.unlock();
        }
    }

    /**
     * The rows of {@code table} with {@code lower <= key < upperExclusive} (null: unbounded), in unsigned byte order or
     * its reverse, as of the last applied write and without expired rows. The iterator must be closed.
     */
    KeyValueIterator<Bytes, byte[]> range(Table table, byte[] lower, byte[] upperExclusive, boolean reverse) {
        if (table == Table.RAW) {
            long cutoff = time.readerCutoff(Table.RAW);
            return BlockRows.of((from, to, backwards) -> stored(Table.RAW, from, to, backwards, true), this::probe, lower,
                    upperExclusive, reverse, spec.rawBlockMs(), cutoff);
        }
        if (table.step() != null) {
            return rollups(table, lower, upperExclusive, reverse);
        }
        return stored(table, lower, upperExclusive, reverse, true);
    }

    /**
     * A rollup table's rows ({@link RollupRows}): the buckets stored before the seal, and those computed from the raw
     * blocks' readings since (blocks read whether or not the raw table still shows them: a bucket outlives its readings).
     */
    private KeyValueIterator<Bytes, byte[]> rollups(Table table, byte[] lower, byte[] upperExclusive, boolean reverse) {
        long sealed = time.visibleSealed();
        KeyValueIterator<Bytes, byte[]> stored = stored(table, lower, upperExclusive, reverse, true);
        try {
            BlockBuckets computed = BlockBuckets.of((from, to, backwards) -> stored(Table.RAW, from, to, backwards, false), lower,
                    upperExclusive, reverse, spec.rawBlockMs(), table.step().sizeMillis(), time.readerCutoff(table), sealed,
                    key -> storedGet(table, key));
            return new RollupRows(stored, computed, reverse);
        } catch (RuntimeException e) {
            stored.close();
            throw e;
        }
    }

    /**
     * The raw blocks that start in {@code [from, to)} (from NONE: every block before {@code to}), of every series, in
     * key order, expired for readers or not: what {@link RollupSeal} seals.
     */
    KeyValueIterator<Bytes, byte[]> rawBlocks(long from, long to) {
        Lock lock = segments.readLock();
        lock.lock();
        try {
            database.validateOpen();
            List<Segment> overlapping = new ArrayList<>(from == StreamTime.NONE
                    ? segments.overlapping(Table.RAW, Long.MIN_VALUE / 2, to - 1) : segments.overlapping(Table.RAW, from, to - 1));
            SegmentIterator iterator = new SegmentIterator(this, time, Table.RAW, database.rocksDb(), overlapping, null, null,
                    false, false);
            iterators.add(iterator);
            return iterator;
        } finally {
            lock.unlock();
        }
    }

    /**
     * The raw table's blocks from a range's upper bound {@code lower} on, for the one whose span may hold the bound
     * ({@link BlockRows}): when the bound is a row key (or one and a 0x00 byte), only up to that key's block, which
     * is in one segment: the block looked for is that one or none.
     */
    private KeyValueIterator<Bytes, byte[]> probe(byte[] lower, byte[] upperExclusive, boolean reverse) {
        if (upperExclusive == null && lower != null && !reverse) {
            byte[] blockKey = blockKeyOf(lower);
            if (blockKey != null) {
                // Just past the block's key: every key of the series from `lower` up to the block itself.
                return stored(Table.RAW, lower, Arrays.copyOf(blockKey, blockKey.length + 1), false, true);
            }
        }
        return stored(Table.RAW, lower, upperExclusive, reverse, true);
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
     * The rows as stored in {@code table}'s segments (for the raw table: its blocks), without those expired for
     * readers if {@code expire}.
     */
    private KeyValueIterator<Bytes, byte[]> stored(Table table, byte[] lower, byte[] upperExclusive, boolean reverse,
                                                   boolean expire) {
        Lock lock = segments.readLock();
        lock.lock();
        try {
            database.validateOpen();
            List<Segment> overlapping = new ArrayList<>();
            if (lower == null || upperExclusive == null || Arrays.compareUnsigned(lower, upperExclusive) < 0) {
                long[] span = table.timeKeyed() ? timeSpan(lower, upperExclusive) : null;
                overlapping.addAll(span == null ? segments.of(table) : segments.overlapping(table, span[0], span[1]));
            }
            SegmentIterator iterator = new SegmentIterator(this, time, table, database.rocksDb(), overlapping, lower,
                    upperExclusive, reverse, expire);
            iterators.add(iterator);
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

    /** The lock an iterator holds while it reads. */
    Lock readLock() {
        return segments.readLock();
    }

    void iteratorClosed(SegmentIterator iterator) {
        iterators.remove(iterator);
    }

    /** {@code segment} is about to be dropped (the write lock held): the iterators reading it let go of it. */
    void segmentDropped(Segment segment) {
        for (SegmentIterator iterator : iterators) {
            iterator.segmentDropped(segment);
        }
    }

    /** The store closes (the write lock held): every open iterator is closed, and later use of one fails. */
    void closeAll() {
        for (SegmentIterator iterator : iterators) {
            iterator.closeWithStore();
        }
        iterators.clear();
    }
}
