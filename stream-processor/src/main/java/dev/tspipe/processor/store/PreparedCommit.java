package dev.tspipe.processor.store;

import org.rocksdb.RocksDBException;

/**
 * The seam between the write buffer and the commit protocol: at a flush, the buffer hands what it holds to the commit
 * that the flush prepares ({@link CommitProtocol}), which turns it into changelog records and RocksDB write batches.
 * The buffer decides what is written and in which order (key order, for the memtables); the commit protocol decides
 * how it is logged and batched, and leaves out rows that expired since they were buffered. Either side can change its
 * formats without the other: rows of a series as they were buffered ({@link #rows}) or rows of their own ({@link #row}).
 *
 * <p>Thread rule: the stream thread, within one flush.
 */
interface PreparedCommit {

    /**
     * Rows of one series in a time-keyed table other than the raw one, each keyed by {@code prefix} and its timestamp:
     * the slots of {@code rows}, their bytes in {@code bytes}, in the order buffered (a later row of a timestamp
     * replaced an earlier one in its slot). The arrays are read during the call only.
     */
    void rows(Table table, byte[] prefix, TimedRows rows, byte[] bytes) throws RocksDBException;

    /**
     * The raw rows of one series, {@code series.rows} with their bytes in {@code bytes}, as one chunk per block they
     * fall in, appended to the block. What the series' buffer knows of its open block (its chunks, the tag sets of the
     * chunk appended last) is brought up to date: a chunk of the open block whose tag sets are those of the chunk before
     * it leaves them out (docs/storage.md, "The chunk format").
     */
    void rawRows(SeriesBuffer series, byte[] bytes) throws RocksDBException;

    /**
     * The series whose prefix is {@code prefix} has moved past its raw block that starts at {@code blockStart}: the
     * block is written again as one chunk, in place of the chunks the commits appended (docs/storage.md, "Blocks"). Not
     * the seal, which folds blocks before it into the rollup tables ({@link RollupSeal}, {@link StreamTime#isSealed}).
     * Called before the series' rows of the flush, which may add to that block again (a late reading).
     */
    void rewriteLeftBlock(byte[] prefix, long blockStart) throws RocksDBException;

    /**
     * The series' open block holds many chunks: it is written again as one chunk, as {@link #rewriteLeftBlock} does, and its
     * buffer told so; nothing happens while earlier flushes are not applied (the block cannot be read whole yet).
     */
    void rewriteOpenBlock(SeriesBuffer series) throws RocksDBException;

    /**
     * The series' latest reading ({@code LatestReading} bytes) into the {@code latest} table, not its changelog: a restore
     * takes it from the raw chunks (docs/storage.md, "Changelogs").
     */
    void latest(byte[] prefix, byte[] value) throws RocksDBException;

    /** One row under {@code key}, of {@code epochMillis} (its key's time in a time-keyed table, its changelog record's). */
    void row(Table table, byte[] key, byte[] value, long epochMillis) throws RocksDBException;

    /** What a flush prepares a commit of: the writes a buffer holds, handed over in the order they are to be written. */
    @FunctionalInterface
    interface Writes {
        void writeTo(PreparedCommit commit) throws RocksDBException;
    }
}
