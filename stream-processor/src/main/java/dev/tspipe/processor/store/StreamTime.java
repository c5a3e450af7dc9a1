package dev.tspipe.processor.store;

/**
 * A task's stream time and what it expires (docs/storage.md, "Time and expiry"): the largest raw-row timestamp
 * written or restored, and the stream time as of the last write that reached the database, by which readers expire
 * rows (they see only what was applied). A row is expired when {@code timestamp < streamTime - lifecycle} of its table.
 *
 * <p>And the raw table's seal ({@link RollupSeal}): the time before which the raw blocks' readings are sealed into
 * the rollup tables. Before it, a bucket's counters are the rows its table stores; from it on, they are computed from
 * the raw blocks. Writers expire raw readings by it (not by stream time: a block is kept until it is sealed), readers
 * by stream time as any other row.
 *
 * <p>Readers go by an {@link Applied} stream time and seal, the one of the write their read sees ({@link CommitView}).
 *
 * <p>Thread rule: advanced and published only by the thread that writes the task's store (the stream thread, or the
 * thread restoring the task: never both at once); read by any thread (the values are volatile).
 */
final class StreamTime {

    /** No raw row written or restored yet. */
    static final long NONE = Long.MIN_VALUE;

    private final SeriesStoreSpec spec;
    private volatile long current;
    /** Stream time as of the last flush that prepared its batches (or the last applied write): what they hold. */
    private volatile long prepared;
    private volatile long sealed;
    /** Stream time and the seal as of the last applied write. */
    private volatile Applied applied;

    /**
     * Stream time and the seal as the database stored them with its last write ({@link #NONE} if never).
     */
    StreamTime(SeriesStoreSpec spec, long stored, long storedSeal) {
        this.spec = spec;
        this.current = stored;
        this.prepared = stored;
        this.sealed = storedSeal;
        this.applied = new Applied(spec, stored, storedSeal);
    }

    /** Stream time including what is not applied yet, or {@link #NONE}. */
    long current() {
        return current;
    }

    /** A raw row at {@code epochMillis} was written or restored. */
    void advance(long epochMillis) {
        if (epochMillis > current) {
            current = epochMillis;
        }
    }

    /** Everything up to the current stream time and seal reached the database: readers go by them now. */
    void publish() {
        prepared = current;
        applied = new Applied(spec, current, sealed);
    }

    /** A flush prepared its batches: they hold the current stream time. */
    void prepared() {
        prepared = current;
    }

    /** Stream time as of the last applied write, or {@link #NONE}. */
    long visibleCurrent() {
        return applied.streamTime;
    }

    /** Stream time and the seal as of the last applied write: what a read of that write goes by. */
    Applied applied() {
        return applied;
    }

    /** The time before which raw readings are sealed into the rollup tables, including what is not applied yet, or NONE. */
    long sealed() {
        return sealed;
    }

    /** The raw readings before {@code epochMillis} are sealed into the rollup tables (a flush, or a restore). */
    void seal(long epochMillis) {
        if (epochMillis > sealed) {
            sealed = epochMillis;
        }
    }

    /**
     * What was not applied is dropped, with the buffers' readings: stream time and the seal go back to what the
     * database holds. Left as they were, an inflated stream time would have the next readings refused as expired and
     * segments dropped early, on a store object that Kafka Streams hands on instead of closing.
     */
    void dropUnapplied() {
        current = applied.streamTime;
        prepared = applied.streamTime;
        sealed = applied.sealed;
    }

    /**
     * A flush that failed, and the buffers forgot their readings: stream time goes back to what the flushes before it
     * prepared, the seal to {@code before}, what it was when the flush began.
     */
    void flushFailed(long before) {
        current = prepared;
        sealed = before;
    }

    /** Stream time and seal now, to go back to if what advances them next fails ({@link #rollBack}). */
    Mark mark() {
        return new Mark(current, sealed);
    }

    /** Back to {@code mark}: what advanced stream time or the seal since was left out (a restore batch that failed). */
    void rollBack(Mark mark) {
        current = mark.current;
        sealed = mark.sealed;
    }

    /** Stream time and seal at one moment ({@link #mark}). */
    record Mark(long current, long sealed) {
    }

    /**
     * Whether a row is expired for the write path: a raw reading when it is sealed ({@link #isSealed}); any other row by
     * stream time including what is not committed yet.
     */
    boolean isExpired(Table table, long epochMillis) {
        if (table == Table.RAW) {
            return isSealed(epochMillis);
        }
        return expiredAt(current, table, epochMillis);
    }

    /**
     * Whether a raw reading at {@code epochMillis} is before the seal: folded into the rollup tables ({@link RollupSeal}),
     * so the write path neither writes nor keeps it. (Not the rewrite of a block as one chunk, which the commit protocol
     * does to a block a series has left: {@link PreparedCommit#rewriteLeftBlock}.)
     */
    boolean isSealed(long epochMillis) {
        return sealed != NONE && epochMillis < sealed;
    }

    /** Whether all of the raw block that starts at {@code blockStart} is before the seal. */
    boolean isBlockSealed(long blockStart) {
        return isSealed(blockStart + spec.rawBlockMs() - 1);
    }

    private boolean expiredAt(long time, Table table, long epochMillis) {
        return expiredAt(spec, time, table, epochMillis);
    }

    private static boolean expiredAt(SeriesStoreSpec spec, long time, Table table, long epochMillis) {
        return table.timeKeyed() && time != NONE && epochMillis < time - spec.retentionMs(table);
    }

    /**
     * Stream time and the seal as one applied write left them (either {@link #NONE}): what readers of that write expire
     * rows by (stream time, as for any row: a raw reading too, sealed or not), and where a rollup read takes its buckets
     * from (stored before the seal, computed from the raw blocks from it on).
     */
    record Applied(SeriesStoreSpec spec, long streamTime, long sealed) {

        /** Whether readers must not see a row of {@code table} at {@code epochMillis}. */
        boolean isExpired(Table table, long epochMillis) {
            return expiredAt(spec, streamTime, table, epochMillis);
        }

        /**
         * Whether readers must not see the row under {@code key} at all: for a raw block (keyed by its start), when its
         * newest possible reading has expired; readings of a block that is partly expired are left out one by one
         * ({@link #cutoff}).
         */
        boolean isExpiredKey(Table table, byte[] key) {
            if (!table.timeKeyed()) {
                return false;
            }
            long millis = table.timeOf(key);
            return isExpired(table, table == Table.RAW ? millis + spec.rawBlockMs() - 1 : millis);
        }

        /** The oldest time readers see in {@code table}, or {@code Long.MIN_VALUE}. */
        long cutoff(Table table) {
            return !table.timeKeyed() || streamTime == NONE ? Long.MIN_VALUE : streamTime - spec.retentionMs(table);
        }
    }
}
