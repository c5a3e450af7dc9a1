package dev.tspipe.query.promql;

import dev.tspipe.model.rows.Rollup;
import dev.tspipe.processor.store.RollupStep;
import dev.tspipe.query.downsample.Aggregate;
import dev.tspipe.query.downsample.Resolution;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * Each function of a leaf against an oracle that follows the definition (docs/query-api.md, "Prometheus API") reading
 * by reading: the readings in {@code [t - range, t)} of each instant, and for increase the last reading before it. The
 * leaf is given what the store would give for the resolution it picks: the readings, or rollup buckets made of them.
 */
class LeafTest {

    private static final long T0 = 1_793_491_200_000L;   // 2026-11-01T00:00:00Z, a whole day
    private static final long MINUTE = 60_000;
    private static final long HOUR = 3_600_000;
    private static final SeriesSelection ALL = new SeriesSelection(List.of(), null);

    private record Reading(long timestamp, double value) {
    }

    @Test
    void everyFunctionEqualsTheOracleOnRandomSeriesAndWindows() {
        long seed = Long.getLong("tspipe.seed", System.nanoTime());
        Random random = new Random(seed);
        long[] ranges = {7_000, 30_000, MINUTE, 90_000, 5 * MINUTE, HOUR, 2 * HOUR};
        long[] steps = {10_000, 15_000, MINUTE, 5 * MINUTE, HOUR};
        int fromRollups = 0;
        for (int round = 0; round < 400; round++) {
            List<Reading> readings = series(random);
            RangeFunction function = RangeFunction.values()[random.nextInt(RangeFunction.values().length)];
            long range = ranges[random.nextInt(ranges.length)];
            long step = steps[random.nextInt(steps.length)];
            // Grafana aligns start to the step; half the rounds are not aligned at all.
            long start = T0 + (random.nextBoolean() ? random.nextInt(40) * step : random.nextInt(4 * 3_600_000));
            Instants instants = new Instants(start, start + random.nextInt(200) * step, step);
            Leaf leaf = new Leaf(function, ALL, range);
            Resolution resolution = leaf.resolution(instants);
            if (resolution.rollup() != null) {
                fromRollups++;
            }
            double[] actual = leaf.evaluate(instants, stored(readings, resolution, leaf.readFrom(instants), instants.end()),
                    function.needsReadings() ? before(readings, leaf.readFrom(instants)) : null);
            String what = "seed " + seed + ", round " + round + ": " + function + " range " + range + " step " + step
                    + " from " + resolution.label();
            TreeMap<Long, Double> byTime = asMap(readings);
            for (int i = 0; i < instants.count(); i++) {
                double expected = PromOracle.at(function.name().toLowerCase(java.util.Locale.ROOT), byTime,
                        instants.at(i), range);
                if (Double.isNaN(expected)) {
                    assertThat(actual[i]).as(what + ", instant " + i + " has no point").isNaN();
                } else {
                    assertThat(actual[i]).as(what + ", instant " + i).isCloseTo(expected,
                            within(1e-9 * Math.max(1, Math.abs(expected))));
                }
            }
        }
        assertThat(fromRollups).as("seed " + seed + ": some rounds are answered from rollups").isGreaterThan(20);
    }

    @Test
    void wholeMinuteAlignedWindowsReadTheCoarsestRollupThatFits() {
        Leaf fiveMinutes = new Leaf(RangeFunction.AVG_OVER_TIME, ALL, 5 * MINUTE);
        assertThat(fiveMinutes.resolution(new Instants(T0, T0 + HOUR, MINUTE)).label()).isEqualTo("rollups-1m");
        assertThat(fiveMinutes.resolution(new Instants(T0, T0 + HOUR, 15_000)).label()).isEqualTo("raw");
        assertThat(fiveMinutes.resolution(new Instants(T0 + 1_000, T0 + HOUR, MINUTE)).label()).isEqualTo("raw");
        Leaf hour = new Leaf(RangeFunction.MAX_OVER_TIME, ALL, HOUR);
        assertThat(hour.resolution(new Instants(T0, T0 + 24 * HOUR, HOUR)).label()).isEqualTo("rollups-1h");
        assertThat(hour.resolution(Instants.single(T0 + 7 * HOUR)).label()).isEqualTo("rollups-1h");
        Leaf day = new Leaf(RangeFunction.SUM_OVER_TIME, ALL, 24 * HOUR);
        assertThat(day.resolution(new Instants(T0, T0 + 30 * 24 * HOUR, 24 * HOUR)).label()).isEqualTo("rollups-1d");
        // A counter's resets happen between readings: rate and increase always read them.
        assertThat(new Leaf(RangeFunction.RATE, ALL, HOUR).resolution(new Instants(T0, T0 + 24 * HOUR, HOUR)))
                .isEqualTo(Resolution.RAW);
    }

