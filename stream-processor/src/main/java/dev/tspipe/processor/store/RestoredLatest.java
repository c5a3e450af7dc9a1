package dev.tspipe.processor.store;

import dev.tspipe.model.blocks.BlockReader;
import dev.tspipe.model.keys.RowKey;
import dev.tspipe.model.rows.LatestReading;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.rocksdb.RocksDBException;

/**
 * The latest readings a restore derives from the raw chunks it collected (docs/storage.md, "Changelogs"): the commits
 * send no {@code latest} record per series, since a series' newest reading is in the chunks of its raw changelog; only
 * a series whose readings were all sealed has one (sent by the seal, {@link RollupSeal}), and the records of older
 * writers are taken too. Of all these, the reading of the newest timestamp is the series' latest, and of two of one
 * timestamp the one restored later (a correction); a table that already holds a newer one keeps it.
 *
 * <p>Found once per block and batch, not per chunk: when the collected rows are written, they are sorted, so each
 * block's chunks are together in the order they came ({@link RestoreBatch#sorted}); the chunk with the newest reading
 * is decoded again with the tag sets it may inherit: those of the nearest chunk before it in the block that writes
 * its sets out, or, if that came in an earlier batch, the sets this class kept for the series' newest block. When it
 * does not know them (that chunk was restored before a restart, or the series were forgotten), the reading's tags are
 * read from its block in the table once the block's chunks are written ({@link #resolveFromBlocks}).
 *
 * <p>Thread rule: that of {@link ChangelogRestore}, which owns it.
 */
final class RestoredLatest {

    /** Series whose tag sets and stored latest time stay known between writes; beyond it they are all forgotten. */
    static final int MAX_KNOWN_SERIES = 65_536;
    private static final long UNKNOWN = Long.MIN_VALUE + 1;

    private final SegmentReads reads;
    private final SeriesTable<Series> series = new SeriesTable<>();
    private final List<Series> pending = new ArrayList<>();
    private final BlockReader blocks = new BlockReader();
    private boolean unresolved;

    RestoredLatest(SegmentReads reads) {
        this.reads = reads;
    }

    /** What a restore knows of one series. */
    static final class Series extends SeriesTable.Entry {
        /** The newest raw block restored, and the tag-sets field of its last chunk restored (null: not known). */
        long block = StreamTime.NONE;
        byte[] blockTagSets;
        /** The latest reading's time in the table: NONE if it holds none, UNKNOWN if not read yet. */
        long storedMillis = UNKNOWN;
        /** The latest reading restored since the last write: its time (NONE: none), block, and LatestReading bytes. */
        long millis = StreamTime.NONE;
        long millisBlock;
        byte[] value;
        /** Whether {@link #value}'s tags are those of its chunk (else it has none, and its block is read). */
        boolean tagsKnown;

        Series(byte[] prefix) {
            super(prefix);
        }
    }

    /**
     * A record of the {@code latest} changelog ({@code LatestReading} bytes): a series whose readings are all sealed,
     * or one written by an older tspipe.
     */
    void record(byte[] prefix, byte[] value) {
        long millis = ByteBuffer.wrap(value).getLong();
        Series known = series.getByPrefix(prefix);
        if (known == null) {
            known = new Series(prefix);
            series.add(known);
        }
        if (millis >= known.millis) {
            offer(known, millis, StreamTime.NONE, value, true);
        }
    }

    /**
     * The latest readings of the raw chunks collected in {@code batch}, then every latest reading restored whose tags
     * are known and that is as new as the table's or newer, into {@code batch}: written with the rows they come from.
     */
    void collect(RestoreBatch batch, Segments segments) throws RocksDBException {
        int size = batch.sorted();
        for (int first = 0; first < size; ) {
            int row = batch.sortedRow(first);
            int end = first + 1;
            while (end < size && batch.sameKey(row, batch.sortedRow(end))) {
                end++;
            }
            if (batch.segmentOf(row).table == Table.RAW) {
                block(batch, first, end);
            }
            first = end;
        }
        for (Series known : pending) {
            if (known.tagsKnown) {
                collect(known, known.value, batch, segments);
            }
        }
    }

