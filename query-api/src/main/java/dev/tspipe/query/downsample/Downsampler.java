package dev.tspipe.query.downsample;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

/**
 * Buckets of any step over a series: the readings (or stored rollup buckets) of {@code [from, to)} merged
 * into buckets of {@code step} milliseconds that start at {@code align + k * step}, one point per bucket
 * by {@link Fn}, empty buckets by {@link Fill}. Pure: the caller reads the store.
 *
 * <p>Every aggregate given must lie in one bucket (a reading always does; a rollup bucket does when the
 * step and the alignment are multiples of its size, which {@link Resolution#choose} ensures).
 */
public final class Downsampler {

    /** The most points one answer holds, as Prometheus allows. */
    public static final int MAX_POINTS = 11_000;

    /** A point: a bucket's start and its value, null for an empty bucket filled with {@link Fill#NULL} (or no neighbour). */
    public record Point(long timestamp, Double value) {
    }

    /** What is asked: the window, the buckets and what a point is. */
    public record Request(long from, long to, long step, long align, Fn fn, Fill fill) {
        public Request {
            if (step <= 0) {
                throw new IllegalArgumentException("step must be > 0, was " + step);
            }
            if (from >= to) {
                throw new IllegalArgumentException("from must be before to");
            }
        }

        /** The start of the bucket that holds {@code timestamp}. */
        public long bucketStart(long timestamp) {
            return align + Math.floorDiv(timestamp - align, step) * step;
        }

        /** How many buckets the window spans. */
        public long buckets() {
            return (bucketStart(to - 1) - bucketStart(from)) / step + 1;
        }
    }

    private Downsampler() {
    }

    /** The points of {@code request} from {@code aggregates} in ascending order of their start, each within {@code [from, to)}. */
    public static List<Point> points(Request request, Iterator<Aggregate> aggregates) {
        if (request.buckets() > MAX_POINTS) {
            throw new IllegalArgumentException("the window holds " + request.buckets() + " buckets of the step; at most "
                    + MAX_POINTS + " per answer");
        }
        List<Long> starts = new ArrayList<>();
        List<Aggregate> buckets = new ArrayList<>();
        Aggregate current = null;
        long currentStart = 0;
        while (aggregates.hasNext()) {
            Aggregate next = aggregates.next();
            long start = request.bucketStart(next.start());
            if (current != null && start == currentStart) {
                current = current.merge(next);
                continue;
            }
            if (current != null) {
                starts.add(currentStart);
                buckets.add(current);
            }
            current = next;
            currentStart = start;
        }
        if (current != null) {
            starts.add(currentStart);
            buckets.add(current);
        }
        return filled(request, starts, buckets);
    }

    private static List<Point> filled(Request request, List<Long> starts, List<Aggregate> buckets) {
        List<Point> points = new ArrayList<>();
        if (request.fill() == Fill.NONE) {
            for (int i = 0; i < buckets.size(); i++) {
                points.add(new Point(starts.get(i), request.fn().of(buckets.get(i))));
            }
            return points;
        }
        int next = 0;
        Point previous = null;
        for (long start = request.bucketStart(request.from()); start < request.to(); start += request.step()) {
            if (next < starts.size() && starts.get(next) == start) {
                previous = new Point(start, request.fn().of(buckets.get(next)));
                points.add(previous);
                next++;
                continue;
            }
            Double value = switch (request.fill()) {
                case NULL, NONE -> null;
                case PREV -> previous == null ? null : previous.value();
                case LINEAR -> previous == null || next >= starts.size() ? null
                        : interpolate(previous, starts.get(next), request.fn().of(buckets.get(next)), start);
            };
            points.add(new Point(start, value));
        }
        return points;
    }

    private static double interpolate(Point before, long afterTimestamp, double afterValue, long at) {
        double fraction = (double) (at - before.timestamp()) / (afterTimestamp - before.timestamp());
        return before.value() + (afterValue - before.value()) * fraction;
    }
}
