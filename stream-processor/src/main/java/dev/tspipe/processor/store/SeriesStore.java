package dev.tspipe.processor.store;

import dev.tspipe.model.keys.MalformedKeyException;
import dev.tspipe.model.keys.RowKey;
import java.io.File;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.apache.kafka.streams.errors.ProcessorStateException;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.ColumnFamilyOptions;
import org.rocksdb.CompressionType;
import org.rocksdb.DBOptions;
import org.rocksdb.FlushOptions;
import org.rocksdb.Options;
import org.rocksdb.Range;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.SizeApproximationFlag;
import org.rocksdb.Slice;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The state of one task: raw rows, 1m/1h/1d buckets and the latest reading of every series of the
 * task's Kafka partition, in one RocksDB database whose column families are the tables' segments
 * (docs/storage.md). It owns the write path (a reading becomes its raw row, its three buckets and the
 * series' latest value; duplicates are no-ops, corrections fix every bucket), stream time, expiry (a
 * segment is dropped whole once all of its span has expired), the changelog records and the restore.
 *
 * <h2>Write-back</h2>
 * {@link #ingest} writes into a heap buffer per series ({@link SeriesBuffer}); {@link #flush}, which Kafka
 * Streams calls before every commit (through {@link TableStore#flushCache}), writes everything of the
 * commit interval in one RocksDB {@link WriteBatch} and sends its changelog records inside the task's
 * transaction: one record per series for raw rows and one for 1-minute buckets ({@link ChangelogGroup}),
 * one per changed key for hourly and daily buckets and latest values. In-order readings read nothing
 * from RocksDB: the buffer knows each series' latest timestamp and last buckets, and a reading newer
 * than its series' latest cannot be a duplicate nor fall into a bucket that is not already known.
 *
 * <h2>Reads</h2>
 * {@link #get} and {@link #range} read what the last flush wrote (interactive queries therefore see
 * committed data, at most one commit interval old), from the segments that overlap the key range's
 * time span only. Any thread may read; the stream thread writes. Column families are created and
 * dropped under a write lock that readers share.
 */
public final class SeriesStore implements AutoCloseable {

    /** What {@link #ingest} did with a reading. */
    public enum Outcome { STORED, CORRECTED, DUPLICATE }

    /** Where {@link #flush} sends changelog records: to the changelog of {@code table}'s store. */
    @FunctionalInterface
    public interface Changelog {
        void send(Table table, byte[] key, byte[] value, long timestamp);
    }

    static final long NO_STREAM_TIME = Long.MIN_VALUE;
    /** The subdirectory of the task directory that holds the database. */
    public static final String DIRECTORY = "series";
    private static final Logger LOG = LoggerFactory.getLogger(SeriesStore.class);
    private static final byte[] STREAM_TIME_KEY = "stream-time".getBytes(StandardCharsets.US_ASCII);
    private static final String OFFSET_KEY_PREFIX = "changelog-offset.";
    /** Bytes a reading holds in the buffers until its batch is committed, besides its row: keys, buckets, objects. */
    private static final int BUFFERED_BYTES_PER_READING = 256;
    /** Series whose state stays known between flushes; beyond it the clean ones are forgotten (about 300 bytes each). */
    static final int MAX_KNOWN_SERIES = 65_536;
    /** Rows written by restores (all tables) in this JVM: what a restore costs, measured in rows, not changelog records. */
    private static final LongAdder ROWS_RESTORED = new LongAdder();
    /** Of those, rows not written because a later row of the same key came before they were (RestoreBatch). */
    private static final LongAdder ROWS_SUPERSEDED = new LongAdder();

    private final SeriesStoreSpec spec;
    private final File dir;
    private final DBOptions dbOptions;
    private final ColumnFamilyOptions hotOptions;
    private final ColumnFamilyOptions coldOptions;
    private final ColumnFamilyOptions metaOptions;
    private final WriteOptions writeOptions;
    private final RocksDB db;
    private final List<ColumnFamilyHandle> metaHandles = new ArrayList<>();
    private final ColumnFamilyHandle meta;
    private final Map<Table, TreeMap<Long, Segment>> segments = new EnumMap<>(Table.class);
    /** Per table, the segment the last write went to (writes come in runs of one segment; the writing thread's). */
    private final Segment[] lastWritten = new Segment[Table.values().length];
    private final ReentrantReadWriteLock lock = new ReentrantReadWriteLock();
    private final Set<SegmentIterator> iterators = ConcurrentHashMap.newKeySet();
    private final SeriesTable series = new SeriesTable();
    private final KeyspaceActivity keyspace = new KeyspaceActivity();
    private final List<SeriesBuffer> dirty = new ArrayList<>();
    private final List<Runnable> beforeFlush = new ArrayList<>();
    /** The bytes of the dirty series' raw rows. */
    private final RowArena arena = new RowArena();
    private static final RollupStep[] STEPS = RollupStep.values();
    /**
     * The largest batch a flush hands to RocksDB. Batches are copied once into an array of their length (the
     * constructor RocksDB offers); an array of half a G1 region or more (512 KiB in a heap of 1 GiB) would be a
     * humongous object, allocated straight into the old generation (one batch per flush made two such arrays per
     * commit of each busy task: docs/storage.md, "The write path").
     */
    static final int FLUSH_BATCH_BYTES = 256 * 1024;
    /** The buffer that a thread's flushes assemble their batches in, one after the other (a flush runs on one thread). */
    private static final ThreadLocal<BatchBuilder> FLUSH_BUILDER =
            ThreadLocal.withInitial(() -> new BatchBuilder(FLUSH_BATCH_BYTES + 64 * 1024));
    private static final Comparator<SeriesBuffer> SERIES_ORDER = (a, b) -> Arrays.compareUnsigned(a.prefix, b.prefix);
    /** Batches flushed (their changelog records sent in the task's transaction) but not yet known to be committed. */
    private final List<WriteBatch> sent = new ArrayList<>();
    /** Restored rows not yet written (the restoring thread's; docs/storage.md, "Restore"). */
    private final RestoreBatch restoring = new RestoreBatch();
    /** The changelog offsets Kafka Streams reported since the sent batches were applied, per table. */
    private final Map<Table, Long> reported = new EnumMap<>(Table.class);
    private long pendingBytes;
    private boolean warnedUncommitted;
    private volatile long streamTime;
    /** Stream time as of the last applied commit: what readers expire rows by (they see only applied data). */
    private volatile long visibleStreamTime;
    private volatile boolean open;
    /** A write to RocksDB failed: the store takes no more writes (its task must close). */
    private boolean failed;

    private SeriesStore(SeriesStoreSpec spec, File dir) {
        this.spec = spec;
        this.dir = dir;
        if (!dir.isDirectory() && !dir.mkdirs()) {
            throw new ProcessorStateException("cannot create the directory " + dir + " of the series store");
        }
        BlockBasedTableConfig tableConfig = RocksDbMemory.tableConfig();
        dbOptions = RocksDbMemory.dbOptions();
        hotOptions = RocksDbMemory.columnFamilyOptions(tableConfig, Segment.HOT_COMPRESSION, Segment.COLD_COMPRESSION);
        coldOptions = RocksDbMemory.columnFamilyOptions(tableConfig, Segment.COLD_COMPRESSION, Segment.COLD_COMPRESSION);
        metaOptions = RocksDbMemory.columnFamilyOptions(tableConfig, CompressionType.NO_COMPRESSION, CompressionType.NO_COMPRESSION);
        // RocksDB's write-ahead log (not synced: one sequential write per commit) makes every applied batch, with
        // the changelog offsets it covers, survive a crash of the process: a restart replays only what the store
        // had not applied (docs/storage.md, "Crashes").
        writeOptions = new WriteOptions().setDisableWAL(false).setSync(false);
        for (Table table : Table.values()) {
            segments.put(table, new TreeMap<>());
        }
        try {
            db = openDatabase();
        } catch (RocksDBException | RuntimeException e) {
            closeOptions();
            throw new ProcessorStateException("cannot open the series store in " + dir + ": " + e.getMessage()
                    + "; delete the directory to rebuild it from the changelogs", e);
        }
        meta = metaHandles.get(0);
        open = true;
        try {
            streamTime = readStreamTime();
            visibleStreamTime = streamTime;
            for (Segment segment : allSegments()) {
                RocksDbMemory.register(segment);
            }
            dropExpiredSegments();
        } catch (RuntimeException e) {
            close(false);
            throw e;
        }
    }

    /** Rows written by restores in this JVM so far (every table; a grouped changelog record holds many). */
    public static long rowsRestored() {
        return ROWS_RESTORED.sum();
    }

    /**
     * Of {@link #rowsRestored()}, the rows a restore did not write because a later row of the same key (a bucket or
     * latest value changed by a later commit) came in before they were written: what the restore did not have to do.
     */
    public static long rowsSupersededInRestore() {
        return ROWS_SUPERSEDED.sum();
    }

    /** Opens (or creates) the store in {@code dir}. */
    public static SeriesStore open(SeriesStoreSpec spec, File dir) {
        return new SeriesStore(spec, dir);
    }

    private RocksDB openDatabase() throws RocksDBException {
        List<byte[]> names;
        if (new File(dir, "CURRENT").isFile()) {
            try (Options options = new Options()) {
                names = RocksDB.listColumnFamilies(options, dir.getAbsolutePath());
            }
        } else {
            names = List.of(RocksDB.DEFAULT_COLUMN_FAMILY);
        }
        List<ColumnFamilyDescriptor> descriptors = new ArrayList<>();
        List<Table> tables = new ArrayList<>();
        List<Long> ids = new ArrayList<>();
        Map<Table, Long> newest = new EnumMap<>(Table.class);
        for (byte[] name : names) {
            String text = new String(name, StandardCharsets.UTF_8);
            int dot = text.lastIndexOf('.');
            Table table = dot < 0 ? null : Table.ofStoreName(text.substring(0, dot));
            if (table != null) {
                newest.merge(table, Long.parseLong(text.substring(dot + 1)), Math::max);
            }
        }
        for (byte[] name : names) {
            String text = new String(name, StandardCharsets.UTF_8);
            int dot = text.lastIndexOf('.');
            Table table = dot < 0 ? null : Table.ofStoreName(text.substring(0, dot));
            if (Arrays.equals(name, RocksDB.DEFAULT_COLUMN_FAMILY)) {
                descriptors.add(0, new ColumnFamilyDescriptor(name, metaOptions));
                tables.add(0, null);
                ids.add(0, -1L);
            } else if (table != null) {
                long id = Long.parseLong(text.substring(dot + 1));
                descriptors.add(new ColumnFamilyDescriptor(name, id == newest.get(table) ? hotOptions : coldOptions));
                tables.add(table);
                ids.add(id);
            } else {
                throw new ProcessorStateException("unknown column family '" + text + "' in the series store in " + dir);
            }
        }
        List<ColumnFamilyHandle> handles = new ArrayList<>();
        RocksDB opened = RocksDB.open(dbOptions, dir.getAbsolutePath(), descriptors, handles);
        metaHandles.add(handles.get(0));
        for (int i = 1; i < handles.size(); i++) {
            Table table = tables.get(i);
            long id = ids.get(i);
            CompressionType compression = id == newest.get(table) ? Segment.HOT_COMPRESSION : Segment.COLD_COMPRESSION;
            segments.get(table).put(id, new Segment(table, id, handles.get(i), compression, opened));
        }
        return opened;
    }

    /** What this task's keys went through in the last hour: rows and bytes written and read, per device and minute. */
    public KeyspaceActivity keyspace() {
        return keyspace;
    }

    public SeriesStoreSpec spec() {
        return spec;
    }

    // ---------------------------------------------------------------------------------------
    // Time

    /** The largest raw row timestamp written or restored, if any: the task's stream time (docs/design.md §5). */
    public OptionalLong streamTime() {
        long time = streamTime;
        return time == NO_STREAM_TIME ? OptionalLong.empty() : OptionalLong.of(time);
    }

    /** Whether a row is expired for the write path (by stream time including what is not committed yet). */
    boolean isExpired(Table table, long epochMillis) {
        return expiredAt(streamTime, table, epochMillis);
    }

    /** Whether readers must not see a row: expired by stream time as of the last applied commit. */
    boolean isExpiredForReaders(Table table, long epochMillis) {
        return expiredAt(visibleStreamTime, table, epochMillis);
    }

    boolean isExpiredKey(Table table, byte[] key) {
        return table.timeKeyed() && isExpiredForReaders(table, timestampOf(key));
    }

    private boolean expiredAt(long time, Table table, long epochMillis) {
        return table.timeKeyed() && time != NO_STREAM_TIME && epochMillis < time - spec.retentionMs(table);
    }

    // ---------------------------------------------------------------------------------------
    // The write path (stream thread)

    /**
     * Stores one reading: its raw row under {@code rowKey}, its 1m/1h/1d buckets and the series' latest
     * reading. The same row again is a no-op; another value at the same timestamp replaces the row and
     * corrects every bucket (min and max recomputed from the raw rows when the old value was one of them
     * and the bucket is within the raw lifecycle). The caller has checked the reading against stream time.
     *
     * @param row   the raw row's bytes ({@code RawRow.toBytes()}), canonical
     * @param value the reading's value (the row's first field)
     */
    public Outcome ingest(byte[] rowKey, long epochMillis, byte[] row, double value) {
        validateUsable();
        if (!restoring.isIdle()) {
            endRestore();
        }
        if (!sent.isEmpty()) {
            applySentWithoutOffsets();
        }
        SeriesBuffer buffer = buffer(rowKey);
        long newest = buffer.latestMillis;
        boolean exists;
        double oldValue = Double.NaN;
        int buffered = buffer.rows.slotOf(epochMillis);
        if (buffered >= 0) {
            int offset = buffer.rows.offset(buffered);
            if (arena.sameBytes(offset, buffer.rows.length(buffered), row)) {
                return Outcome.DUPLICATE;
            }
            exists = true;
            oldValue = arena.value(offset);
        } else {
            // A reading newer than the series' latest cannot be stored yet: no read (the common case).
            byte[] old = newest != SeriesBuffer.NONE && epochMillis <= newest ? get(Table.RAW, rowKey) : null;
            if (old != null && Arrays.equals(old, row)) {
                return Outcome.DUPLICATE;
            }
            exists = old != null;
            if (exists) {
                oldValue = ByteBuffer.wrap(old).getDouble();
            }
        }
        int slot = buffer.rows.put(epochMillis, arena.append(row), row.length);
        pendingBytes += row.length + rowKey.length + BUFFERED_BYTES_PER_READING;
        markDirty(buffer);
        if (epochMillis > streamTime) {
            streamTime = epochMillis;
        }
        for (RollupStep step : STEPS) {
            updateBucket(buffer, step, epochMillis, value, exists, oldValue, newest);
        }
        if (newest == SeriesBuffer.NONE || epochMillis >= newest) {
            buffer.setLatest(epochMillis, slot);
        }
        return exists ? Outcome.CORRECTED : Outcome.STORED;
    }

    private void updateBucket(SeriesBuffer buffer, RollupStep step, long epochMillis, double value, boolean correction,
                              double oldValue, long newest) {
        long start = step.bucketStart(epochMillis);
        SeriesBuffer.Bucket bucket = buffer.bucket(step, start, arena);
        if (bucket == null) {
            // A bucket that starts after the series' newest reading cannot exist yet: no read.
            byte[] stored = newest != SeriesBuffer.NONE && start <= newest
                    ? get(Table.of(step), RowKey.withTimestamp(buffer.prefix, start)) : null;
            bucket = buffer.open(step, start, stored, arena);
        }
        if (bucket.isEmpty()) {
            bucket.first(value, epochMillis);
        } else if (!correction) {
            bucket.add(value, epochMillis);
        } else if (bucket.extremeIs(oldValue) && start >= streamTime - spec.retentionMs(Table.RAW)) {
            recompute(bucket, buffer, step, start);
        } else {
            // The bucket reaches past the raw lifecycle: its raw rows are partly gone, so adjust in place.
            bucket.replace(oldValue, value, epochMillis);
        }
        bucket.dirty = true;
    }

    /** The bucket again from its raw rows (the new value already written), newest first: exact min and max again. */
    private void recompute(SeriesBuffer.Bucket bucket, SeriesBuffer buffer, RollupStep step, long start) {
        long end = start + step.sizeMillis();
        NavigableMap<Long, Double> values = new TreeMap<>();
        try (KeyValueIterator<Bytes, byte[]> rows = range(Table.RAW, RowKey.withTimestamp(buffer.prefix, end - 1),
                Arrays.copyOf(RowKey.withTimestamp(buffer.prefix, start), buffer.prefix.length + RowKey.TIMESTAMP_DIGITS + 1), false)) {
            while (rows.hasNext()) {
                KeyValue<Bytes, byte[]> row = rows.next();
                values.put(RowKey.timestampOf(row.key.get()), ByteBuffer.wrap(row.value).getDouble());
            }
        }
        for (int i = 0; i < buffer.rows.size(); i++) {
            long millis = buffer.rows.millis(i);
            if (millis >= start && millis < end && !isExpired(Table.RAW, millis)) {
                values.put(millis, arena.value(buffer.rows.offset(i)));
            }
        }
        bucket.clear();
        for (Map.Entry<Long, Double> row : values.descendingMap().entrySet()) {
            if (bucket.isEmpty()) {
                bucket.first(row.getValue(), row.getKey());
            } else {
                bucket.add(row.getValue(), row.getKey());
            }
        }
    }

    private SeriesBuffer buffer(byte[] rowKey) {
        SeriesBuffer buffer = series.get(rowKey);
        if (buffer == null) {
            byte[] prefix = RowKey.seriesPrefixOf(rowKey);
            buffer = new SeriesBuffer(prefix);
            byte[] latest = get(Table.LATEST, prefix);
            if (latest != null) {
                buffer.latestMillis = ByteBuffer.wrap(latest).getLong();
            }
            series.add(buffer);
        }
        return buffer;
    }

    private void markDirty(SeriesBuffer buffer) {
        if (!buffer.dirty) {
            buffer.dirty = true;
            dirty.add(buffer);
        }
    }

    /**
     * Runs {@code action} on the stream thread at the start of every flush, before the store's own work: for what is
     * counted per reading and published once per commit (the pipeline's counters).
     */
    public void beforeEachFlush(Runnable action) {
        beforeFlush.add(action);
    }

    /**
     * Sends everything ingested since the last flush to the changelogs (Kafka Streams calls this before it
     * commits the task's transaction, which then holds the records) and prepares its RocksDB write batch.
     * The batch is applied only once the transaction is known to be committed ({@link #committed}), so the
     * database never holds a write that the changelog may not have. Rows that have expired since they were
     * ingested (stream time moved on within the interval) are left out of both.
     */
    public void flush(Changelog changelog) {
        beforeFlush.forEach(Runnable::run);
        validateUsable();
        endRestore();
        if (dirty.isEmpty()) {
            return;
        }
        // In key order: a memtable inserts a key next to the one before it far faster than at a random place
        // (measured: applying a commit's batches took half the time once series and rows were in key order).
        dirty.sort(SERIES_ORDER);
        BatchBuilder batch = FLUSH_BUILDER.get();
        batch.reset();
        int sentBefore = sent.size();
        try {
            for (SeriesBuffer buffer : dirty) {
                writeSeries(batch, changelog, buffer);
            }
            batch.put(meta.getID(), STREAM_TIME_KEY, longBytes(streamTime));
            sent.add(batch.build());
        } catch (RocksDBException | RuntimeException e) {
            // Nothing of this flush is kept: the batches it made so far go with the ones it did not make.
            while (sent.size() > sentBefore) {
                sent.remove(sent.size() - 1).close();
            }
            if (e instanceof RuntimeException unchecked) {
                throw unchecked;
            }
            throw new ProcessorStateException("cannot prepare a write to the series store in " + dir, e);
        } finally {
            batch.reset();
        }
        dirty.forEach(SeriesBuffer::clean);
        dirty.clear();
        arena.clear();
    }

    /**
     * Kafka Streams reports, after the task's transaction committed, the changelog offset up to which {@code table}'s
     * store is covered ({@code StateStore.commit}); once every table has reported, the sent batches are applied to
     * RocksDB, the last of them with those offsets ({@link #committedOffset}) and stream time.
     *
     * @param transactionOpen whether the task's producer still has its transaction open: Kafka Streams also reports a
     *                        commit that failed when it closes the task right after (dirty); then the sent batches are
     *                        dropped, and the task's input is processed again after the close
     */
    public void committed(Table table, Long changelogOffset, boolean transactionOpen) {
        validateUsable();
        // Restored rows come from committed changelog records: written whatever the task's own transaction does,
        // and before the offsets that cover them.
        writeRestored();
        if (transactionOpen) {
            if (!sent.isEmpty()) {
                LOG.warn("The transaction of the series store in {} did not commit: its {} unapplied batches are dropped "
                        + "(the task's input is read again from its last commit)", dir, sent.size());
                dropSent();
            }
            reported.clear();
            return;
        }
        reported.put(table, changelogOffset);
        if (reported.size() < Table.values().length) {
            return;
        }
        try {
            applySent(reported);
        } finally {
            reported.clear();
        }
    }

    /**
     * Processing went on without Kafka Streams reporting the commit of the sent batches, so the transaction did
     * commit (an aborted one closes the task and this store): apply them, and forget the stored offsets, so that a
     * crash before the next report restores the whole changelog over the data instead of trusting old offsets.
     */
    private void applySentWithoutOffsets() {
        if (!warnedUncommitted) {
            warnedUncommitted = true;
            LOG.warn("The series store in {} had flushed writes that Kafka Streams did not report committed before "
                    + "processing went on; applied them now (is enable.transactional.statestores off?)", dir);
        }
        Map<Table, Long> unknown = new EnumMap<>(Table.class);
        for (Table table : Table.values()) {
            unknown.put(table, null);
        }
        applySent(unknown);
    }

    /**
     * Writes the sent batches in order, the last one (or an empty one) with {@code offsets} (a null offset: unknown,
     * deleted) and stream time; a crash in between leaves data ahead of the offsets, which a restore replays over
     * harmlessly. A failed write makes the store unusable: its task must close, and the changelog restores what was
     * not written.
     */
    private void applySent(Map<Table, Long> offsets) {
        try {
            WriteBatch last = sent.isEmpty() ? new WriteBatch() : sent.remove(sent.size() - 1);
            sent.add(last);
            for (Map.Entry<Table, Long> entry : offsets.entrySet()) {
                byte[] key = offsetKey(entry.getKey());
                if (entry.getValue() == null) {
                    last.delete(meta, key);
                } else {
                    last.put(meta, key, longBytes(entry.getValue()));
                }
            }
            last.put(meta, STREAM_TIME_KEY, longBytes(streamTime));
            for (WriteBatch batch : sent) {
                write(batch);
            }
        } catch (RocksDBException e) {
            throw failed("cannot write to the series store in " + dir, e);
        } catch (RuntimeException e) {
            failed = true;
            throw e;
        } finally {
            dropSent();
        }
        visibleStreamTime = streamTime;
        if (series.size() > MAX_KNOWN_SERIES) {
            series.clear();
        }
        dropExpiredSegments();
        RocksDbMemory.balanceMemtables();
    }

    private void dropSent() {
        sent.forEach(WriteBatch::close);
        sent.clear();
        pendingBytes = 0;
    }

    private ProcessorStateException failed(String message, Exception cause) {
        failed = true;
        return new ProcessorStateException(message, cause);
    }

    /** The changelog offset of {@code table} that the stored data covers, or null if unknown (never committed). */
    public Long committedOffset(Table table) {
        byte[] value = getMeta(offsetKey(table));
        return value == null ? null : ByteBuffer.wrap(value).getLong();
    }

    /** Write batches flushed and not applied yet (tests: a large commit is split). */
    int sentBatches() {
        return sent.size();
    }

    /** Bytes buffered since the last commit (Kafka Streams commits early above {@code statestore.uncommitted.max.bytes}). */
    public long uncommittedBytes() {
        return pendingBytes;
    }

    /**
     * Everything one series buffered, into the batch and the changelogs. A method of its own, called once per dirty
     * series: as the body of the flush's loop, which runs once per commit over thousands of series, all of it was
     * compiled by C2 within the flush, three times in one catch-up (on the stack twice, then whole: 0.48 s of C2 in the
     * compilation log of docs/benchmarks.md, fourth round); a method called this often is compiled for its calls.
     */
    private void writeSeries(BatchBuilder batch, Changelog changelog, SeriesBuffer buffer) throws RocksDBException {
        writeGroup(batch, changelog, Table.RAW, buffer.prefix, buffer.rows);
        writeGroup(batch, changelog, Table.MINUTE, buffer.prefix, buffer.dirtyBuckets(RollupStep.MINUTE, arena));
        writeEach(batch, changelog, Table.HOUR, buffer.prefix, buffer.dirtyBuckets(RollupStep.HOUR, arena));
        writeEach(batch, changelog, Table.DAY, buffer.prefix, buffer.dirtyBuckets(RollupStep.DAY, arena));
        if (buffer.latestDirty) {
            byte[] latest = buffer.latestValue(arena);
            put(batch, segmentForWrite(Table.LATEST, 0).columnFamilyId, buffer.prefix, latest);
            changelog.send(Table.LATEST, buffer.prefix, latest, buffer.latestMillis);
        }
    }

    /**
     * The rows of a grouped table (raw rows, 1-minute buckets) that a series buffered: into the batch, and into its
     * changelog as groups, straight from the arena; rows expired by now are left out.
     */
    private void writeGroup(BatchBuilder batch, Changelog changelog, Table table, byte[] prefix, TimedRows rows)
            throws RocksDBException {
        if (rows == null) {
            return;
        }
        byte[] bytes = arena.bytes();
        long newest = Long.MIN_VALUE;
        // Rows come oldest first (arrival order); their keys (reversed timestamps) ascend newest first.
        for (int i = rows.size() - 1; i >= 0; i--) {
            long millis = rows.millis(i);
            if (isExpired(table, millis)) {
                continue;
            }
            batch.putRow(segmentForWrite(table, millis).columnFamilyId, prefix, millis, bytes, rows.offset(i), rows.length(i));
            rollOver(batch);
            newest = Math.max(newest, millis);
        }
        if (newest == Long.MIN_VALUE) {
            return;
        }
        for (byte[] value : ChangelogGroup.encode(rows, bytes, millis -> isExpired(table, millis))) {
            changelog.send(table, prefix, value, newest);
        }
    }

    /** The buckets of a table of single records (1-hour, 1-day) that a series changed: one put and one changelog record each. */
    private void writeEach(BatchBuilder batch, Changelog changelog, Table table, byte[] prefix, TimedRows buckets)
            throws RocksDBException {
        if (buckets == null) {
            return;
        }
        for (int i = 0; i < buckets.size(); i++) {
            long start = buckets.millis(i);
            if (isExpired(table, start)) {
                continue;
            }
            byte[] key = RowKey.withTimestamp(prefix, start);
            byte[] value = arena.copy(buckets.offset(i), buckets.length(i));
            put(batch, segmentForWrite(table, start).columnFamilyId, key, value);
            changelog.send(table, key, value, start);
        }
    }

    /**
     * A put of the flush; a batch that reaches {@link #FLUSH_BATCH_BYTES} is handed over and the next one begins. The
     * batches are applied in order, the offsets with the last one, so a split changes nothing a crash can see: a
     * crash between two of them leaves data ahead of the stored offsets, which a restore replays over harmlessly.
     */
    private void put(BatchBuilder batch, int columnFamily, byte[] key, byte[] value) {
        batch.put(columnFamily, key, value);
        rollOver(batch);
    }

    private void rollOver(BatchBuilder batch) {
        if (batch.size() >= FLUSH_BATCH_BYTES) {
            sent.add(batch.build());
            batch.reset();
        }
    }

    private void write(WriteBatch batch) throws RocksDBException {
        lock.readLock().lock();
        try {
            validateOpen();
            db.write(writeOptions, batch);
        } finally {
            lock.readLock().unlock();
        }
    }

    // ---------------------------------------------------------------------------------------
    // Restore (the restoring or standby task's thread)

    /**
     * Applies changelog records of {@code table}'s store, in their order: rows of grouped records and
     * single rows are written as they were, rows expired by then are skipped, stream time advances with the
     * raw rows as when processing. A null value (never written by tspipe) deletes the key.
     *
     * <p>The rows are collected ({@link RestoreBatch}) and written together at the next commit report
     * ({@link #committed}, which Kafka Streams makes every commit interval while restoring and when the restore
     * ends), before the next write of the stream thread, when the store closes, or once they hold
     * {@link RestoreBatch#MAX_BYTES}; until then readers see the rows written before. Nothing is lost by waiting: the changelog offsets the store keeps
     * are written only with or after the rows they cover, so a crash replays what was not written yet.
     */
    public void restore(Table table, Collection<KeyValue<byte[], byte[]>> records) {
        validateUsable();
        // What the buffers know may be stale once rows arrive from elsewhere (a standby promoted, then demoted).
        if (!series.isEmpty()) {
            series.clear();
        }
        dirty.clear();
        arena.clear();
        dropSent();
        int collected = restoring.size();
        try {
            for (KeyValue<byte[], byte[]> record : records) {
                if (table.grouped()) {
                    if (record.value == null) {
                        continue;
                    }
                    if (record.key.length == 0 || record.key[record.key.length - 1] != RowKey.DELIMITER) {
                        throw new ProcessorStateException("the changelog of " + table.storeName() + " holds a record keyed '"
                                + printable(record.key) + "', not a series prefix: it was written before tspipe's storage "
                                + "engine v2; reset the application (docs/storage.md, \"Upgrading\")");
                    }
                    byte[] prefix = record.key;
                    ChangelogGroup.forEachRow(record.value, (millis, source, offset, length) ->
                            restoreRow(table, RowKey.withTimestamp(prefix, millis), millis, source, offset, length));
                } else {
                    long millis = table.timeKeyed() ? timestampOf(record.key) : 0;
                    restoreRow(table, record.key, millis, record.value, 0, record.value == null ? 0 : record.value.length);
                }
            }
        } catch (RocksDBException e) {
            throw failed("cannot restore into the series store in " + dir, e);
        } catch (RuntimeException e) {
            // None of this batch is written, as if it had not come; the batches before it still are.
            restoring.truncate(collected);
            throw e;
        }
        if (restoring.isFull()) {
            writeRestored();
        }
    }

    private void restoreRow(Table table, byte[] key, long millis, byte[] value, int offset, int length) throws RocksDBException {
        if (isExpired(table, millis)) {
            return;
        }
        if (value == null) {
            Segment segment = segments.get(table).get(spec.segmentOf(table, millis));
            if (segment != null) {
                restoring.delete(segment, key);
            }
            return;
        }
        restoring.put(segmentForWrite(table, millis), key, value, offset, length);
        ROWS_RESTORED.increment();
        if (table == Table.RAW && millis > streamTime) {
            streamTime = millis;
        }
    }

    /**
     * Writes the rows restored so far ({@link RestoreBatch}) and stream time, in RocksDB batches of at most
     * {@link RestoreBatch#MAX_BATCH_BYTES}; then readers see them, and segments expired by the restored stream time
     * are dropped (not before: rows waiting to be written may be in them).
     */
    private void writeRestored() {
        if (restoring.isEmpty()) {
            return;
        }
        long superseded = restoring.superseded();
        try {
            List<byte[]> batches = restoring.serialize(RestoreBatch.MAX_BATCH_BYTES);
            ROWS_SUPERSEDED.add(restoring.superseded() - superseded);
            // Several writes, not one: a crash between them leaves rows ahead of the offsets (written later), which
            // the restart's restore writes again; stream time goes with the last.
            for (int i = 0; i < batches.size(); i++) {
                try (WriteBatch batch = new WriteBatch(batches.get(i))) {
                    if (i == batches.size() - 1) {
                        batch.put(meta, STREAM_TIME_KEY, longBytes(streamTime));
                    }
                    write(batch);
                }
            }
        } catch (RocksDBException e) {
            throw failed("cannot restore into the series store in " + dir, e);
        } catch (RuntimeException e) {
            failed = true;
            throw e;
        } finally {
            restoring.clear();
        }
        visibleStreamTime = streamTime;
        dropExpiredSegments();
        RocksDbMemory.balanceMemtables();
    }

    /** The stream thread writes: rows still collected from a restore are written first, and the restore's arrays let go. */
    private void endRestore() {
        writeRestored();
        restoring.release();
    }

    // ---------------------------------------------------------------------------------------
    // Reads (any thread)

    /**
     * The stored value of {@code key} in {@code table} as of the last flush, or null (also when expired).
     *
     * @throws IllegalArgumentException if a time-keyed table's key does not end with a 19-digit reversed timestamp
     */
    public byte[] get(Table table, byte[] key) {
        long millis = table.timeKeyed() ? timestampOf(key) : 0;
        if (isExpiredForReaders(table, millis)) {
            return null;
        }
        lock.readLock().lock();
        try {
            validateOpen();
            Segment segment = segments.get(table).get(spec.segmentOf(table, millis));
            return segment == null ? null : db.get(segment.handle, key);
        } catch (RocksDBException e) {
            throw new ProcessorStateException("cannot read from the series store in " + dir, e);
        } finally {
            lock.readLock().unlock();
        }
    }

    /**
     * The rows of {@code table} with {@code lower <= key < upperExclusive} (null: unbounded), in unsigned byte
     * order or its reverse, as of the last flush and without expired rows. When both bounds are row keys of one
     * series, only the segments that overlap their time span are read. The iterator must be closed.
     */
    public KeyValueIterator<Bytes, byte[]> range(Table table, byte[] lower, byte[] upperExclusive, boolean reverse) {
        lock.readLock().lock();
        try {
            validateOpen();
            List<Segment> overlapping = new ArrayList<>();
            if (lower == null || upperExclusive == null || Arrays.compareUnsigned(lower, upperExclusive) < 0) {
                long[] span = table.timeKeyed() ? timeSpan(lower, upperExclusive) : null;
                NavigableMap<Long, Segment> all = segments.get(table);
                overlapping.addAll(span == null ? all.values()
                        : all.subMap(spec.segmentOf(table, span[0]), true, spec.segmentOf(table, span[1]), true).values());
            }
            SegmentIterator iterator = new SegmentIterator(this, table, db, overlapping, lower, upperExclusive, reverse);
            iterators.add(iterator);
            return iterator;
        } finally {
            lock.readLock().unlock();
        }
    }

    /**
     * The oldest and newest timestamp a key in {@code [lower, upperExclusive)} can have, when both bounds are
     * keys of one series (the upper one possibly followed by one more byte, as {@code RowKey.seriesRange}
     * makes it); otherwise null.
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

    /** Sum of RocksDB's key estimates over {@code table}'s segments; may count expired rows not yet dropped. */
    public long approximateRows(Table table) {
        lock.readLock().lock();
        try {
            validateOpen();
            long total = 0;
            for (Segment segment : segments.get(table).values()) {
                long estimate = segment.longProperty("rocksdb.estimate-num-keys");
                if (estimate < 0 || total + estimate < 0) {
                    return Long.MAX_VALUE;
                }
                total += estimate;
            }
            return total;
        } finally {
            lock.readLock().unlock();
        }
    }

    /** Per live segment of {@code table}, oldest first: its span, estimated rows, bytes and compression. */
    public List<SegmentStatistics> segmentStatistics(Table table) {
        lock.readLock().lock();
        try {
            validateOpen();
            List<SegmentStatistics> statistics = new ArrayList<>();
            long span = spec.spanMs(table);
            for (Segment segment : segments.get(table).values()) {
                long start = table.timeKeyed() ? segment.id * span : Long.MIN_VALUE;
                long end = table.timeKeyed() ? start + span : Long.MAX_VALUE;
                statistics.add(new SegmentStatistics(segment.id, start, end,
                        segment.longProperty("rocksdb.estimate-num-keys"),
                        segment.longProperty("rocksdb.live-sst-files-size"),
                        segment.longProperty("rocksdb.cur-size-all-mem-tables"),
                        segment.compression, Segment.COLD_COMPRESSION));
            }
            return statistics;
        } finally {
            lock.readLock().unlock();
        }
    }

    /** A device's share of a table: its key prefix ({@link KeyspaceActivity}), and RocksDB's estimates of its bytes and rows. */
    public record DeviceVolume(byte[] devicePrefix, long bytes, long rows) {
    }

    /**
     * The devices of this store (those with a latest reading, in row-key order) with RocksDB's estimates of what each
     * holds in {@code table}'s live segments. In the memtables, RocksDB's count and size of the entries of the
     * device's key range ({@code GetApproximateMemTableStats}); in the files, the approximate size of the range
     * ({@code GetApproximateSizes}) and as rows those bytes at the files' bytes per row. A read of the indexes, not of
     * the rows: estimates, good to rank devices and to find one far above the others.
     */
    public List<DeviceVolume> deviceVolumes(Table table) {
        lock.readLock().lock();
        try {
            validateOpen();
            List<byte[]> devices = devicePrefixes();
            long[] bytes = new long[devices.size()];
            double[] rows = new double[devices.size()];
            if (!devices.isEmpty()) {
                for (Segment segment : segments.get(table).values()) {
                    addEstimates(segment, devices, bytes, rows);
                }
            }
            List<DeviceVolume> volumes = new ArrayList<>(devices.size());
            for (int i = 0; i < devices.size(); i++) {
                volumes.add(new DeviceVolume(devices.get(i), bytes[i], Math.round(rows[i])));
            }
            return volumes;
        } catch (RocksDBException e) {
            throw new ProcessorStateException("cannot estimate the devices' sizes in the series store in " + dir, e);
        } finally {
            lock.readLock().unlock();
        }
    }

    /** The distinct device prefixes of the latest table's keys, in key order (its keys are series prefixes). */
    private List<byte[]> devicePrefixes() {
        List<byte[]> devices = new ArrayList<>();
        byte[] last = null;
        for (Segment segment : segments.get(Table.LATEST).values()) {
            try (RocksIterator keys = db.newIterator(segment.handle)) {
                for (keys.seekToFirst(); keys.isValid(); keys.next()) {
                    byte[] key = keys.key();
                    int length = KeyspaceActivity.devicePrefixLength(key, false);
                    if (length > 0 && (last == null || !Arrays.equals(last, 0, last.length, key, 0, length))) {
                        last = Arrays.copyOf(key, length);
                        devices.add(last);
                    }
                }
            }
        }
        return devices;
    }

    /** Adds each device's estimated bytes and rows in {@code segment} to {@code bytes} and {@code rows}. */
    private void addEstimates(Segment segment, List<byte[]> devicePrefixes, long[] bytes, double[] rows)
            throws RocksDBException {
        long memtableRows = Math.max(0, segment.longProperty("rocksdb.num-entries-active-mem-table"))
                + Math.max(0, segment.longProperty("rocksdb.num-entries-imm-mem-tables"));
        long fileRows = Math.max(0, segment.longProperty("rocksdb.estimate-num-keys") - memtableRows);
        long fileBytes = Math.max(0, segment.longProperty("rocksdb.live-sst-files-size"));
        double rowsPerFileByte = fileBytes == 0 ? 0 : (double) fileRows / fileBytes;
        List<Slice> slices = new ArrayList<>(2 * devicePrefixes.size());
        try {
            List<Range> ranges = new ArrayList<>(devicePrefixes.size());
            for (byte[] prefix : devicePrefixes) {
                // Every key of the device starts with the prefix, which ends with the delimiter: the range ends at the
                // prefix with its last byte one higher.
                byte[] end = prefix.clone();
                end[end.length - 1]++;
                Slice from = new Slice(prefix);
                slices.add(from);
                Slice to = new Slice(end);
                slices.add(to);
                ranges.add(new Range(from, to));
            }
            long[] inFiles = fileBytes == 0 ? new long[ranges.size()]
                    : db.getApproximateSizes(segment.handle, ranges, SizeApproximationFlag.INCLUDE_FILES);
            for (int i = 0; i < ranges.size(); i++) {
                RocksDB.CountAndSize inMemory = memtableRows == 0 ? null
                        : db.getApproximateMemTableStats(segment.handle, ranges.get(i));
                bytes[i] += inFiles[i] + (inMemory == null ? 0 : inMemory.size);
                rows[i] += inFiles[i] * rowsPerFileByte + (inMemory == null ? 0 : inMemory.count);
            }
        } finally {
            slices.forEach(Slice::close);
        }
    }

    Lock readLock() {
        return lock.readLock();
    }

    void iteratorClosed(SegmentIterator iterator) {
        iterators.remove(iterator);
    }

    public boolean isOpen() {
        return open;
    }

    // ---------------------------------------------------------------------------------------
    // Segments

    private Segment segmentForWrite(Table table, long millis) throws RocksDBException {
        long id = spec.segmentOf(table, millis);
        Segment last = lastWritten[table.ordinal()];
        if (last != null && last.id == id) {
            return last;
        }
        TreeMap<Long, Segment> ofTable = segments.get(table);
        Segment segment = ofTable.get(id);
        if (segment != null) {
            lastWritten[table.ordinal()] = segment;
            return segment;
        }
        lock.writeLock().lock();
        try {
            validateOpen();
            segment = ofTable.get(id);
            if (segment == null) {
                boolean hot = ofTable.isEmpty() || id > ofTable.lastKey();
                String name = Segment.columnFamilyName(table, id);
                ColumnFamilyHandle handle = db.createColumnFamily(new ColumnFamilyDescriptor(
                        name.getBytes(StandardCharsets.UTF_8), hot ? hotOptions : coldOptions));
                segment = new Segment(table, id, handle, hot ? Segment.HOT_COMPRESSION : Segment.COLD_COMPRESSION, db);
                ofTable.put(id, segment);
                RocksDbMemory.register(segment);
            }
            lastWritten[table.ordinal()] = segment;
            return segment;
        } finally {
            lock.writeLock().unlock();
        }
    }

    /** Drops every segment whose whole span is before {@code streamTime - retention}: no per-row deletes. */
    private void dropExpiredSegments() {
        long time = streamTime;
        if (time == NO_STREAM_TIME || !restoring.isEmpty()) {
            // Restored rows not yet written may be in a segment that stream time has expired: drop it after them.
            return;
        }
        for (Table table : Table.values()) {
            if (!table.timeKeyed()) {
                continue;
            }
            // A segment's span [id * span, (id + 1) * span) is all expired when its end is at or before the
            // expiry limit, that is when id < floor(limit / span).
            long firstLive = Math.floorDiv(time - spec.retentionMs(table), spec.spanMs(table));
            TreeMap<Long, Segment> ofTable = segments.get(table);
            if (ofTable.isEmpty() || ofTable.firstKey() >= firstLive) {
                continue;
            }
            lock.writeLock().lock();
            try {
                for (Segment segment : new ArrayList<>(ofTable.headMap(firstLive, false).values())) {
                    for (SegmentIterator iterator : iterators) {
                        iterator.segmentDropped(segment);
                    }
                    RocksDbMemory.unregister(segment);
                    db.dropColumnFamily(segment.handle);
                    segment.handle.close();
                    ofTable.remove(segment.id);
                    if (lastWritten[table.ordinal()] == segment) {
                        lastWritten[table.ordinal()] = null;
                    }
                    LOG.info("Dropped expired segment {} of the series store in {} (stream time {})", segment.name(), dir, time);
                }
            } catch (RocksDBException e) {
                throw new ProcessorStateException("cannot drop an expired segment of the series store in " + dir, e);
            } finally {
                lock.writeLock().unlock();
            }
        }
    }

    /** The live segments of {@code table}, oldest first (tests). */
    List<Segment> segmentsOf(Table table) {
        lock.readLock().lock();
        try {
            return new ArrayList<>(segments.get(table).values());
        } finally {
            lock.readLock().unlock();
        }
    }

    private List<Segment> allSegments() {
        List<Segment> all = new ArrayList<>();
        segments.values().forEach(ofTable -> all.addAll(ofTable.values()));
        return all;
    }

    // ---------------------------------------------------------------------------------------
    // Durability and lifecycle

    /**
     * Closes the database (memtables flushed first); rows a restore collected are written first, writes of the stream
     * thread not applied are dropped (the task's transaction did not commit them, or the changelog has them).
     */
    @Override
    public void close() {
        close(true);
    }

    /** Closes without flushing memtables: what a kill -9 leaves on disk (tests; the next open replays the log). */
    void closeAsInACrash() {
        close(false);
    }

    private void close(boolean flush) {
        lock.writeLock().lock();
        try {
            if (!open) {
                return;
            }
            if (flush && !failed && !restoring.isEmpty()) {
                // Restored rows come from committed changelog records: written rather than dropped, so that nothing
                // (a downgrade checkpoint of Kafka Streams' own restored offsets, say) can count on rows that are not there.
                try {
                    writeRestored();
                } catch (RuntimeException e) {
                    LOG.warn("Could not write the restored rows of the series store in {} before closing it; its restore "
                            + "starts again from the stored changelog offsets: {}", dir, e.toString());
                }
            }
            open = false;
            for (SegmentIterator iterator : iterators) {
                iterator.closeWithStore();
            }
            if (flush) {
                flushMemtables();
            }
            iterators.clear();
            series.clear();
            dirty.clear();
            dropSent();
            restoring.clear();
            for (Segment segment : allSegments()) {
                RocksDbMemory.unregister(segment);
                segment.handle.close();
            }
            segments.values().forEach(Map::clear);
            Arrays.fill(lastWritten, null);
            metaHandles.forEach(ColumnFamilyHandle::close);
            db.close();
            closeOptions();
        } finally {
            lock.writeLock().unlock();
        }
    }

    /**
     * Flushes every memtable, so that the write-ahead log files can go: what the state directory holds after a
     * clean close is the tables' SST files (a crash leaves the log, which the next open replays).
     */
    private void flushMemtables() {
        List<ColumnFamilyHandle> handles = new ArrayList<>(metaHandles);
        allSegments().forEach(segment -> handles.add(segment.handle));
        try (FlushOptions options = new FlushOptions().setWaitForFlush(true)) {
            db.flush(options, handles);
        } catch (RocksDBException e) {
            LOG.warn("Could not flush the series store in {} before closing it; its write-ahead log keeps the data: {}", dir, e.toString());
        }
    }

    private void closeOptions() {
        writeOptions.close();
        hotOptions.close();
        coldOptions.close();
        metaOptions.close();
        dbOptions.close();
    }

    private long readStreamTime() {
        byte[] value = getMeta(STREAM_TIME_KEY);
        return value == null ? NO_STREAM_TIME : ByteBuffer.wrap(value).getLong();
    }

    private byte[] getMeta(byte[] key) {
        lock.readLock().lock();
        try {
            validateOpen();
            return db.get(meta, key);
        } catch (RocksDBException e) {
            throw new ProcessorStateException("cannot read from the series store in " + dir, e);
        } finally {
            lock.readLock().unlock();
        }
    }

    private static byte[] offsetKey(Table table) {
        return (OFFSET_KEY_PREFIX + table.storeName()).getBytes(StandardCharsets.US_ASCII);
    }

    private static byte[] longBytes(long value) {
        return ByteBuffer.allocate(8).putLong(value).array();
    }

    private void validateUsable() {
        validateOpen();
        if (failed) {
            throw new ProcessorStateException("the series store in " + dir + " failed to write earlier and takes no more "
                    + "writes; its task closes and restores it from the changelogs");
        }
    }

    private void validateOpen() {
        if (!open) {
            throw new InvalidStateStoreException("the series store in " + dir + " is not open");
        }
    }

    /** The epoch millis of a key (see {@link RowKey#timestampOf}); a key that has none is refused, naming the key. */
    static long timestampOf(byte[] key) {
        try {
            return RowKey.timestampOf(key);
        } catch (MalformedKeyException e) {
            throw new IllegalArgumentException("key '" + printable(key) + "' does not end with a valid "
                    + RowKey.TIMESTAMP_DIGITS + "-digit reversed timestamp (see RowKey): " + e.getMessage(), e);
        }
    }

    static String printable(byte[] key) {
        StringBuilder out = new StringBuilder(key.length);
        for (byte b : key) {
            int u = b & 0xFF;
            if (u >= 0x20 && u < 0x7F && u != '\\') {
                out.append((char) u);
            } else {
                out.append(String.format("\\x%02X", u));
            }
        }
        return out.toString();
    }
}