    /** The chunks of one block, at {@code [from, to)} of the batch's sorted rows, in the order they came. */
    private void block(RestoreBatch batch, int from, int to) {
        int newest = from;
        for (int p = from + 1; p < to; p++) {
            // Of two of one timestamp, the later chunk's.
            if (batch.newestMillis(batch.sortedRow(p)) >= batch.newestMillis(batch.sortedRow(newest))) {
                newest = p;
            }
        }
        byte[] key = batch.keyOf(batch.sortedRow(from));
        long blockStart = Table.RAW.timeOf(key);
        Series known = series.get(key);
        if (known == null) {
            known = new Series(RowKey.seriesPrefixOf(key));
            series.add(known);
        }
        byte[] before = known.block == blockStart ? known.blockTagSets : null;
        int row = batch.sortedRow(newest);
        BlockReader chunk = blocks.readAfter(tagSetsAt(batch, from, newest, before), batch.sourceOf(row),
                batch.offsetOf(row), batch.lengthOf(row), blockStart);
        if (blockStart >= known.block) {
            known.blockTagSets = tagSetsAt(batch, from, to - 1, before);
            known.block = blockStart;
        }
        long millis = chunk.timestamp(chunk.size() - 1);
        if (millis >= known.millis) {
            byte[] rawRow = chunk.rawRow(chunk.size() - 1);
            byte[] value = LatestReading.encode(millis, rawRow, 0, rawRow.length);
            offer(known, millis, blockStart, value, chunk.lastTagSets() != null);
        }
    }

    /**
     * The tag sets of the chunk at sorted position {@code at}, or of the chunk before it that it inherits them from: the
     * nearest at or before it (down to {@code from}) that writes its sets out, or {@code before} (the sets of the chunk
     * that came before {@code from}) if all of them inherit.
     */
    private static byte[] tagSetsAt(RestoreBatch batch, int from, int at, byte[] before) {
        for (int p = at; p >= from; p--) {
            int row = batch.sortedRow(p);
            byte[] sets = BlockReader.tagSetsField(batch.sourceOf(row), batch.offsetOf(row), batch.lengthOf(row));
            if (sets != null) {
                return sets;
            }
        }
        return before;
    }

    private void offer(Series series, long millis, long block, byte[] value, boolean tagsKnown) {
        if (series.millis == StreamTime.NONE) {
            pending.add(series);
        }
        series.millis = millis;
        series.millisBlock = block;
        series.value = value;
        series.tagsKnown = tagsKnown;
        unresolved |= !tagsKnown;
    }

    /** Whether a latest reading waits for its block to be written ({@link #resolveFromBlocks}). */
    boolean hasUnresolved() {
        return unresolved;
    }

    /** Whether a latest record of the changelog waits to be written (the raw chunks' are found at the write). */
    boolean isEmpty() {
        return pending.isEmpty();
    }

    /**
     * The others, their tags read from their block in the table, which must hold the restored chunks by now; a block
     * that is not there (expired) gives the reading as its chunk had it, without tags. Then nothing is pending.
     */
    void resolveFromBlocks(RestoreBatch batch, Segments segments) throws RocksDBException {
        for (Series known : pending) {
            if (!known.tagsKnown) {
                byte[] value = known.value;
                byte[] block = reads.storedGet(Table.RAW, RowKey.withTimestamp(known.prefix, known.millisBlock));
                int index = block == null ? -1 : blocks.read(block, known.millisBlock).indexOf(known.millis);
                if (index >= 0) {
                    byte[] row = blocks.rawRow(index);
                    value = LatestReading.encode(known.millis, row, 0, row.length);
                }
                collect(known, value, batch, segments);
            }
        }
        written();
    }

    /** Everything pending was collected: nothing is pending. */
    void written() {
        for (Series known : pending) {
            known.millis = StreamTime.NONE;
            known.value = null;
        }
        pending.clear();
        unresolved = false;
        if (series.size() > MAX_KNOWN_SERIES) {
            series.clear();
        }
    }

    private void collect(Series known, byte[] value, RestoreBatch batch, Segments segments) throws RocksDBException {
        if (known.storedMillis == UNKNOWN) {
            byte[] stored = reads.storedGet(Table.LATEST, known.prefix);
            known.storedMillis = stored == null ? StreamTime.NONE : ByteBuffer.wrap(stored).getLong();
        }
        if (known.millis >= known.storedMillis) {
            batch.put(segments.forWrite(Table.LATEST, 0), known.prefix, value, 0, value.length);
            known.storedMillis = known.millis;
        }
    }

    /** Knows nothing: nothing for the stream thread to forget. */
    boolean isForgotten() {
        return series.isEmpty() && pending.isEmpty();
    }

    /** Forgets everything (a restore batch that failed, the store closes, or the stream thread takes the task over). */
    void forget() {
        series.clear();
        pending.clear();
        unresolved = false;
    }
}
