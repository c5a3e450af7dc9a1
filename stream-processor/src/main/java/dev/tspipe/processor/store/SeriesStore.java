package dev.tspipe.processor.store;

import java.io.File;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.locks.Lock;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.state.KeyValueIterator;

/**
 * The state of one task: raw rows, 1m/1h/1d buckets (computed from the raw blocks until sealed) and the latest
 * reading of every series of the task's Kafka partition, in one RocksDB database whose column families are the tables' segments (docs/storage.md). A facade over
 * one class per job, each with its own thread rule:
 *
 * <ul>
 *   <li>{@link SeriesDatabase}: the database, its options, column families and meta keys, its close;</li>
 *   <li>{@link Segments}: each table's segments, the segment of a write, the drop of expired ones, the lock;</li>
 *   <li>{@link StreamTime}: stream time, and what it expires for writers and for readers;</li>
 *   <li>{@link WriteBuffer}: {@link #ingest} into a buffer per series (duplicates, corrections);</li>
 *   <li>{@link CommitProtocol}: {@link #flush} to the changelogs and write batches, applied at {@link #committed};</li>
 *   <li>{@link RollupSeal}: within a flush, the raw blocks that stream time expired sealed into the rollup tables;</li>
 *   <li>{@link ChangelogRestore}: {@link #restore} from the changelogs;</li>
 *   <li>{@link SegmentReads}: {@link #get} and {@link #range}; {@link SizeEstimates}: RocksDB's estimates.</li>
 * </ul>
 *
 * <p>Thread rule: {@link #ingest} and {@link #flush}, the stream thread; {@link #restore}, the thread restoring the
 * task, and {@link #committed} the thread that owns the task (never two at once); reads and estimates, any thread.
 * What orders the jobs (restored rows written before the stream thread writes, a commit's batches after them) is here.
 */
public final class SeriesStore implements AutoCloseable {

    /**
     * What {@link #ingest} did with a reading: stored, stored in place of another value (a correction), a duplicate; or
     * refused because it is before the raw table's seal ({@link #sealedBefore}): its buckets are sealed into the rollup
     * tables, so that a reading there would be dropped by the next flush and yet become the series' latest.
     */
    public enum Outcome { STORED, CORRECTED, DUPLICATE, SEALED }

    /** Where {@link #flush} sends changelog records: to the changelog of {@code table}'s store. */
    @FunctionalInterface
    public interface Changelog {
        void send(Table table, byte[] key, byte[] value, long timestamp);
    }

    /** A device's share of a table: its key prefix ({@link KeyspaceActivity}), and RocksDB's estimates of its bytes and rows. */
    public record DeviceVolume(byte[] devicePrefix, long bytes, long rows) {
    }

    /** The subdirectory of the task directory that holds the database. */
    public static final String DIRECTORY = "series";

    private final SeriesStoreSpec spec;
    private final KeyspaceActivity keyspace = new KeyspaceActivity();
    private final List<Runnable> beforeFlush = new ArrayList<>();
    private final SeriesDatabase database;
    private final Segments segments;
    private final StreamTime time;
    private final CommitViews views;
    private final SegmentReads reads;
    private final SizeEstimates estimates;
    private final WriteBuffer writes;
    private final CommitProtocol commits;
    private final ChangelogRestore restore;

    private SeriesStore(SeriesStoreSpec spec, File dir) {
        this.spec = spec;
        database = SeriesDatabase.open(dir);
        segments = new Segments(spec, database);
        time = new StreamTime(spec, database.storedStreamTime(), database.storedSeal());
        views = new CommitViews(database, segments.readLock(), spec.maxReadHold());
        reads = new SegmentReads(spec, database, segments, time, views);
        estimates = new SizeEstimates(spec, database, segments);
        writes = new WriteBuffer(spec, reads, time);
        restore = new ChangelogRestore(database, segments, time, reads, this::afterWrite);
        commits = new CommitProtocol(spec, database, segments, time, reads, new RollupSeal(spec, time, reads), writes::released, () -> {
            writes.forgetSeriesIfMany();
            afterWrite();
        });
        try {
            afterWrite();
        } catch (RuntimeException e) {
            close(false);
            throw e;
        }
    }

    /** Opens (or creates) the store in {@code dir}. */
    public static SeriesStore open(SeriesStoreSpec spec, File dir) {
        return new SeriesStore(spec, dir);
    }

    /** Rows written by restores in this JVM so far (every table; a grouped changelog record holds many). */
    public static long rowsRestored() {
        return ChangelogRestore.rowsRestored();
    }

