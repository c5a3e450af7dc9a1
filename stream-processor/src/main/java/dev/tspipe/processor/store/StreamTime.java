package dev.tspipe.processor.store;

/**
 * A task's stream time and what it expires (docs/storage.md, "Time and expiry"): the largest raw-row timestamp
 * written or restored, and the stream time as of the last write that reached the database, by which readers expire
 * rows (they see only what was applied). A row is expired when {@code timestamp < streamTime - lifecycle} of its table.
 *
 * <p>Thread rule: advanced and published only by the thread that writes the task's store (the stream thread, or the
 * thread restoring the task: never both at once); read by any thread (both values are volatile).
 */
final class StreamTime {

    /** No raw row written or restored yet. */
    static final long NONE = Long.MIN_VALUE;

    private final SeriesStoreSpec spec;
    private volatile long current;
    private volatile long visible;

    /** Stream time as the database stored it with its last write ({@link #NONE} if never). */
    StreamTime(SeriesStoreSpec spec, long stored) {
        this.spec = spec;
        this.current = stored;
        this.visible = stored;
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

    /** Everything up to the current stream time reached the database: readers expire rows by it now. */
    void publish() {
        visible = current;
    }

    /** Whether a row is expired for the write path (by stream time including what is not committed yet). */
    boolean isExpired(Table table, long epochMillis) {
        return expiredAt(current, table, epochMillis);
    }

    /** Whether readers must not see a row: expired by stream time as of the last applied write. */
    boolean isExpiredForReaders(Table table, long epochMillis) {
        return expiredAt(visible, table, epochMillis);
    }

    /**
     * Whether readers must not see the row under {@code key} at all: for a raw block (keyed by its start), when its
     * newest possible reading has expired; readings of a block that is partly expired are left out one by one
     * ({@link #readerCutoff}).
     */
    boolean isExpiredKey(Table table, byte[] key) {
        return table.timeKeyed() && isExpiredForReaders(table, newestTimeOf(table, key));
    }

    /** Whether the row under {@code key} is all expired for the write path (a raw block: its newest possible reading). */
    boolean isExpiredKeyForWriters(Table table, byte[] key) {
        return table.timeKeyed() && isExpired(table, newestTimeOf(table, key));
    }

    /** The oldest time readers still see in {@code table} (as of the last applied write), or {@code Long.MIN_VALUE}. */
    long readerCutoff(Table table) {
        long time = visible;
        return !table.timeKeyed() || time == NONE ? Long.MIN_VALUE : time - spec.retentionMs(table);
    }

    /** The newest time a row under {@code key} holds: a raw block's last millisecond, any other row's own time. */
    private long newestTimeOf(Table table, byte[] key) {
        long millis = table.timeOf(key);
        return table == Table.RAW ? millis + spec.rawBlockMs() - 1 : millis;
    }

    private boolean expiredAt(long time, Table table, long epochMillis) {
        return table.timeKeyed() && time != NONE && epochMillis < time - spec.retentionMs(table);
    }
}
