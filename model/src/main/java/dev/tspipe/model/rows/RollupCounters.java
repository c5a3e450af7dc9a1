package dev.tspipe.model.rows;

/**
 * The counters of one bucket while readings change them: the one place where a reading's effect on count, sum, min,
 * max, last and the timestamp of last is written. {@link Rollup#of} and {@link Rollup#add} go through it, and so does
 * the series store's write buffer, whose current bucket of each series and resolution extends this class.
 *
 * <p>Mutable, unlike the model's other types, for that buffer: it keeps a bucket per series and resolution for the
 * whole run and updates it with every reading, so the counters are primitive fields changed in place, with no object
 * per reading (docs/storage.md, "The write path"). Not thread-safe: one writer, no readers besides it.
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

    /**
     * The reading at {@code epochMillis} changed from {@code oldValue} to {@code newValue}: exact for sum and last; min
     * and max only widen, so they are exact when the old value was neither ({@link #extremeIs}), and the caller
     * recomputes the bucket from its raw rows when it was and they still exist.
     */
    public final void replace(double oldValue, double newValue, long epochMillis) {
        sum = sum - oldValue + newValue;
        min = Math.min(min, newValue);
        max = Math.max(max, newValue);
        if (epochMillis == lastEpochMillis) {
            last = newValue;
        }
    }

    /** Whether a replaced value could have been this bucket's min or max, so that they must be recomputed. */
    public final boolean extremeIs(double value) {
        return Double.compare(value, min) == 0 || Double.compare(value, max) == 0;
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
