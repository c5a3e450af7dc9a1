package dev.tspipe.processor.store;

import dev.tspipe.model.rows.Rollup;
import dev.tspipe.model.rows.RollupCounters;
import java.nio.ByteBuffer;

/**
 * The write-back buffer of one series in the {@link WriteBuffer}: what the stream thread wrote since the
 * last flush (raw rows, buckets, the latest reading), and what it knows for sure about the series'
 * stored state (its latest timestamp and the current bucket of each resolution), so that in-order
 * readings need no read from RocksDB and no map lookup: a reading either falls into the current bucket
 * or opens the next one.
 *
 * <p>Exact, not a guess: the stream thread is the only writer of its task's store, and every value here
 * is one it wrote or read. Only the stream thread touches it. A task that is closed after an aborted
 * transaction opens a new store object, so values of aborted writes are never seen again.
 */
final class SeriesBuffer {

    static final long NONE = Long.MIN_VALUE;

    final byte[] prefix;
    boolean dirty;

    /** The newest reading's timestamp; NONE if the series has none. */
    long latestMillis = NONE;
    /** Whether the latest reading changed since the last flush; then it is the row in slot {@link #latestSlot}. */
    boolean latestDirty;
    private int latestSlot;

    /**
     * The raw block of the newest chunk a flush wrote for the series, or NONE (not known since the series was loaded):
     * a flush that writes a later block writes this one again as one chunk ({@link PreparedCommit#sealBlock}).
     */
    long openBlock = NONE;

    /** Raw rows written since the last flush, in the order written (a correction replaces in place); bytes in the store's arena. */
    final TimedRows rows = new TimedRows();

    /**
     * Per resolution: the current bucket, and the dirty buckets it replaced since the last flush, encoded into the
     * store's arena (a bucket of one reading is replaced by the next reading of its series at 1-minute resolution: a
     * reference per bucket kept here would again be a reference per reading written into a long-lived object).
     */
    private final Bucket[] current = new Bucket[RollupStep.values().length];
    private final TimedRows[] parked = new TimedRows[RollupStep.values().length];

    SeriesBuffer(byte[] prefix) {
        this.prefix = prefix;
    }

    // ---------------------------------------------------------------------------------------
    // Buckets

    /** The current bucket of {@code step} if it starts at {@code start} (taking it back from the parked ones if needed), or null. */
    Bucket bucket(RollupStep step, long start, RowArena arena) {
        Bucket bucket = current[step.ordinal()];
        if (bucket != null && bucket.start == start) {
            return bucket;
        }
        // A parked bucket made current again keeps its slot: it is dirty, so it is parked again (in the same slot) before
        // another bucket becomes current, or at the flush; until then the current one is found first.
        TimedRows waiting = parked[step.ordinal()];
        int slot = waiting == null ? -1 : waiting.slotOf(start);
        if (slot < 0) {
            return null;
        }
        byte[] value = arena.copy(waiting.offset(slot), waiting.length(slot));
        Bucket taken = open(step, start, value, arena);
        taken.dirty = true;
        return taken;
    }

    /** Makes the bucket starting at {@code start} current: {@code stored} (its stored value) or empty; a dirty current one is parked. */
    Bucket open(RollupStep step, long start, byte[] stored, RowArena arena) {
        Bucket bucket = current[step.ordinal()];
        if (bucket == null) {
            bucket = new Bucket();
            current[step.ordinal()] = bucket;
        } else if (bucket.dirty) {
            park(step, bucket, arena);
        }
        bucket.load(start, stored);
        return bucket;
    }

    private TimedRows park(RollupStep step, Bucket bucket, RowArena arena) {
        TimedRows waiting = parked[step.ordinal()];
        if (waiting == null) {
            waiting = new TimedRows();
            parked[step.ordinal()] = waiting;
        }
        int length = bucket.encodedSize();
        int offset = arena.reserve(length);
        bucket.encodeInto(arena.bytes(), offset);
        waiting.put(bucket.start, offset, length);
        return waiting;
    }

    /**
     * The buckets of {@code step} to write at the flush, in the order they were first parked, the current one (if
     * dirty) parked now: their bytes in {@code arena}. Null if there are none.
     */
    TimedRows dirtyBuckets(RollupStep step, RowArena arena) {
        Bucket bucket = current[step.ordinal()];
        if (bucket != null && bucket.dirty) {
            // Encoded for the flush and parked as the others are; it stays current, and clean() forgets the parked.
            return park(step, bucket, arena);
        }
        return parked[step.ordinal()];
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
        return ByteBuffer.allocate(8 + length).putLong(latestMillis).put(arena.bytes(), rows.offset(latestSlot), length).array();
    }

    /** After a flush: nothing pending, what is known stays known. */
    void clean() {
        rows.clear();
        for (int i = 0; i < current.length; i++) {
            if (parked[i] != null) {
                parked[i].clear();
            }
            if (current[i] != null) {
                current[i].dirty = false;
            }
        }
        latestDirty = false;
        dirty = false;
    }

    /**
     * The current bucket of one resolution: where it starts, whether the flush must write it, and its counters, updated
     * in place with {@link RollupCounters}' arithmetic (the one {@link Rollup} has) and encoded only when written.
     */
    static final class Bucket extends RollupCounters {
        long start;
        boolean dirty;

        void load(long start, byte[] stored) {
            this.start = start;
            this.dirty = false;
            if (stored == null) {
                clear();
                return;
            }
            set(Rollup.fromBytes(stored));
        }
    }
}