    @Test
    void increaseStartsFromTheReadingBeforeTheWindowAndCountsADropAsAReset() {
        List<Aggregate> readings = List.of(Aggregate.reading(T0 + 10_000, 10), Aggregate.reading(T0 + 40_000, 25),
                Aggregate.reading(T0 + 70_000, 5), Aggregate.reading(T0 + 100_000, 12));
        Leaf increase = new Leaf(RangeFunction.INCREASE, ALL, MINUTE);
        // Windows [T0, T0+1m), [T0+1m, T0+2m): 10 -> 25 (no reading before: from the first); 25 -> 5 (reset: +5) -> 12 (+7).
        double[] values = increase.evaluate(new Instants(T0 + MINUTE, T0 + 2 * MINUTE, MINUTE), readings, null);
        assertThat(values).containsExactly(15, 12);
        // With a reading before the first window, the growth from it counts too; the windows add up to the whole.
        double[] withBefore = increase.evaluate(new Instants(T0 + MINUTE, T0 + 2 * MINUTE, MINUTE), readings,
                Aggregate.reading(T0 - 5_000, 4));
        assertThat(withBefore).containsExactly(21, 12);
        assertThat(new Leaf(RangeFunction.RATE, ALL, MINUTE).evaluate(new Instants(T0 + 2 * MINUTE, T0 + 2 * MINUTE, 1),
                readings, null)).containsExactly(12 / 60.0);
        // One reading and nothing before it: no point, as in Prometheus.
        assertThat(increase.evaluate(Instants.single(T0 + 20_000), readings.subList(0, 1), null)[0]).isNaN();
    }

    /** A series of 0 to 600 readings over 4 hours: a gauge, or a counter with resets; sometimes bursts and gaps. */
    private static List<Reading> series(Random random) {
        TreeMap<Long, Double> readings = new TreeMap<>();
        int n = random.nextInt(600);
        boolean counter = random.nextBoolean();
        double value = random.nextInt(100);
        for (int i = 0; i < n; i++) {
            long timestamp = T0 - HOUR + (random.nextInt(5) == 0 ? random.nextInt(100) * MINUTE  // on whole minutes
                    : (long) (random.nextDouble() * 6 * HOUR));
            value = counter ? (random.nextInt(30) == 0 ? random.nextInt(5) : value + random.nextInt(10))
                    : random.nextGaussian() * 50;
            readings.put(timestamp, value);
        }
        List<Reading> list = new ArrayList<>();
        readings.forEach((t, v) -> list.add(new Reading(t, v)));
        return list;
    }

    /** What the store holds for {@code [from, to)}: readings, or rollup buckets of the resolution made from them. */
    private static List<Aggregate> stored(List<Reading> readings, Resolution resolution, long from, long to) {
        List<Aggregate> stored = new ArrayList<>();
        if (resolution.rollup() == null) {
            readings.stream().filter(r -> r.timestamp >= from && r.timestamp < to)
                    .forEach(r -> stored.add(Aggregate.reading(r.timestamp, r.value)));
            return stored;
        }
        RollupStep step = resolution.rollup();
        TreeMap<Long, Rollup> buckets = new TreeMap<>();
        for (Reading r : readings) {
            long bucket = Math.floorDiv(r.timestamp, step.sizeMillis()) * step.sizeMillis();
            if (bucket >= from && bucket < to) {
                buckets.merge(bucket, Rollup.of(r.value, r.timestamp), (a, b) -> a.add(r.value, r.timestamp));
            }
        }
        buckets.forEach((start, rollup) -> stored.add(Aggregate.rollup(start, rollup)));
        return stored;
    }

    private static TreeMap<Long, Double> asMap(List<Reading> readings) {
        TreeMap<Long, Double> map = new TreeMap<>();
        readings.forEach(r -> map.put(r.timestamp, r.value));
        return map;
    }

    private static Aggregate before(List<Reading> readings, long time) {
        Reading last = null;
        for (Reading r : readings) {
            if (r.timestamp < time) {
                last = r;
            }
        }
        return last == null ? null : Aggregate.reading(last.timestamp, last.value);
    }
}
