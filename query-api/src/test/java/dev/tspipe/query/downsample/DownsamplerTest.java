package dev.tspipe.query.downsample;

import dev.tspipe.model.rows.Rollup;
import dev.tspipe.processor.store.RollupStep;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

class DownsamplerTest {

    private static final long MINUTE = 60_000;
    private static final long HOUR = 60 * MINUTE;
    private static final long DAY = 24 * HOUR;

    @Test
    void aSmallSeriesByHand() {
        // Readings at 0 s, 10 s, 20 s and 70 s; buckets of 30 s over [0, 120 s).
        List<Aggregate> readings = List.of(Aggregate.reading(0, 1), Aggregate.reading(10_000, 5),
                Aggregate.reading(20_000, 3), Aggregate.reading(70_000, 10));
        assertThat(points(readings, 0, 120_000, 30_000, Fn.AVG, Fill.NONE))
                .containsExactly(new Downsampler.Point(0, 3.0), new Downsampler.Point(60_000, 10.0));
        assertThat(points(readings, 0, 120_000, 30_000, Fn.FIRST, Fill.NULL)).containsExactly(new Downsampler.Point(0, 1.0),
                new Downsampler.Point(30_000, null), new Downsampler.Point(60_000, 10.0), new Downsampler.Point(90_000, null));
        assertThat(points(readings, 0, 120_000, 30_000, Fn.LAST, Fill.PREV)).containsExactly(new Downsampler.Point(0, 3.0),
                new Downsampler.Point(30_000, 3.0), new Downsampler.Point(60_000, 10.0), new Downsampler.Point(90_000, 10.0));
        assertThat(points(readings, 0, 120_000, 30_000, Fn.MAX, Fill.LINEAR)).containsExactly(new Downsampler.Point(0, 5.0),
                new Downsampler.Point(30_000, 7.5), new Downsampler.Point(60_000, 10.0), new Downsampler.Point(90_000, null));
        assertThat(points(readings, 0, 120_000, 30_000, Fn.COUNT, Fill.NONE))
                .containsExactly(new Downsampler.Point(0, 3.0), new Downsampler.Point(60_000, 1.0));
        // Aligned 10 s later: buckets start at 10 s, 40 s, 70 s, 100 s; the first one starts before the window.
        assertThat(new Downsampler.Request(0, 120_000, 30_000, 10_000, Fn.SUM, Fill.NONE).bucketStart(0)).isEqualTo(-20_000);
        assertThat(points(readings, 0, 120_000, 30_000, 10_000, Fn.SUM, Fill.NONE)).containsExactly(
                new Downsampler.Point(-20_000, 1.0), new Downsampler.Point(10_000, 8.0), new Downsampler.Point(70_000, 10.0));
    }

    @Test
    void moreBucketsThanAnAnswerHoldsAreRefused() {
        Downsampler.Request request = new Downsampler.Request(0, 11_001 * 1_000L, 1_000, 0, Fn.AVG, Fill.NONE);
        assertThatThrownBy(() -> Downsampler.points(request, List.<Aggregate>of().iterator()))
                .hasMessage("the window holds 11001 buckets of the step; at most 11000 per answer");
        assertThat(Downsampler.points(new Downsampler.Request(0, 11_000 * 1_000L, 1_000, 0, Fn.AVG, Fill.NULL),
                List.<Aggregate>of().iterator())).hasSize(11_000);
    }

