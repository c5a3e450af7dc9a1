package dev.tspipe.processor.store;

import dev.tspipe.model.rows.LatestReading;

/**
 * The write-back buffer of one series in the {@link WriteBuffer}: what the stream thread wrote since the
 * last flush (raw rows, the latest reading), and what it knows for sure about the series' stored state (its
 * latest timestamp, its open raw block), so that in-order readings need no read from RocksDB. Buckets are not
 * kept: they are computed from the raw blocks until sealed ({@link RollupSeal}).
 *
 * <p>Exact, not a guess: the stream thread is the only writer of its task's store, and every value here
 * is one it wrote or read. Only the stream thread touches it. A task that is closed after an aborted
 * transaction opens a new store object, so values of aborted writes are never seen again.
 */
final class SeriesBuffer extends SeriesTable.Entry {

    static final long NONE = Long.MIN_VALUE;

    boolean dirty;

    /** The newest reading's timestamp; NONE if the series has none. */
    long latestMillis = NONE;
    /** Whether the latest reading changed since the last flush; then it is the row in slot {@link #latestSlot}. */
    boolean latestDirty;
    private int latestSlot;

    /**
     * The raw block of the newest chunk a flush wrote for the series, or NONE (not known since the series was loaded):
     * a flush that writes a later block writes this one again as one chunk ({@link PreparedCommit#rewriteLeftBlock}), and one
     * that finds it of many chunks too ({@link PreparedCommit#rewriteOpenBlock}).
     */
    long openBlock = NONE;
    /**
     * Chunks the stored {@link #openBlock} holds, as far as the flushes since it was known to be one chunk tell (a
     * count from 0 when it was not known): a flush writes it again as one chunk at {@link WriteBuffer#REWRITE_CHUNKS}.
     */
    int openChunks;
    /**
     * The tag sets ({@code ChunkWriter.tagSets}) of the chunk last appended to {@link #openBlock}, which is also the
     * block's last chunk in the table (a rewrite since then had the same sets); null if not known. The next chunk of the
     * open block with the same sets leaves them out.
     */
    byte[] openTagSets;

    /** Raw rows written since the last flush, in the order written (a correction replaces in place); bytes in the store's arena. */
    final TimedRows rows = new TimedRows();

    SeriesBuffer(byte[] prefix) {
        super(prefix);
    }

    /** The reading of the row in {@code slot} of {@link #rows} is the series' latest. */
    void setLatest(long epochMillis, int slot) {
        latestMillis = epochMillis;
        latestSlot = slot;
        latestDirty = true;
    }

    /** The {@code LatestReading} bytes of a dirty latest reading: the timestamp, then the row (from {@code arena}). */
    byte[] latestValue(RowArena arena) {
        int length = rows.length(latestSlot);
        return LatestReading.encode(latestMillis, arena.bytes(), rows.offset(latestSlot), length);
    }

    /** After a flush: nothing pending, what is known stays known. */
    void clean() {
        rows.clear();
        latestDirty = false;
        dirty = false;
    }
}
