package dev.tspipe.processor.store;

import dev.tspipe.model.blocks.BlockReader;
import dev.tspipe.model.keys.RowKey;
import dev.tspipe.model.rows.RawRow;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.errors.ProcessorStateException;
import org.rocksdb.RocksDBException;
import org.rocksdb.WriteBatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The restore of a task's tables from their changelogs (docs/storage.md, "Restore: how the rows are written"): the
 * records of Kafka Streams' restore callback are taken as they were (the rows of a group, the single rows of the
 * others), rows expired by then are skipped, stream time advances with the raw rows. The rows are collected
 * ({@link RestoreBatch}) and written together at the next commit report, before the stream thread's next read or
 * write, when the store closes, or once they hold {@link RestoreBatch#MAX_BYTES}; the changelog offsets are written
 * only with or after the rows they cover, so a crash replays what was not written yet.
 *
 * <p>Thread rule: the thread that restores the task (Kafka Streams' state updater: restore calls and commit reports);
 * the stream thread writes what is left ({@link #end}) when it takes the task over, the closing thread under
 * {@link Segments}' write lock ({@link #writeBeforeClose}). Never two at once.
 */
final class ChangelogRestore {

    private static final Logger LOG = LoggerFactory.getLogger(ChangelogRestore.class);
    /**
     * Rows written by restores (all tables) in this JVM: what a restore costs, measured in rows, not changelog records
     * (a raw chunk counts its readings).
     */
    private static final LongAdder ROWS_RESTORED = new LongAdder();
    /** Of those, rows not written because a later row of the same key came before they were (RestoreBatch). */
    private static final LongAdder ROWS_SUPERSEDED = new LongAdder();

    private final SeriesDatabase database;
    private final Segments segments;
    private final StreamTime time;
    private final SegmentReads reads;
    /** What the store does once restored rows reached the database: drops expired segments (after them, not before). */
    private final Runnable written;
    /** Restored rows not yet written. */
    private final RestoreBatch collected = new RestoreBatch();
    /** Whether a seal was restored ({@link RollupSeal#CHANGELOG_KEY}) that is not written yet. */
    private boolean sealRestored;
    /** Decodes the chunks of the raw changelog, for their newest reading. */
    private final BlockReader chunks = new BlockReader();
    /** The series' latest readings, taken from the raw chunks (the commits send no latest record per series). */
    private final RestoredLatest latest;

    ChangelogRestore(SeriesDatabase database, Segments segments, StreamTime time, SegmentReads reads, Runnable written) {
        this.database = database;
        this.segments = segments;
        this.time = time;
        this.reads = reads;
        this.written = written;
        this.latest = new RestoredLatest(reads);
    }

    static long rowsRestored() {
        return ROWS_RESTORED.sum();
    }

    static long rowsSuperseded() {
        return ROWS_SUPERSEDED.sum();
    }

    /**
     * Collects the rows of changelog records of {@code table}'s store, in their order; a null value (never written by
     * tspipe) deletes the key. A batch of records that fails half-way is left out whole, the batches before it kept.
     */
    void restore(Table table, Collection<KeyValue<byte[], byte[]>> records) {
        int before = collected.size();
        StreamTime.Mark timeBefore = time.mark();
        boolean sealRestoredBefore = sealRestored;
        segments.markCreated();
        // Latest readings of the latest changelog, taken once the whole batch is known to be good.
        List<KeyValue<byte[], byte[]>> latestRecords = table == Table.LATEST ? new ArrayList<>() : List.of();
        try {
            for (KeyValue<byte[], byte[]> record : records) {
                if (table == Table.RAW) {
                    if (record.value == null) {
                        continue;
                    }
                    if (ChunkGroup.isGroupKey(record.key)) {
                        restoreGroup(record.value);
                    } else {
                        restoreChunk(record.key, record.value, 0, record.value.length);
                    }
                } else if (table.grouped()) {
                    if (record.value == null) {
                        continue;
                    }
                    if (record.key.length == 0 || record.key[record.key.length - 1] != RowKey.DELIMITER) {
                        throw new ProcessorStateException("the changelog of " + table.storeName() + " holds a record keyed '"
                                + Table.printable(record.key) + "', not a series prefix: it was written before tspipe's storage "
                                + "engine v2; reset the application (docs/storage.md, \"Upgrading\")");
                    }
                    byte[] prefix = record.key;
                    ChangelogGroup.forEachRow(record.value, (millis, source, offset, length) ->
                            restoreRow(table, RowKey.withTimestamp(prefix, millis), millis, source, offset, length));
                } else if (table == Table.LATEST && Arrays.equals(record.key, RollupSeal.CHANGELOG_KEY)) {
                    // The seal: raw blocks before it are in the rollup tables' changelogs, not needed any more.
                    if (record.value != null && record.value.length == 8) {
                        time.seal(ByteBuffer.wrap(record.value).getLong());
                        sealRestored = true;
                    }
                } else if (table == Table.LATEST && record.value != null) {
                    if (record.value.length < 8 + RawRow.VALUE_BYTES) {
                        throw new ProcessorStateException("the changelog of " + table.storeName() + " holds a record of "
                                + record.value.length + " bytes keyed '" + Table.printable(record.key) + "', not a latest reading");
                    }
                    latestRecords.add(record);
                } else {
                    long millis = table.timeOf(record.key);
                    restoreRow(table, record.key, millis, record.value, 0, record.value == null ? 0 : record.value.length);
                }
            }
        } catch (RocksDBException e) {
            throw database.failed("cannot restore into the series store in " + database.dir(), e);
        } catch (RuntimeException e) {
            // None of this batch is written, as if it had not come (its rows, and the stream time and seal they advanced);
            // the batches before it still are.
            collected.truncate(before);
            time.rollBack(timeBefore);
            sealRestored = sealRestoredBefore;
            segments.dropCreatedSinceMark();
            throw e;
        }
        for (KeyValue<byte[], byte[]> record : latestRecords) {
            latest.record(record.key, record.value);
        }
        if (collected.isFull()) {
            write();
        }
    }

    /** The chunks of a raw changelog record of many ({@link ChunkGroup}), each restored as it comes. */
    private void restoreGroup(byte[] group) throws RocksDBException {
        try {
            ChunkGroup.forEachChunk(group, this::restoreChunk);
        } catch (IllegalArgumentException e) {
            // The group's own layout (its version, a length past its end): a chunk's errors are reported by restoreChunk.
            throw new ProcessorStateException("the changelog of " + Table.RAW.storeName() + " holds a group of chunks "
                    + "that cannot be read (" + e.getMessage() + "): it was written by a newer tspipe, or damaged; "
                    + "reset the application (docs/storage.md, \"Upgrading\")", e);
        }
    }

    /**
     * A chunk of a raw block ({@code length} bytes of {@code source} from {@code offset}: a record's value, or one
     * chunk of a {@link ChunkGroup}), merged into the block as the commit that sent it did (or a whole block, put in
     * place of what the block held: {@link CommitProtocol#WHOLE_BLOCK}); decoded for stream time and the series' latest
     * reading, and to refuse what is not a chunk (a changelog of storage engine v2 holds groups of rows keyed by a
     * series prefix).
     */
    private void restoreChunk(byte[] key, byte[] source, int offset, int length) throws RocksDBException {
        long start;
        boolean whole;
        int chunkOffset;
        int chunkLength;
        try {
            if (key.length == 0 || key[key.length - 1] == RowKey.DELIMITER) {
                throw new IllegalArgumentException("keyed by a series prefix");
            }
            start = Table.RAW.timeOf(key);
            whole = length > 0 && source[offset] == CommitProtocol.WHOLE_BLOCK;
            chunkOffset = whole ? offset + 1 : offset;
            chunkLength = whole ? length - 1 : length;
            // Decoded alone: a chunk that inherits its tag sets reads here without tags (its latest reading is found
            // with them when the rows are written: RestoredLatest).
            chunks.read(source, chunkOffset, chunkLength, start);
        } catch (IllegalArgumentException e) {
            throw new ProcessorStateException("the changelog of " + Table.RAW.storeName() + " holds a record keyed '"
                    + Table.printable(key) + "' that is not a chunk of a raw block (" + e.getMessage() + "): it was written "
                    + "before tspipe's storage engine v3; reset the application (docs/storage.md, \"Upgrading\")", e);
        }
        if (time.isBlockSealed(start) || chunks.size() == 0) {
            return;
        }
        long newest = chunks.timestamp(chunks.size() - 1);
        collected.chunk(segments.forWrite(Table.RAW, start), key, source, chunkOffset, chunkLength, newest, whole);
        ROWS_RESTORED.add(chunks.size());
        time.advance(newest);
    }

    private void restoreRow(Table table, byte[] key, long millis, byte[] value, int offset, int length) throws RocksDBException {
        if (time.isExpired(table, millis)) {
            return;
        }
        if (value == null) {
            Segment segment = segments.get(table, millis);
            if (segment != null) {
                collected.delete(segment, key);
            }
            return;
        }
        collected.put(segments.forWrite(table, millis), key, value, offset, length);
        ROWS_RESTORED.increment();
        if (table == Table.RAW) {
            time.advance(millis);
        }
    }

    /**
     * Writes the rows collected so far and stream time, in RocksDB batches of at most {@link RestoreBatch#MAX_BATCH_BYTES};
     * then readers see them, and the store drops the segments expired by the restored stream time (not before: rows
     * waiting to be written may be in them). A failed write makes the store refuse further writes.
     */
    void write() {
        if (collected.isEmpty() && !sealRestored && latest.isEmpty()) {
            return;
        }
        try {
            latest.collect(collected, segments);
            if (latest.hasUnresolved()) {
                // Their tags are in the blocks, once the chunks before them (written earlier) and theirs are together.
                writeCollected(false);
                latest.resolveFromBlocks(collected, segments);
            } else {
                latest.written();
            }
            writeCollected(true);
        } catch (RocksDBException e) {
            throw database.failed("cannot restore into the series store in " + database.dir(), e);
        } catch (RuntimeException e) {
            database.markFailed();
            throw e;
        } finally {
            collected.clear();
            sealRestored = false;
            if (!latest.isEmpty()) {
                // Not written: the store refuses further writes, and its restore starts again.
                latest.forget();
            }
        }
        time.publish();
        written.run();
    }

    /**
     * The rows collected, in RocksDB batches; stream time with the last of them if {@code withTime} (then always one,
     * if only an empty one: the seal alone may have come). Several writes, not one: a crash between them leaves rows
     * ahead of the offsets (written later), which the restart's restore writes again.
     */
    private void writeCollected(boolean withTime) throws RocksDBException {
        long superseded = collected.superseded();
        List<byte[]> batches = new ArrayList<>(collected.serialize(RestoreBatch.MAX_BATCH_BYTES));
        if (batches.isEmpty() && withTime) {
            try (WriteBatch empty = new WriteBatch()) {
                batches.add(empty.data());
            }
        }
        ROWS_SUPERSEDED.add(collected.superseded() - superseded);
        for (int i = 0; i < batches.size(); i++) {
            try (WriteBatch batch = new WriteBatch(batches.get(i))) {
                if (withTime && i == batches.size() - 1) {
                    database.putTime(batch, time);
                }
                segments.write(batch);
            }
        }
        collected.clear();
    }

    /**
     * The store closes cleanly (its write lock held): rows still collected are written. They come from committed
     * changelog records: written rather than dropped, so that nothing (a downgrade checkpoint of Kafka Streams' own
     * restored offsets, say) can count on rows that are not there. A failure is logged: the restore starts again.
     */
    void writeBeforeClose() {
        if (collected.isEmpty() && !sealRestored && latest.isEmpty()) {
            return;
        }
        try {
            write();
        } catch (RuntimeException e) {
            LOG.warn("Could not write the restored rows of the series store in {} before closing it; its restore "
                    + "starts again from the stored changelog offsets: {}", database.dir(), e.toString());
        }
    }

    /** The stream thread writes: rows still collected are written first, and the arrays a restore grew are let go. */
    void end() {
        write();
        collected.release();
        latest.forget();
    }

    /** Nothing collected or known, and the arrays as small as when new: nothing for the stream thread to do. */
    boolean isIdle() {
        return collected.isIdle() && latest.isForgotten();
    }

    /** Whether rows wait to be written (then no segment may be dropped: they may belong to one that has expired). */
    boolean hasRows() {
        return !collected.isEmpty();
    }

    /** Forgets the collected rows (the store closes without writing them). */
    void clear() {
        collected.clear();
        latest.forget();
        sealRestored = false;
    }
}