    @Test
    void theCoarsestRollupThatFitsTheStepTheAlignmentAndTheWindowIsChosen() {
        assertThat(resolution(0, DAY, 15_000, 0, Fn.AVG)).isEqualTo(Resolution.RAW);
        assertThat(resolution(0, DAY, 5 * MINUTE, 0, Fn.AVG).label()).isEqualTo("rollups-1m");
        assertThat(resolution(0, 7 * DAY, 6 * HOUR, 0, Fn.MAX).label()).isEqualTo("rollups-1h");
        assertThat(resolution(0, 28 * DAY, 7 * DAY, 0, Fn.SUM).label()).isEqualTo("rollups-1d");
        // A day aligned to UTC+2 is not a stored day: hours.
        assertThat(resolution(-2 * HOUR, 28 * DAY - 2 * HOUR, DAY, -2 * HOUR, Fn.SUM).label()).isEqualTo("rollups-1h");
        // A window that starts inside an hour: minutes.
        assertThat(resolution(30 * MINUTE, DAY, HOUR, 0, Fn.SUM).label()).isEqualTo("rollups-1m");
        assertThat(resolution(0, DAY, HOUR, 0, Fn.FIRST)).isEqualTo(Resolution.RAW);
    }

    /**
     * Seeded random series: every fn and fill, from the raw readings and from each rollup that fits, equals an oracle
     * that computes each bucket from the raw readings directly.
     */
    @Test
    void everyFnAndFillFromEverySourceEqualsTheRawOracle() {
        long seed = Long.getLong("tspipe.seed", System.nanoTime());
        Random random = new Random(seed);
        for (int round = 0; round < 40; round++) {
            TreeMap<Long, Double> raw = series(random);
            long[][] windows = {
                    {0, 3 * DAY, 15_000 * (2 + random.nextInt(19)), 1_000 * random.nextInt(15)},  // at least 30 s: 8,640 buckets
                    {0, 3 * DAY, MINUTE * (1 + random.nextInt(90)), 0},
                    {HOUR, 3 * DAY - HOUR, HOUR * (1 + random.nextInt(12)), 0},
                    {0, 3 * DAY, DAY, 0},
                    {0, 3 * DAY, DAY, -2 * HOUR},
            };
            for (long[] w : windows) {
                for (Fn fn : Fn.values()) {
                    for (Fill fill : Fill.values()) {
                        Downsampler.Request request = new Downsampler.Request(w[0], w[1], w[2], w[3], fn, fill);
                        List<Downsampler.Point> expected = oracle(raw, request);
                        String what = "seed " + seed + " (rerun with -Dtspipe.seed=" + seed + "), round " + round + ", "
                                + request;
                        assertSame(Downsampler.points(request, readings(raw, request).iterator()), expected, what + ", raw");
                        Resolution source = Resolution.choose(request);
                        if (source.rollup() != null) {
                            assertSame(Downsampler.points(request, rollups(raw, request, source.rollup()).iterator()), expected,
                                    what + ", " + source.label());
                        }
                    }
                }
            }
        }
    }

    // ---------------------------------------------------------------------------------------------

    private static TreeMap<Long, Double> series(Random random) {
        TreeMap<Long, Double> raw = new TreeMap<>();
        long t = random.nextInt(10_000);
        double value = random.nextGaussian() * 10;
        while (t < 3 * DAY) {
            raw.put(t, value);
            value += random.nextGaussian();
            // Mostly seconds to minutes apart, sometimes a gap of hours.
            t += random.nextInt(100) < 2 ? random.nextInt(6) * HOUR + 1 : 1 + random.nextInt(5 * 60_000);
        }
        return raw;
    }

    private static List<Aggregate> readings(TreeMap<Long, Double> raw, Downsampler.Request request) {
        List<Aggregate> readings = new ArrayList<>();
        raw.subMap(request.from(), request.to()).forEach((t, v) -> readings.add(Aggregate.reading(t, v)));
        return readings;
    }

    /** The rollup buckets of the window, built as the store builds them (Rollup.add in timestamp order). */
    private static List<Aggregate> rollups(TreeMap<Long, Double> raw, Downsampler.Request request, RollupStep step) {
        TreeMap<Long, Rollup> buckets = new TreeMap<>();
        raw.subMap(request.from(), request.to()).forEach((t, v) -> buckets.merge(step.bucketStart(t), Rollup.of(v, t),
                (old, single) -> old.add(v, t)));
        return buckets.entrySet().stream().map(e -> Aggregate.rollup(e.getKey(), e.getValue())).toList();
    }

