package dev.tspipe.query.downsample;

import dev.tspipe.model.rows.Rollup;

/**
 * What is known of the readings of one span of time: count, sum, min, max, and the first and last
 * value by timestamp. A reading is the aggregate of itself; a stored rollup bucket is one whose first
 * value is not known (rollups keep the last value only).
 *
 * @param start          where the span starts (a reading's timestamp, a rollup bucket's start)
 * @param firstTimestamp the first value's timestamp, or {@link Long#MAX_VALUE} when not known
 */
public record Aggregate(long start, long count, double sum, double min, double max, double first, long firstTimestamp,
                        double last, long lastTimestamp) {

    /** One reading. */
    public static Aggregate reading(long timestamp, double value) {
        return new Aggregate(timestamp, 1, value, value, value, value, timestamp, value, timestamp);
    }

    /** A stored rollup bucket starting at {@code start}; its first value is not known. */
    public static Aggregate rollup(long start, Rollup rollup) {
        return new Aggregate(start, rollup.count(), rollup.sum(), rollup.min(), rollup.max(), Double.NaN, Long.MAX_VALUE,
                rollup.last(), rollup.lastEpochMillis());
    }

    public boolean firstKnown() {
        return firstTimestamp != Long.MAX_VALUE;
    }

    /**
     * Both spans together, as the store merges a bucket's readings: the last value is the one with the latest
     * timestamp, {@code other}'s on a tie (it came later); the first, the earliest, this one's on a tie.
     */
    Aggregate merge(Aggregate other) {
        boolean otherFirst = other.firstTimestamp < firstTimestamp;
        boolean otherLast = other.lastTimestamp >= lastTimestamp;
        return new Aggregate(Math.min(start, other.start), count + other.count, sum + other.sum, Math.min(min, other.min),
                Math.max(max, other.max), otherFirst ? other.first : first, otherFirst ? other.firstTimestamp : firstTimestamp,
                otherLast ? other.last : last, otherLast ? other.lastTimestamp : lastTimestamp);
    }
}
