package dev.tspipe.model.rows;

/**
 * The counters of one bucket while readings change them: the one place where a reading's effect on count, sum, min,
 * max, last and the timestamp of last is written. {@link Rollup#of} and {@link Rollup#add} go through it, and so do
 * the series store's buckets computed from raw blocks and their seal, so that a bucket computed and the same bucket
 * sealed are the same bits (docs/storage.md, "Rollups from blocks: the seal").
 *
 * <p>Mutable, unlike the model's other types: a fold over thousands of readings changes primitive fields in place,
 * with no object per reading. Not thread-safe: one writer, no readers besides it.
 */
public class RollupCounters {

    private long count;
    private double sum;
    private double min;
    private double max;
    private double last;
    private long lastEpochMillis;

    /** No reading yet ({@link #isEmpty()}). */
    public RollupCounters() {
    }

    public final boolean isEmpty() {
        return count == 0;
    }

    /** No reading any more. */
    public final void clear() {
        count = 0;
    }

    /** The bucket of a single reading. */
    public final void first(double value, long epochMillis) {
        count = 1;
        sum = value;
        min = value;
        max = value;
        last = value;
        lastEpochMillis = epochMillis;
    }

    /** One more reading; it is the last one unless an earlier-stamped reading came after it. */
    public final void add(double value, long epochMillis) {
        boolean newer = epochMillis >= lastEpochMillis;
        count = count + 1;
        sum = sum + value;
        min = Math.min(min, value);
        max = Math.max(max, value);
        if (newer) {
            last = value;
            lastEpochMillis = epochMillis;
        }
    }

    /** One more reading, or the first: what a fold over a bucket's readings, oldest first, calls for each. */
    public final void include(double value, long epochMillis) {
        if (isEmpty()) {
            first(value, epochMillis);
        } else {
            add(value, epochMillis);
        }
    }

    /** The counters of {@code rollup}'s bytes ({@link Rollup#fromBytes}), or none when {@code rollup} is null. */
    public final void setOrClear(byte[] rollup) {
        if (rollup == null) {
            clear();
        } else {
            set(Rollup.fromBytes(rollup));
        }
    }

    /** The counters of {@code rollup}. */
    public final void set(Rollup rollup) {
        count = rollup.count();
        sum = rollup.sum();
        min = rollup.min();
        max = rollup.max();
        last = rollup.last();
        lastEpochMillis = rollup.lastEpochMillis();
    }

    public final Rollup toRollup() {
        return new Rollup(count, sum, min, max, last, lastEpochMillis);
    }

    /** The size of the {@link Rollup} byte layout of these counters. */
    public final int encodedSize() {
        return Rollup.encodedSize(count, sum, min, max, last);
    }

    /** The {@link Rollup} byte layout of these counters, written at {@code out[at]}. */
    public final void encodeInto(byte[] out, int at) {
        Rollup.encode(count, sum, min, max, last, lastEpochMillis, out, at);
    }
}
