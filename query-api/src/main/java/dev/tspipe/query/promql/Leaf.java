package dev.tspipe.query.promql;

import dev.tspipe.processor.store.RollupStep;
import dev.tspipe.query.downsample.Aggregate;
import dev.tspipe.query.downsample.Resolution;

import java.util.Arrays;
import java.util.List;

/**
 * The part of a query that reads series: a selector and what is computed from each series' readings at each
 * instant. For an instant {@code t} the window is {@code [t - range, t)}; an empty window gives no point
 * ({@link Double#NaN} in the arrays here).
 *
 * <ul>
 *   <li>{@code avg/min/max/sum/count/last_over_time}: that of the readings in the window;</li>
 *   <li>a plain selector: the last reading in {@code [t - lookback, t)} (Prometheus' lookback, 5 minutes);</li>
 *   <li>{@code increase}: the counter's growth from the last reading before the window to the last one in it,
 *       a drop counted as a reset to zero; without a reading before the window, from the first one in it (at
 *       least two readings, as in Prometheus). No extrapolation: the increases of adjacent windows add up to
 *       the growth over both (VictoriaMetrics' definition, not Prometheus');</li>
 *   <li>{@code rate}: {@code increase} per second of the range.</li>
 * </ul>
 */
public record Leaf(RangeFunction function, SeriesSelection selection, long range) {

    /** Prometheus' default lookback of a plain selector. */
    public static final long DEFAULT_LOOKBACK_MILLIS = 300_000;

    /**
     * The resolution that answers every window exactly: the coarsest rollup whose buckets each lie in one window
     * (its size divides the range and the step, and the first window starts on one of its buckets); the raw
     * readings for {@code rate} and {@code increase}, and when no rollup fits.
     */
    public Resolution resolution(Instants instants) {
        if (function.needsReadings()) {
            return Resolution.RAW;
        }
        long grain = instants.count() == 1 ? range : gcd(range, instants.step());
        for (RollupStep step : List.of(RollupStep.DAY, RollupStep.HOUR, RollupStep.MINUTE)) {
            long size = step.sizeMillis();
            if (grain % size == 0 && Math.floorMod(instants.start() - range, size) == 0) {
                return new Resolution(step);
            }
        }
        return Resolution.RAW;
    }

    /** Where the reads of a series start: the first window's start. They end at the last instant (exclusive). */
    public long readFrom(Instants instants) {
        return instants.start() - range;
    }

    /**
     * The value at each instant.
     *
     * @param aggregates the series' readings, or rollup buckets of {@link #resolution}, of {@code [readFrom, end)}
     *                   in ascending time
     * @param before     for {@code rate} and {@code increase}: the last reading before {@code readFrom}, or null
     */
    public double[] evaluate(Instants instants, List<Aggregate> aggregates, Aggregate before) {
        double[] values = new double[instants.count()];
        Arrays.fill(values, Double.NaN);
        long[] starts = aggregates.stream().mapToLong(Aggregate::start).toArray();
        for (int i = 0; i < values.length; i++) {
            long t = instants.at(i);
            int from = firstAtOrAfter(starts, t - range);
            int to = firstAtOrAfter(starts, t);
            if (function.needsReadings()) {
                values[i] = increase(aggregates, from, to, from > 0 ? aggregates.get(from - 1) : before);
                if (function == RangeFunction.RATE) {
                    values[i] /= range / 1000.0;
                }
            } else if (from < to) {
                values[i] = overTime(aggregates, from, to);
            }
        }
        return values;
    }

    private double overTime(List<Aggregate> aggregates, int from, int to) {
        long count = 0;
        double sum = 0;
        double min = Double.POSITIVE_INFINITY;
        double max = Double.NEGATIVE_INFINITY;
        for (int i = from; i < to; i++) {
            Aggregate a = aggregates.get(i);
            count += a.count();
            sum += a.sum();
            min = Math.min(min, a.min());
            max = Math.max(max, a.max());
        }
        return switch (function) {
            case AVG_OVER_TIME -> sum / count;
            case MIN_OVER_TIME -> min;
            case MAX_OVER_TIME -> max;
            case SUM_OVER_TIME -> sum;
            case COUNT_OVER_TIME -> count;
            // Buckets and readings are disjoint and in time order: the last one holds the window's last reading.
            case LAST_OVER_TIME, SELECTOR -> aggregates.get(to - 1).last();
            case RATE, INCREASE -> throw new IllegalStateException(function + " is computed from readings");
        };
    }

    /** The growth of a counter over the readings {@code [from, to)}, from {@code baseline} (may be null). */
    private static double increase(List<Aggregate> readings, int from, int to, Aggregate baseline) {
        int first = from;
        double previous;
        if (baseline != null) {
            previous = baseline.last();
        } else if (from < to) {
            previous = readings.get(from).last();
            first = from + 1;
        } else {
            return Double.NaN;
        }
        if (first >= to) {
            return Double.NaN;
        }
        double growth = 0;
        for (int i = first; i < to; i++) {
            double value = readings.get(i).last();
            growth += value >= previous ? value - previous : value;
            previous = value;
        }
        return growth;
    }

    private static int firstAtOrAfter(long[] starts, long time) {
        int index = Arrays.binarySearch(starts, time);
        return index >= 0 ? index : -index - 1;
    }

    private static long gcd(long a, long b) {
        return b == 0 ? a : gcd(b, a % b);
    }
}
