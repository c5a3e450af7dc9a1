package dev.tspipe.bench.faults;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * One reading the harness wrote, identified by (series, timestamp): its current value (that of the
 * last write generated) and how many of its writes are not acknowledged yet. The oracle rules keep
 * the current value the truth: a correction is generated only when no write of the point is
 * unacknowledged, and a failed write is re-sent with the value it had, which is still the current one.
 */
public final class Point {

    public final Series series;
    public final long timestamp;
    private volatile double value;
    private volatile long lastWriteNanos;
    private final AtomicInteger unacked = new AtomicInteger();

    Point(Series series, long timestamp, double value) {
        this.series = series;
        this.timestamp = timestamp;
        this.value = value;
    }

    public double value() {
        return value;
    }

    /** When the last write of this point was generated ({@link System#nanoTime()}); attributes a discrepancy to a fault. */
    long lastWriteNanos() {
        return lastWriteNanos;
    }

    boolean settled() {
        return unacked.get() == 0;
    }

    /** A write of {@code newValue} is about to be sent. */
    void written(double newValue, long nanos) {
        value = newValue;
        lastWriteNanos = nanos;
        unacked.incrementAndGet();
    }

    void acknowledged() {
        unacked.decrementAndGet();
    }
}