    /** Of {@link #rowsRestored()}, the rows not written because a later row of the same key came before they were. */
    public static long rowsSupersededInRestore() {
        return ChangelogRestore.rowsSuperseded();
    }

    /** What this task's keys went through in the last hour: rows and bytes written and read, per device and minute. */
    public KeyspaceActivity keyspace() {
        return keyspace;
    }

    public SeriesStoreSpec spec() {
        return spec;
    }

    /** The largest raw row timestamp written or restored, if any: the task's stream time (docs/design.md §5). */
    public OptionalLong streamTime() {
        long current = time.current();
        return current == StreamTime.NONE ? OptionalLong.empty() : OptionalLong.of(current);
    }

    /**
     * Stores one reading: its raw row under {@code rowKey} (its 1m/1h/1d buckets follow from it) and the series' latest reading; the
     * same row again is a no-op, another value at the same timestamp a correction ({@link WriteBuffer}); a reading before
     * the seal is refused ({@link Outcome#SEALED}). The caller has checked the reading against stream time. {@code row}: the raw row's canonical bytes; {@code value}: its value.
     */
    public Outcome ingest(byte[] rowKey, long epochMillis, byte[] row, double value) {
        beforeIngest();
        if (time.isSealed(epochMillis)) {
            return Outcome.SEALED;
        }
        return writes.ingest(rowKey, epochMillis, row, value);
    }

    /**
     * {@link #ingest}, for a reading of the series whose row-key prefix ({@code RowKey.seriesPrefixOf}) is
     * {@code seriesPrefix}: the readings of a batch's series entry, one after the other with the same prefix array,
     * find their series once and make no row key (unless a late one is compared with its stored row). The array is
     * the store's from now on (not to be changed); {@code row} is read during the call only.
     */
    public Outcome ingestInSeries(byte[] seriesPrefix, long epochMillis, byte[] row, double value) {
        beforeIngest();
        if (time.isSealed(epochMillis)) {
            return Outcome.SEALED;
        }
        return writes.ingestInSeries(seriesPrefix, epochMillis, row, value);
    }

    private void beforeIngest() {
        database.validateUsable();
        if (!restore.isIdle()) {
            restore.end();
        }
        if (commits.hasSent()) {
            commits.applyWithoutOffsets();
        }
    }

    /** {@link #streamTime()} without a box: {@link Long#MIN_VALUE} if there is none yet. */
    public long streamTimeOrMin() {
        return time.current(); // StreamTime.NONE is Long.MIN_VALUE
    }

    /** The time before which the raw readings are sealed into the rollup tables (the writers' seal), if any. */
    public OptionalLong sealedBefore() {
        long sealed = time.sealed();
        return sealed == StreamTime.NONE ? OptionalLong.empty() : OptionalLong.of(sealed);
    }

    /** Runs {@code action} on the stream thread at the start of every flush: for counters published once per commit. */
    public void beforeEachFlush(Runnable action) {
        beforeFlush.add(action);
    }

    /**
     * Sends everything ingested since the last flush to the changelogs (Kafka Streams calls this before it commits
     * the task's transaction, which then holds the records) and prepares its RocksDB write batches, applied once the
     * transaction is known to be committed ({@link #committed}).
     */
    public void flush(Changelog changelog) {
        beforeFlush.forEach(Runnable::run);
        database.validateUsable();
        restore.end();
        if (writes.isEmpty()) {
            return;
        }
        try {
            commits.flush(changelog, writes);
        } catch (RuntimeException e) {
            // What the buffers learned from this flush (their open blocks' chunks and tag sets) was not written: they
            // forget everything, and the task reads its input again from its last commit.
            writes.forget();
            throw e;
        }
        writes.flushed();
    }

    /**
     * Kafka Streams reports a commit of {@code table}'s store ({@code StateStore.commit}; {@link CommitProtocol#committed}).
     * Restored rows come from committed changelog records: written whatever the transaction did, and before the offsets.
     */
    public void committed(Table table, Long changelogOffset, boolean transactionOpen) {
        database.validateUsable();
        restore.write();
        if (transactionOpen && commits.hasSent()) {
            // The flushed writes are dropped, and what the buffers learned from them (their open blocks' chunks and
            // tag sets, their latest readings) with them: a chunk must never inherit the tag sets of one not written.
            writes.forget();
        }
        commits.committed(table, changelogOffset, transactionOpen);
    }

    /** The changelog offset of {@code table} that the stored data covers, or null if unknown (never committed). */
    public Long committedOffset(Table table) {
        return commits.committedOffset(table);
    }

