package dev.tspipe.processor.store;

import dev.tspipe.model.keys.RowKey;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import org.rocksdb.RocksDBException;

/**
 * The write buffer of a task's series store, in the role of Kafka Streams' {@code CachingKeyValueStore} and its
 * {@code ThreadCache}: a reading becomes its raw row and its series' latest reading, in a buffer per series
 * ({@link SeriesBuffer}, found through {@link SeriesTable}, row bytes in one {@link RowArena}) until the next flush
 * hands them to the commit ({@link #writeTo}). Duplicates are no-ops; a correction replaces the row, and every bucket
 * follows, since buckets are computed from the raw blocks until they are sealed ({@link RollupSeal}). In-order
 * readings read nothing from RocksDB: the buffer knows each series' latest timestamp (docs/storage.md, "The write path").
 *
 * <p>Thread rule: the thread that writes the task's store, as for {@link Segments}: the stream thread, or the thread
 * restoring the task, which only {@link #forget}s the buffer before it restores (Kafka Streams never runs both for one
 * task at once: its state updater hands a restored task to the stream thread). Nothing here is shared (its reads of
 * stored rows, for late readings, go through {@link SegmentReads}).
 */
final class WriteBuffer implements PreparedCommit.Writes {

    /** Series whose state stays known between flushes; beyond it the clean ones are forgotten (about 300 bytes each). */
    static final int MAX_KNOWN_SERIES = 65_536;
    /**
     * A flush that appends to a series' open block holding this many chunks writes the block again as one chunk first
     * (a read and an encode of the block, in the flush's batch, not in the changelog): a chunk costs its header (about
     * 20 bytes with its tag set: docs/storage.md, "What the format costs") and its own RocksDB merge operand, so an
     * open block of chunks is denser once rewritten.
     */
    static final int REWRITE_CHUNKS = 4;
    /**
     * Bytes a reading holds in the buffers until its commit is applied, besides its row's bytes in the arena: its slot in
     * its series' {@link TimedRows} (two longs), doubled for the slack of that array's growth. No key and no object per
     * reading is kept (a series' prefix and buffer are kept once, and bounded by {@link #MAX_KNOWN_SERIES}).
     */
    private static final int BUFFERED_BYTES_PER_READING = 32;
    private static final Comparator<SeriesBuffer> SERIES_ORDER = (a, b) -> Arrays.compareUnsigned(a.prefix, b.prefix);

    private final SeriesStoreSpec spec;
    private final SegmentReads reads;
    private final StreamTime time;
    private final SeriesTable<SeriesBuffer> series = new SeriesTable<>();
    private final List<SeriesBuffer> dirty = new ArrayList<>();
    /** The bytes of the dirty series' raw rows. */
    private final RowArena arena = new RowArena();
    private long uncommittedBytes;
    /** The prefix array {@link #ingestInSeries} was last given, and its series' buffer; null once the series are forgotten. */
    private byte[] lastPrefix;
    private SeriesBuffer lastBuffer;

    WriteBuffer(SeriesStoreSpec spec, SegmentReads reads, StreamTime time) {
        this.spec = spec;
        this.reads = reads;
        this.time = time;
    }

    /** See {@link SeriesStore#ingest}. */
    SeriesStore.Outcome ingest(byte[] rowKey, long epochMillis, byte[] row, double value) {
        return ingest(buffer(rowKey, RowKey.seriesPrefixLength(rowKey)), rowKey, epochMillis, row, value);
    }

    /**
     * See {@link SeriesStore#ingestInSeries}: the series found by its prefix, once for consecutive readings of one
     * prefix array (a batch's run of points).
     */
    SeriesStore.Outcome ingestInSeries(byte[] seriesPrefix, long epochMillis, byte[] row, double value) {
        if (seriesPrefix != lastPrefix) {
            lastBuffer = buffer(seriesPrefix, seriesPrefix.length);
            lastPrefix = seriesPrefix;
        }
        return ingest(lastBuffer, null, epochMillis, row, value);
    }

    /** Stores a reading of {@code buffer}'s series; {@code rowKey}: its row key, or null to make it if a read needs it. */
    private SeriesStore.Outcome ingest(SeriesBuffer buffer, byte[] rowKey, long epochMillis, byte[] row, double value) {
        long newest = buffer.latestMillis;
        boolean exists;
        int buffered = buffer.rows.slotOf(epochMillis);
        if (buffered >= 0) {
            if (arena.sameBytes(buffer.rows.offset(buffered), buffer.rows.length(buffered), row)) {
                return SeriesStore.Outcome.DUPLICATE;
            }
            exists = true;
        } else {
            // A reading newer than the series' latest cannot be stored yet: no read (the common case).
            byte[] old = null;
            if (newest != SeriesBuffer.NONE && epochMillis <= newest) {
                old = reads.getOnWritingThread(Table.RAW, rowKey != null ? rowKey : RowKey.withTimestamp(buffer.prefix, epochMillis));
            }
            if (old != null && Arrays.equals(old, row)) {
                return SeriesStore.Outcome.DUPLICATE;
            }
            exists = old != null;
        }
        int slot = buffer.rows.put(epochMillis, arena.append(row), row.length);
        // The arena's bytes count twice: it grows by doubling, so it may hold as much again unused.
        uncommittedBytes += 2L * row.length + BUFFERED_BYTES_PER_READING;
        markDirty(buffer);
        time.advance(epochMillis);
        if (newest == SeriesBuffer.NONE || epochMillis >= newest) {
            buffer.setLatest(epochMillis, slot);
        }
        return exists ? SeriesStore.Outcome.CORRECTED : SeriesStore.Outcome.STORED;
    }

