package dev.tspipe.processor.store;

import dev.tspipe.model.blocks.BlockReader;
import dev.tspipe.model.blocks.ChunkWriter;
import dev.tspipe.model.keys.RowKey;
import dev.tspipe.model.rows.RawRow;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.Lock;
import org.apache.kafka.streams.errors.ProcessorStateException;
import org.rocksdb.RocksDBException;
import org.rocksdb.WriteBatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The series store's commit protocol (docs/storage.md, "The write path", steps 2 to 5): a flush, before Kafka Streams
 * commits the task's transaction, sends the buffered writes to the changelogs inside it and prepares their RocksDB
 * write batches; once every table has reported the commit ({@link #committed}), the batches are applied, the last with
 * the changelog offsets they cover and stream time. So the database never holds a write whose transaction did not
 * commit, and what it holds comes with the offsets it covers. A commit reported while the transaction is still open
 * (it failed) drops the batches instead; a write that fails makes the store refuse further writes.
 *
 * <p>Thread rule: the thread that owns the task (the stream thread; Kafka Streams' state updater reports the commits
 * of a restoring task, which has nothing sent). Writes to RocksDB hold {@link Segments}' read lock.
 */
final class CommitProtocol {

    private static final Logger LOG = LoggerFactory.getLogger(CommitProtocol.class);
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
    /**
     * The first byte of a raw changelog record that holds a whole block as one chunk (a put: it replaces the chunks
     * before it), where a chunk appended starts with its header ({@code 0x10} or {@code 0x11}). Sent by the writers of
     * format version 4 before sealing became local (docs/storage.md, "Changelogs"); a restore still puts such a record.
     */
    static final byte WHOLE_BLOCK = 0;
    /** The decoder of a thread's flushes' blocks to seal. */
    private static final ThreadLocal<BlockReader> BLOCK_READER = ThreadLocal.withInitial(BlockReader::new);
    /** The encoder of a thread's flushes' chunks, one after the other. */
    private static final ThreadLocal<ChunkWriter> CHUNK_WRITER = ThreadLocal.withInitial(ChunkWriter::new);
    /** The raw changelog records of a thread's flushes, one after the other: their chunks in groups. */
    private static final ThreadLocal<ChunkGroup> CHUNK_GROUP = ThreadLocal.withInitial(ChunkGroup::new);

    private final SeriesStoreSpec spec;
    private final SeriesDatabase database;
    private final Segments segments;
    private final StreamTime time;
    /** What the store does once the sent batches are applied or dropped: what the buffered readings held is let go. */
    private final Runnable released;
    /** What the store does once the sent batches are applied: expired segments dropped, memtables balanced. */
    private final Runnable applied;
    private final RollupSeal seal;
    private final SegmentReads reads;
    /** Batches flushed (their changelog records sent in the task's transaction) but not yet known to be committed. */
    private final List<WriteBatch> sent = new ArrayList<>();
    /** The changelog offsets Kafka Streams reported since the sent batches were applied, per table. */
    private final Map<Table, Long> reported = new EnumMap<>(Table.class);
    private boolean warnedUncommitted;

    CommitProtocol(SeriesStoreSpec spec, SeriesDatabase database, Segments segments, StreamTime time, SegmentReads reads,
                   RollupSeal seal, Runnable released, Runnable applied) {
        this.spec = spec;
        this.reads = reads;
        this.seal = seal;
        this.database = database;
        this.segments = segments;
        this.time = time;
        this.released = released;
        this.applied = applied;
    }

    /**
     * Sends {@code writes} to the changelogs and prepares their write batches (applied at {@link #committed}); rows that
     * have expired since they were buffered are left out of both. A flush that fails keeps none of its batches.
     */
    void flush(SeriesStore.Changelog changelog, PreparedCommit.Writes writes) {
        BatchBuilder batch = FLUSH_BUILDER.get();
        batch.reset();
        ChunkGroup group = CHUNK_GROUP.get();
        group.clear();
        int sentBefore = sent.size();
        long sealedBefore = time.sealed();
        segments.markCreated();
        try {
            // Blocks are sealed from what the database holds: only when every earlier flush is applied.
            Prepared prepared = new Prepared(batch, group, changelog, sentBefore == 0);
            if (sentBefore == 0) {
                seal.seal(prepared, changelog);
            }
            writes.writeTo(prepared);
            prepared.sendChunks();
            database.putTime(batch, time);
            sent.add(batch.build());
            time.prepared();
        } catch (RocksDBException | RuntimeException e) {
            // Nothing of this flush is kept: the batches it made so far go with the ones it did not make.
            while (sent.size() > sentBefore) {
                sent.remove(sent.size() - 1).close();
            }
            time.flushFailed(sealedBefore);
            segments.dropCreatedSinceMark();
            if (e instanceof RuntimeException unchecked) {
                throw unchecked;
            }
            throw new ProcessorStateException("cannot prepare a write to the series store in " + database.dir(), e);
        } finally {
            batch.reset();
            group.clear();
        }
    }

    /**
     * Kafka Streams reports, after the task's transaction committed, the changelog offset up to which {@code table}'s
     * store is covered; once every table has reported, the sent batches are applied.
     *
     * @param transactionOpen whether the task's producer still has its transaction open: Kafka Streams also reports a
     *                        commit that failed when it closes the task right after (dirty); then the sent batches are
     *                        dropped, and the task's input is processed again after the close
     */
    void committed(Table table, Long changelogOffset, boolean transactionOpen) {
        if (transactionOpen) {
            if (!sent.isEmpty()) {
                LOG.warn("The transaction of the series store in {} did not commit: its {} unapplied batches are dropped "
                        + "(the task's input is read again from its last commit)", database.dir(), sent.size());
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

    /** Whether flushed batches wait for their commit report. */
    boolean hasSent() {
        return !sent.isEmpty();
    }

    /**
     * Processing went on without Kafka Streams reporting the commit of the sent batches, so the transaction did
     * commit (an aborted one closes the task and this store): apply them, and forget the stored offsets, so that a
     * crash before the next report restores the whole changelog over the data instead of trusting old offsets.
     */
    void applyWithoutOffsets() {
        if (!warnedUncommitted) {
            warnedUncommitted = true;
            LOG.warn("The series store in {} had flushed writes that Kafka Streams did not report committed before "
                    + "processing went on; applied them now (is enable.transactional.statestores off?)", database.dir());
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
        applySent(offsets, Integer.MAX_VALUE);
    }

    /**
     * {@link #applySent(Map)}, but the process stops after the first {@code batches} writes (tests: a read or a crash
     * between two batches of one commit; the store is then closed).
     */
    void applyFirstBatchesOnly(Map<Table, Long> offsets, int batches) {
        applySent(offsets, batches);
    }

    private void applySent(Map<Table, Long> offsets, int batchesBeforeCrash) {
        try {
            WriteBatch last = sent.isEmpty() ? new WriteBatch() : sent.remove(sent.size() - 1);
            sent.add(last);
            database.putOffsets(last, offsets);
            database.putTime(last, time);
            int written = 0;
            for (WriteBatch batch : sent) {
                if (written++ == batchesBeforeCrash) {
                    return;
                }
                segments.write(batch);
            }
        } catch (RocksDBException e) {
            throw database.failed("cannot write to the series store in " + database.dir(), e);
        } catch (RuntimeException e) {
            database.markFailed();
            throw e;
        } finally {
            clearSent();
        }
        time.publish();
        applied.run();
    }

    /** Drops the sent batches without applying them (a failed transaction, a restore, the store's close), and their seal. */
    void dropSent() {
        boolean flushed = !sent.isEmpty();
        clearSent();
        if (flushed) {
            time.dropUnapplied();
        }
    }

    private void clearSent() {
        sent.forEach(WriteBatch::close);
        sent.clear();
        released.run();
    }

    /** The changelog offset of {@code table} that the stored data covers, or null if unknown (never committed). */
    Long committedOffset(Table table) {
        Lock lock = segments.readLock();
        lock.lock();
        try {
            return database.committedOffset(table);
        } finally {
            lock.unlock();
        }
    }

    /** Write batches flushed and not applied yet (tests: a large commit is split). */
    int sentBatches() {
        return sent.size();
    }

    /** What a rewrite of a stored block did. */
    private enum Rewrite {
        /** Written as one chunk, in the flush's batch. */
        WRITTEN,
        /** Stored as one chunk already: left as it is. */
        ONE_CHUNK_ALREADY,
        /** Not written: earlier flushes are not applied yet, or the block is not stored or has expired. */
        NOT_YET
    }

    /** One flush's commit: its batches, built in {@code batch}, and its changelog records, sent as the rows come. */
    private final class Prepared implements PreparedCommit {
        private final BatchBuilder batch;
        private final ChunkGroup chunks;
        private final SeriesStore.Changelog changelog;
        private final boolean sealing;
        /** The tag-sets field of the chunk the last {@link #rewrite} wrote ({@code ChunkWriter.tagSets}). */
        private byte[] rewrittenTagSets;

        Prepared(BatchBuilder batch, ChunkGroup chunks, SeriesStore.Changelog changelog, boolean sealing) {
            this.batch = batch;
            this.chunks = chunks;
            this.changelog = changelog;
            this.sealing = sealing;
        }

        /** The raw chunks not sent yet, as one record of the raw changelog ({@link ChunkGroup}). */
        void sendChunks() {
            if (!chunks.isEmpty()) {
                long newest = chunks.newestMillis();
                changelog.send(Table.RAW, ChunkGroup.KEY, chunks.take(), newest);
            }
        }

        @Override
        public void rewriteLeftBlock(byte[] prefix, long blockStart) throws RocksDBException {
            rewrite(prefix, blockStart);
        }

        @Override
        public void rewriteOpenBlock(SeriesBuffer series) throws RocksDBException {
            Rewrite rewritten = rewrite(series.prefix, series.openBlock);
            if (rewritten == Rewrite.NOT_YET) {
                return;
            }
            series.openChunks = 1;
            if (rewritten == Rewrite.WRITTEN && !Arrays.equals(rewrittenTagSets, series.openTagSets)) {
                // The block's last chunk in the table now has other sets than its last chunk in the changelog.
                series.openTagSets = null;
            }
        }

        /**
         * The stored block, read and written again as one chunk of its live readings: a put into the batch, and nothing
         * to the changelog, which holds the same readings in the chunks the commits sent (a restore merges them; the
         * block is then of several chunks, and reads the same). A block already of one chunk is left as it is.
         */
        private Rewrite rewrite(byte[] prefix, long blockStart) throws RocksDBException {
            if (!sealing || time.isSealed(blockStart + spec.rawBlockMs() - 1)) {
                return Rewrite.NOT_YET;
            }
            byte[] key = RowKey.withTimestamp(prefix, blockStart);
            byte[] stored = reads.storedGet(Table.RAW, key);
            if (stored == null) {
                return Rewrite.NOT_YET;
            }
            // The stream thread (this one) is the only one that drops segments: the block's is still there.
            Segment segment = segments.get(Table.RAW, blockStart);
            BlockReader block = BLOCK_READER.get().read(stored, blockStart);
            if (block.chunks() < 2) {
                return Rewrite.ONE_CHUNK_ALREADY;
            }
            ChunkWriter chunk = CHUNK_WRITER.get().start(blockStart);
            for (int i = 0; i < block.size(); i++) {
                long millis = block.timestamp(i);
                if (!time.isSealed(millis)) {
                    chunk.add(millis, block.value(i), block.tagBytes(), block.tagsOffset(i), block.tagsLength(i));
                }
            }
            if (chunk.count() == 0) {
                return Rewrite.NOT_YET;
            }
            put(segment.columnFamilyId, key, chunk.toChunk());
            rewrittenTagSets = chunk.tagSets();
            return Rewrite.WRITTEN;
        }

        @Override
        public void rawRows(SeriesBuffer series, byte[] bytes) throws RocksDBException {
            blocks(series, bytes);
        }

        @Override
        public void rows(Table table, byte[] prefix, TimedRows rows, byte[] bytes) throws RocksDBException {
            if (rows == null) {
                return;
            }
            if (table == Table.RAW) {
                throw new IllegalArgumentException("raw rows are written by rawRows, with what their buffer knows");
            } else if (table.grouped()) {
                group(table, prefix, rows, bytes);
            } else {
                each(table, prefix, rows, bytes);
            }
        }

        @Override
        public void row(Table table, byte[] key, byte[] value, long epochMillis) throws RocksDBException {
            if (time.isExpired(table, epochMillis)) {
                return;
            }
            put(segments.forWrite(table, epochMillis).columnFamilyId, key, value);
            changelog.send(table, key, value, epochMillis);
        }

        @Override
        public void latest(byte[] prefix, byte[] value) throws RocksDBException {
            put(segments.forWrite(Table.LATEST, 0).columnFamilyId, prefix, value);
        }

        /**
         * The raw rows of one series as chunks of its blocks (docs/storage.md, "Blocks"): per block the flush touched,
         * one chunk of its new readings, appended to the block (a RocksDB merge) and sent to the raw changelog with the
         * block's key, in a group of the flush's chunks ({@link ChunkGroup}); rows expired by now are left out. Slots
         * are mostly in time order, so mostly in one block.
         */
        private void blocks(SeriesBuffer series, byte[] bytes) throws RocksDBException {
            byte[] prefix = series.prefix;
            TimedRows rows = series.rows;
            long span = spec.rawBlockMs();
            long[] written = new long[1];
            int blocks = 0;
            for (int first = 0; first < rows.size(); first++) {
                long block = BlockRows.blockStart(rows.millis(first), span);
                if (time.isSealed(rows.millis(first)) || contains(written, blocks, block)) {
                    continue;
                }
                // The chunk of `block`: this slot and every later one in the same block, in the order buffered.
                ChunkWriter chunk = CHUNK_WRITER.get().start(block);
                long newest = Long.MIN_VALUE;
                for (int i = first; i < rows.size(); i++) {
                    long millis = rows.millis(i);
                    if (BlockRows.blockStart(millis, span) != block || time.isSealed(millis)) {
                        continue;
                    }
                    int offset = rows.offset(i);
                    chunk.add(millis, RawRow.valueAt(bytes, offset), bytes, offset + RawRow.VALUE_BYTES,
                            rows.length(i) - RawRow.VALUE_BYTES);
                    newest = Math.max(newest, millis);
                }
                byte[] key = RowKey.withTimestamp(prefix, block);
                byte[] value;
                if (block == series.openBlock) {
                    value = chunk.toChunk(series.openTagSets);
                    series.openTagSets = chunk.tagSets();
                    series.openChunks++;
                } else {
                    value = chunk.toChunk();
                }
                batch.merge(segments.forWrite(Table.RAW, block).columnFamilyId, key, value, 0, value.length);
                rollOver();
                if (chunks.wouldOverflow(key.length, value.length)) {
                    sendChunks();
                }
                chunks.add(key, value, newest);
                if (blocks == written.length) {
                    written = Arrays.copyOf(written, blocks * 2);
                }
                written[blocks++] = block;
            }
        }

        private static boolean contains(long[] values, int count, long value) {
            for (int i = 0; i < count; i++) {
                if (values[i] == value) {
                    return true;
                }
            }
            return false;
        }

        /**
         * The rows of a grouped table (1-minute buckets) into the batch, and into its changelog as groups
         * ({@link ChangelogGroup}), straight from {@code bytes}, without an object per row; rows expired by now are left out.
         */
        private void group(Table table, byte[] prefix, TimedRows rows, byte[] bytes) throws RocksDBException {
            long newest = Long.MIN_VALUE;
            // Rows come oldest first (arrival order); their keys (reversed timestamps) ascend newest first.
            for (int i = rows.size() - 1; i >= 0; i--) {
                long millis = rows.millis(i);
                if (time.isExpired(table, millis)) {
                    continue;
                }
                batch.putRow(segments.forWrite(table, millis).columnFamilyId, prefix, millis, bytes, rows.offset(i), rows.length(i));
                rollOver();
                newest = Math.max(newest, millis);
            }
            if (newest == Long.MIN_VALUE) {
                return;
            }
            for (byte[] value : ChangelogGroup.encode(rows, bytes, millis -> time.isExpired(table, millis))) {
                changelog.send(table, prefix, value, newest);
            }
        }

        /** The rows of a table of single records (1-hour, 1-day buckets): one put and one changelog record each. */
        private void each(Table table, byte[] prefix, TimedRows rows, byte[] bytes) throws RocksDBException {
            for (int i = 0; i < rows.size(); i++) {
                long start = rows.millis(i);
                if (time.isExpired(table, start)) {
                    continue;
                }
                byte[] key = RowKey.withTimestamp(prefix, start);
                byte[] value = Arrays.copyOfRange(bytes, rows.offset(i), rows.offset(i) + rows.length(i));
                put(segments.forWrite(table, start).columnFamilyId, key, value);
                changelog.send(table, key, value, start);
            }
        }

        /**
         * A put of the flush; a batch that reaches {@link #FLUSH_BATCH_BYTES} is handed over and the next one begins.
         * The batches are applied in order, the offsets with the last one, so a split changes nothing a crash can see:
         * a crash between two of them leaves data ahead of the stored offsets, which a restore replays over harmlessly.
         */
        private void put(int columnFamily, byte[] key, byte[] value) {
            batch.put(columnFamily, key, value);
            rollOver();
        }

        private void rollOver() {
            if (batch.size() >= FLUSH_BATCH_BYTES) {
                sent.add(batch.build());
                batch.reset();
            }
        }
    }
}