    /** Bytes buffered since the last commit (Kafka Streams commits early above {@code statestore.uncommitted.max.bytes}). */
    public long uncommittedBytes() {
        return writes.uncommittedBytes();
    }

    /** Applies changelog records of {@code table}'s store, in their order; see {@link ChangelogRestore}. */
    public void restore(Table table, Collection<KeyValue<byte[], byte[]>> records) {
        database.validateUsable();
        writes.forget();
        commits.dropSent();
        restore.restore(table, records);
    }

    /**
     * After a write reached the database (a commit's batches, restored rows; and at the open): the segments its stream
     * time and seal expired leave the live set, reads see the write from now on ({@link CommitViews#publish}), the
     * expired segments no read holds any more are dropped, memtables balance.
     */
    private void afterWrite() {
        // Restored rows not yet written may be in a segment that stream time has expired: it goes after them.
        if (!restore.hasRows()) {
            segments.retireExpired(time, views.newestId());
        }
        views.publish(time.applied(), segments.live());
        segments.dropRetired(views);
        RocksDbMemory.balanceMemtables();
    }

    /** The stored value of {@code key} in {@code table} as of the last applied commit, or null ({@link SegmentReads#get}). */
    public byte[] get(Table table, byte[] key) {
        return reads.get(table, key);
    }

    /** The rows of {@code table} in {@code [lower, upperExclusive)}, to be closed ({@link SegmentReads#range}). */
    public KeyValueIterator<Bytes, byte[]> range(Table table, byte[] lower, byte[] upperExclusive, boolean reverse) {
        return reads.range(table, lower, upperExclusive, reverse);
    }

    /** Sum of RocksDB's key estimates over {@code table}'s segments ({@link SizeEstimates#approximateRows}). */
    public long approximateRows(Table table) {
        return estimates.approximateRows(table);
    }

    /** Per live segment of {@code table}, oldest first: span, estimated rows, bytes, compression. */
    public List<SegmentStatistics> segmentStatistics(Table table) {
        return estimates.segmentStatistics(table);
    }

    /** The devices with a latest reading, and RocksDB's estimates of their bytes and rows in {@code table}. */
    public List<DeviceVolume> deviceVolumes(Table table) {
        return estimates.deviceVolumes(table);
    }

    public boolean isOpen() {
        return database.isOpen();
    }

    /** Reads open now (tests). */
    int openReads() {
        return views.openReads();
    }

    /** Expired segments that wait for the reads that list them to close before they are dropped (tests). */
    int segmentsWaitingForReads() {
        return segments.retiredCount();
    }

    /** The live segments of {@code table}, oldest first (tests). */
    List<Segment> segmentsOf(Table table) {
        return segments.copyOf(table);
    }

    /** The raw block under {@code blockKey} as stored, its chunks one after the other, or null (tests). */
    byte[] storedBlock(byte[] blockKey) {
        return reads.storedGet(Table.RAW, blockKey);
    }

    /** Write batches flushed and not applied yet (tests: a large commit is split). */
    int sentBatches() {
        return commits.sentBatches();
    }

    /** Closes the store: collected restored rows written, unapplied writes dropped, memtables flushed (docs/storage.md). */
    @Override
    public void close() {
        close(true);
    }

    /** Closes without flushing memtables: what a kill -9 leaves on disk (tests; the next open replays the log). */
    void closeAsInACrash() {
        close(false);
    }

    /**
     * The commit of {@code offsets} is reported and the process dies after its first {@code batches} writes reached
     * RocksDB (tests: a crash at every boundary between a commit's batches); the store is closed as in a crash.
     */
    void committedThenCrashedAfter(Map<Table, Long> offsets, int batches) {
        committedUpToBatch(offsets, batches);
        closeAsInACrash();
    }

    /**
     * The commit of {@code offsets} is reported and only its first {@code batches} writes reach RocksDB, as a reader
     * finds the store while the stream thread is between two batches of a commit (tests: then a crash, or a close).
     */
    void committedUpToBatch(Map<Table, Long> offsets, int batches) {
        commits.applyFirstBatchesOnly(offsets, batches);
    }

    private void close(boolean flush) {
        Lock lock = segments.writeLock();
        lock.lock();
        try {
            if (!database.isOpen()) {
                return;
            }
            if (flush && !database.hasFailed()) {
                restore.writeBeforeClose();
            }
            database.markClosed();
            reads.closeAll();
            if (flush) {
                database.flushMemtables(segments.all());
            }
            writes.forget();
            commits.dropSent();
            restore.clear();
            segments.close();
            database.close();
        } finally {
            lock.unlock();
        }
    }
}