    /** Each bucket straight from the raw readings in it; empty buckets by the fill's definition. */
    private static List<Downsampler.Point> oracle(TreeMap<Long, Double> raw, Downsampler.Request request) {
        List<Downsampler.Point> all = new ArrayList<>();
        for (long start = request.bucketStart(request.from()); start < request.to(); start += request.step()) {
            Map<Long, Double> in = raw.subMap(Math.max(start, request.from()), Math.min(start + request.step(), request.to()));
            Double value = null;
            if (!in.isEmpty()) {
                List<Double> values = new ArrayList<>(in.values());
                value = switch (request.fn()) {
                    case AVG -> values.stream().mapToDouble(Double::doubleValue).sum() / values.size();
                    case MIN -> values.stream().mapToDouble(Double::doubleValue).min().getAsDouble();
                    case MAX -> values.stream().mapToDouble(Double::doubleValue).max().getAsDouble();
                    case SUM -> values.stream().mapToDouble(Double::doubleValue).sum();
                    case COUNT -> (double) values.size();
                    case FIRST -> values.get(0);
                    case LAST -> values.get(values.size() - 1);
                };
            }
            all.add(new Downsampler.Point(start, value));
        }
        List<Downsampler.Point> filled = new ArrayList<>();
        for (int i = 0; i < all.size(); i++) {
            Downsampler.Point point = all.get(i);
            if (point.value() != null) {
                filled.add(point);
                continue;
            }
            Downsampler.Point before = null;
            for (int j = i - 1; j >= 0 && before == null; j--) {
                before = all.get(j).value() != null ? all.get(j) : null;
            }
            Downsampler.Point after = null;
            for (int j = i + 1; j < all.size() && after == null; j++) {
                after = all.get(j).value() != null ? all.get(j) : null;
            }
            switch (request.fill()) {
                case NONE -> { }
                case NULL -> filled.add(point);
                case PREV -> filled.add(new Downsampler.Point(point.timestamp(), before == null ? null : before.value()));
                case LINEAR -> filled.add(new Downsampler.Point(point.timestamp(), before == null || after == null ? null
                        : before.value() + (after.value() - before.value()) * (point.timestamp() - before.timestamp())
                        / (after.timestamp() - before.timestamp())));
            }
        }
        return filled;
    }

    /** Equal timestamps; values equal, within 1e-9 relative for sums of many doubles (added in another order). */
    private static void assertSame(List<Downsampler.Point> actual, List<Downsampler.Point> expected, String what) {
        assertThat(actual).as(what).hasSameSizeAs(expected);
        for (int i = 0; i < expected.size(); i++) {
            Downsampler.Point a = actual.get(i);
            Downsampler.Point e = expected.get(i);
            assertThat(a.timestamp()).as(what + ", point " + i).isEqualTo(e.timestamp());
            if (e.value() == null) {
                assertThat(a.value()).as(what + ", point " + i).isNull();
            } else {
                assertThat(a.value()).as(what + ", point " + i).isCloseTo(e.value(), within(1e-9 * Math.max(1, Math.abs(e.value()))));
            }
        }
    }

    private static List<Downsampler.Point> points(List<Aggregate> readings, long from, long to, long step, Fn fn, Fill fill) {
        return points(readings, from, to, step, 0, fn, fill);
    }

    private static List<Downsampler.Point> points(List<Aggregate> readings, long from, long to, long step, long align, Fn fn,
                                                  Fill fill) {
        return Downsampler.points(new Downsampler.Request(from, to, step, align, fn, fill), readings.iterator());
    }

    private static Resolution resolution(long from, long to, long step, long align, Fn fn) {
        return Resolution.choose(new Downsampler.Request(from, to, step, align, fn, Fill.NONE));
    }
}