    /** The buffer of the series whose prefix is the first {@code prefixLength} bytes of {@code key}, made if new. */
    private SeriesBuffer buffer(byte[] key, int prefixLength) {
        SeriesBuffer buffer = prefixLength == key.length ? series.getByPrefix(key) : series.get(key);
        if (buffer == null) {
            byte[] prefix = prefixLength == key.length ? key : Arrays.copyOf(key, prefixLength);
            buffer = new SeriesBuffer(prefix);
            byte[] latest = reads.getOnWritingThread(Table.LATEST, prefix);
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

    // ---------------------------------------------------------------------------------------
    // The flush

    /** Whether nothing was buffered since the last flush. */
    boolean isEmpty() {
        return dirty.isEmpty();
    }

    /**
     * Everything buffered since the last flush, into {@code commit}: the dirty series in key order (a memtable inserts
     * a key next to the one before it far faster than at a random place: applying a commit's batches took half the
     * time once series and rows were in key order), each series' rows newest first, which is ascending key order.
     */
    @Override
    public void writeTo(PreparedCommit commit) throws RocksDBException {
        dirty.sort(SERIES_ORDER);
        for (SeriesBuffer buffer : dirty) {
            writeSeries(commit, buffer);
        }
    }

    /**
     * Everything one series buffered. A method of its own, called once per dirty series: as the body of the flush's
     * loop, which runs once per commit over thousands of series, all of it was compiled by C2 within the flush, three
     * times in one catch-up (on the stack twice, then whole: 0.48 s of C2 in the compilation log of
     * docs/benchmarks-history.md, "Storage engine v2, fourth round"); a method called this often is compiled for its calls.
     */
    private void writeSeries(PreparedCommit commit, SeriesBuffer buffer) throws RocksDBException {
        long newestBlock = newestBlock(buffer.rows);
        if (newestBlock != SeriesBuffer.NONE && newestBlock > buffer.openBlock) {
            if (buffer.openBlock != SeriesBuffer.NONE) {
                commit.rewriteLeftBlock(buffer.prefix, buffer.openBlock);
            }
            buffer.openBlock = newestBlock;
            buffer.openChunks = 0;
            buffer.openTagSets = null;
        } else if (newestBlock == buffer.openBlock && buffer.openChunks >= REWRITE_CHUNKS) {
            commit.rewriteOpenBlock(buffer);
        }
        // The buckets are computed from the blocks until they are sealed (RollupSeal): nothing to write for them.
        commit.rawRows(buffer, arena.bytes());
        if (buffer.latestDirty) {
            commit.latest(buffer.prefix, buffer.latestValue(arena));
        }
    }

    /** The start of the newest raw block that {@code rows} write to, or NONE if they are none. */
    private long newestBlock(TimedRows rows) {
        long newest = SeriesBuffer.NONE;
        for (int i = 0; i < rows.size(); i++) {
            newest = Math.max(newest, rows.millis(i));
        }
        return newest == SeriesBuffer.NONE ? newest : BlockRows.blockStart(newest, spec.rawBlockMs());
    }

    /** After a flush that prepared its commit: nothing pending, what is known about each series stays known. */
    void flushed() {
        dirty.forEach(SeriesBuffer::clean);
        dirty.clear();
        arena.clear();
    }

    // ---------------------------------------------------------------------------------------
    // What the buffer holds

    /** Bytes the readings buffered since the last applied or dropped commit hold (their rows, keys, buckets). */
    long uncommittedBytes() {
        return uncommittedBytes;
    }

    /** The commit's batches were applied or dropped: what the readings held until then is let go. */
    void released() {
        uncommittedBytes = 0;
    }

    /** After an applied commit: a buffer that knows more than {@link #MAX_KNOWN_SERIES} series forgets them all. */
    void forgetSeriesIfMany() {
        if (series.size() > MAX_KNOWN_SERIES) {
            series.clear();
            forgetLast();
        }
    }

    /**
     * Forgets everything, buffered or known (rows arrive from elsewhere, a restore: what the buffers know may be stale
     * once a standby was promoted and demoted again).
     */
    void forget() {
        if (!series.isEmpty()) {
            series.clear();
        }
        forgetLast();
        dirty.clear();
        arena.clear();
    }

    private void forgetLast() {
        lastPrefix = null;
        lastBuffer = null;
    }
}
