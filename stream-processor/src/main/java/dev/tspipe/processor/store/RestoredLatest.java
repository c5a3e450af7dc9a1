package dev.tspipe.processor.store;

import dev.tspipe.model.blocks.BlockReader;
import dev.tspipe.model.keys.RowKey;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.rocksdb.RocksDBException;

/**
 * The latest readings a restore derives from the raw chunks it merges (docs/storage.md, "Changelogs"): the commits
 * send no {@code latest} record per series, since a series' newest reading is in the chunks of its raw changelog; only
 * a series whose readings were all sealed has one (sent by the seal, {@link RollupSeal}), and the records of older
 * writers are taken too. Of all these, the reading of the newest timestamp is the series' latest, and of two of one
 * timestamp the one restored later (a correction); a table that already holds a newer one keeps it.
 *
 * <p>A chunk that inherits the tag sets of the chunk before it in its block is decoded with the sets of that chunk,
 * which this class keeps per series for its newest block; when it does not know them (the chunk before came before
 * this restore began, or the series was forgotten), the latest reading is taken from its block in the table once the
 * block's chunks are written ({@link #resolveFromBlocks}).
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
        /** The newest raw block a chunk was restored for, and the tag-sets field of its last chunk (null: not known). */
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

    /** The series of the raw block keyed {@code blockKey}. */
    Series of(byte[] blockKey) {
        Series known = series.get(blockKey);
        if (known == null) {
            known = new Series(RowKey.seriesPrefixOf(blockKey));
            series.add(known);
        }
        return known;
    }

    /** The tag-sets field of the last chunk restored for {@code series}' block that starts at {@code blockStart}, or null. */
    byte[] tagSetsBefore(Series series, long blockStart) {
        return series.block == blockStart ? series.blockTagSets : null;
    }

    /** A chunk of {@code series}' block that starts at {@code blockStart}, just merged, decoded in {@code chunk}. */
    void chunk(Series series, long blockStart, BlockReader chunk) {
        byte[] tagSets = chunk.lastTagSets();
        if (blockStart >= series.block) {
            series.block = blockStart;
            series.blockTagSets = tagSets;
        }
        int newest = chunk.size() - 1;
        long millis = chunk.timestamp(newest);
        if (millis < series.millis) {
            return;
        }
        byte[] row = chunk.rawRow(newest);
        byte[] value = ByteBuffer.allocate(8 + row.length).putLong(millis).put(row).array();
        offer(series, millis, blockStart, value, tagSets != null);
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

    boolean isEmpty() {
        return pending.isEmpty();
    }

    /** Whether a latest reading waits for its block to be written ({@link #resolveFromBlocks}). */
    boolean hasUnresolved() {
        return unresolved;
    }

    /**
     * The latest readings whose tags are known and that are as new as the table's or newer, into {@code batch}: written
     * with the rows they were restored from.
     */
    void collectKnown(RestoreBatch batch, Segments segments) throws RocksDBException {
        for (Series known : pending) {
            if (known.tagsKnown) {
                collect(known, known.value, batch, segments);
            }
        }
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
                    value = ByteBuffer.allocate(8 + row.length).putLong(known.millis).put(row).array();
                }
                collect(known, value, batch, segments);
            }
        }
        written();
    }

    /** Everything pending was collected ({@link #collectKnown} with no unresolved readings): nothing is pending. */
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
