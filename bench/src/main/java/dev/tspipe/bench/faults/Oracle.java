package dev.tspipe.bench.faults;

import java.util.Collection;
import java.util.List;
import java.util.NavigableMap;
import java.util.TreeMap;

/**
 * What tspipe should hold, computed from the readings written, independently of tspipe's code: the
 * raw rows of a series (timestamp to value) and its buckets of a given size, aligned to the epoch
 * (UTC), with count, sum, min, max and the value at the latest timestamp.
 */
public final class Oracle {

    /** The rollup steps of the query API, by label, with their sizes. */
    public enum Step {
        MINUTE("1m", 60_000L), HOUR("1h", 3_600_000L), DAY("1d", 86_400_000L);

        public final String label;
        public final long millis;

        Step(String label, long millis) {
            this.label = label;
            this.millis = millis;
        }
    }

    /** One bucket's counters; {@code last} is the value at {@code lastTimestamp}, the bucket's latest reading. */
    public record Bucket(long start, long count, double sum, double min, double max, double last, long lastTimestamp) {
    }

    private Oracle() {
    }

    /** The raw rows of one series: each point's current value, by timestamp. */
    public static NavigableMap<Long, Double> rows(Collection<Point> pointsOfOneSeries) {
        NavigableMap<Long, Double> rows = new TreeMap<>();
        for (Point point : pointsOfOneSeries) {
            if (rows.put(point.timestamp, point.value()) != null) {
                throw new IllegalStateException("two points of " + point.series + " at " + point.timestamp);
            }
        }
        return rows;
    }

    /** The buckets of {@code step} over the rows of one series, by start. */
    public static NavigableMap<Long, Bucket> buckets(NavigableMap<Long, Double> rows, long stepMillis) {
        NavigableMap<Long, Bucket> buckets = new TreeMap<>();
        rows.forEach((timestamp, value) -> {
            long start = Math.floorDiv(timestamp, stepMillis) * stepMillis;
            Bucket b = buckets.get(start);
            // Rows come in timestamp order, so the latest row of a bucket is the one added last.
            buckets.put(start, b == null
                    ? new Bucket(start, 1, value, value, value, value, timestamp)
                    : new Bucket(start, b.count() + 1, b.sum() + value, Math.min(b.min(), value), Math.max(b.max(), value),
                    value, timestamp));
        });
        return buckets;
    }

    /** What is wrong with the raw rows read back: timestamps of rows missing, with another value, or not written. */
    public record RowDiff(List<Long> lost, List<Long> wrong, List<Long> unexpected) {
    }

    public static RowDiff compareRows(NavigableMap<Long, Double> expected, NavigableMap<Long, Double> observed) {
        List<Long> lost = expected.keySet().stream().filter(t -> !observed.containsKey(t)).toList();
        List<Long> wrong = expected.entrySet().stream()
                .filter(e -> observed.containsKey(e.getKey()) && !observed.get(e.getKey()).equals(e.getValue()))
                .map(java.util.Map.Entry::getKey).toList();
        List<Long> unexpected = observed.keySet().stream().filter(t -> !expected.containsKey(t)).toList();
        return new RowDiff(lost, wrong, unexpected);
    }

    /**
     * What is wrong with the buckets read back: readings missing from the counts ({@code countLost}),
     * counted more than once ({@code countDouble}), and buckets whose count is right but whose sum,
     * min, max or last is not ({@code wrong}). {@code affected} lists the starts of all such buckets.
     */
    public record BucketDiff(long countLost, long countDouble, long wrong, List<Long> affected) {
    }

    public static BucketDiff compareBuckets(NavigableMap<Long, Bucket> expected, NavigableMap<Long, Bucket> observed) {
        long lost = 0;
        long twice = 0;
        long wrong = 0;
        TreeMap<Long, Boolean> affected = new TreeMap<>();
        for (Bucket e : expected.values()) {
            Bucket o = observed.get(e.start());
            long seen = o == null ? 0 : o.count();
            if (seen != e.count()) {
                lost += Math.max(0, e.count() - seen);
                twice += Math.max(0, seen - e.count());
                affected.put(e.start(), true);
            } else if (e.sum() != o.sum() || e.min() != o.min() || e.max() != o.max() || e.last() != o.last()
                    || e.lastTimestamp() != o.lastTimestamp()) {
                wrong++;
                affected.put(e.start(), true);
            }
        }
        for (Bucket o : observed.values()) {
            if (!expected.containsKey(o.start())) {
                twice += o.count();
                affected.put(o.start(), true);
            }
        }
        return new BucketDiff(lost, twice, wrong, List.copyOf(affected.keySet()));
    }
}
