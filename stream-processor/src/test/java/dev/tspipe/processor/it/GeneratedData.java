package dev.tspipe.processor.it;

import dev.tspipe.model.keys.SeriesId;
import dev.tspipe.model.rows.Rollup;
import dev.tspipe.processor.store.RollupStep;
import dev.tspipe.schemas.Reading;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;

/**
 * Input for the pipeline's integration tests, and what the pipeline must make of it, computed
 * here independently of the topology: readings over many series and several days of event time,
 * with exact duplicates, corrections, mis-keyed records and bad records, in shuffled order.
 */
final class GeneratedData {

    /** One record to produce: a valid reading (maybe mis-keyed), or bad bytes with the reason expected. */
    record Input(String key, Reading reading, byte[] badValue, String expectedReason) {
        boolean bad() {
            return expectedReason != null;
        }
    }

    record Point(SeriesId series, long epochMillis) {
    }

    static final Instant START = Instant.parse("2026-11-01T00:00:00Z");

    final List<Input> inputs = new ArrayList<>();
    /** The final value of every (series, timestamp): the last one sent, in send order. */
    final Map<Point, Double> finalValues = new HashMap<>();
    final long seed;

    private GeneratedData(long seed) {
        this.seed = seed;
    }

    /**
     * @param readings    distinct (series, timestamp) points
     * @param devices     devices; each has 5 metrics
     * @param days        days of event time
     */
    static GeneratedData generate(long seed, int readings, int devices, int days) {
        GeneratedData data = new GeneratedData(seed);
        Random random = new Random(seed);
        String[] metrics = {"temperature", "humidity", "pressure", "voltage", "rssi"};
        long span = Duration.ofDays(days).toMillis();
        Set<Point> used = new HashSet<>();
        List<Input> originals = new ArrayList<>();
        while (originals.size() < readings) {
            SeriesId series = SeriesId.of(String.format("device-%04d", random.nextInt(devices)), metrics[random.nextInt(metrics.length)]);
            long timestamp = START.toEpochMilli() + (long) (random.nextDouble() * span);
            Point point = new Point(series, timestamp);
            if (!used.add(point)) {
                continue;
            }
            double value = Math.round(random.nextGaussian() * 1_000) / 10.0;
            Reading reading = Reading.newBuilder().setDeviceId(series.device()).setMetric(series.metric())
                    .setTimestamp(Instant.ofEpochMilli(timestamp)).setValue(value).build();
            // 1% are sent without the device as key: they take the repartition path.
            String key = random.nextInt(100) == 0 ? null : series.device();
            originals.add(new Input(key, reading, null, null));
        }
        List<Input> all = new ArrayList<>(originals);
        for (Input original : originals) {
            int dice = random.nextInt(1_000);
            if (dice < 50) {
                all.add(original);                                   // 5% exact duplicates
            } else if (dice < 60 && original.key() != null) {
                // Not for mis-keyed readings: they reach their task through the repartition topic, so
                // their order relative to a keyed copy is not the send order, and "last sent wins" would not hold.
                Reading corrected = Reading.newBuilder(original.reading())
                        .setValue(original.reading().getValue() + 1 + random.nextInt(100)).build();
                all.add(new Input(original.key(), corrected, null, null));   // 1% corrections
            }
        }
        int bad = readings / 200;                                    // 0.5% bad records
        for (int i = 0; i < bad; i++) {
            all.add(badRecord(random, i, metrics));
        }
        Collections.shuffle(all, random);
        data.add(all);
        return data;
    }

    /** The first {@code count} inputs, and what the pipeline must make of those alone. */
    GeneratedData prefix(int count) {
        GeneratedData prefix = new GeneratedData(seed);
        prefix.add(inputs.subList(0, count));
        return prefix;
    }

    private void add(List<Input> sent) {
        inputs.addAll(sent);
        for (Input input : sent) {
            if (!input.bad()) {
                Reading r = input.reading();
                finalValues.put(new Point(SeriesId.of(r.getDeviceId(), r.getMetric()), r.getTimestamp().toEpochMilli()), r.getValue());
            }
        }
    }

    private static Input badRecord(Random random, int i, String[] metrics) {
        long timestamp = START.toEpochMilli() + random.nextInt(1_000_000);
        return switch (i % 5) {
            case 0 -> new Input("device-bad", null, ("not avro " + i).getBytes(), "undecodable");
            case 1 -> new Input("device-bad", null, new byte[] {0, 0, 0, 0x7F, 0x7F, (byte) i}, "unknown-schema");
            case 2 -> new Input("device-bad", Reading.newBuilder().setDeviceId("device-bad").setMetric(metrics[0])
                    .setTimestamp(Instant.ofEpochMilli(timestamp)).setValue(Double.NaN).build(), null, "invalid-value");
            case 3 -> new Input("", Reading.newBuilder().setDeviceId("").setMetric(metrics[0])
                    .setTimestamp(Instant.ofEpochMilli(timestamp)).setValue(1.0).build(), null, "invalid-field");
            default -> new Input("device-bad", Reading.newBuilder().setDeviceId("device-bad").setMetric(metrics[0])
                    .setTimestamp(Instant.ofEpochMilli(-1 - i)).setValue(1.0).build(), null, "invalid-timestamp");
        };
    }

    /** The expected rollups of one resolution, by series and bucket start. */
    Map<Point, Rollup> expectedRollups(RollupStep step) {
        Map<Point, List<Map.Entry<Point, Double>>> byBucket = new HashMap<>();
        for (Map.Entry<Point, Double> entry : finalValues.entrySet()) {
            Point bucket = new Point(entry.getKey().series(), step.bucketStart(entry.getKey().epochMillis()));
            byBucket.computeIfAbsent(bucket, b -> new ArrayList<>()).add(entry);
        }
        Map<Point, Rollup> expected = new HashMap<>();
        byBucket.forEach((bucket, points) -> {
            long count = points.size();
            double sum = 0;
            double min = Double.POSITIVE_INFINITY;
            double max = Double.NEGATIVE_INFINITY;
            long lastAt = Long.MIN_VALUE;
            double last = 0;
            for (Map.Entry<Point, Double> point : points) {
                double v = point.getValue();
                sum += v;
                min = Math.min(min, v);
                max = Math.max(max, v);
                if (point.getKey().epochMillis() > lastAt) {
                    lastAt = point.getKey().epochMillis();
                    last = v;
                }
            }
            expected.put(bucket, new Rollup(count, sum, min, max, last, lastAt));
        });
        return expected;
    }

    Map<SeriesId, Point> expectedLatest() {
        Map<SeriesId, Point> latest = new HashMap<>();
        for (Point point : finalValues.keySet()) {
            latest.merge(point.series(), point, (a, b) -> a.epochMillis() >= b.epochMillis() ? a : b);
        }
        return latest;
    }

    Map<String, Long> expectedDeadLetters() {
        Map<String, Long> reasons = new HashMap<>();
        inputs.stream().filter(Input::bad).forEach(input -> reasons.merge(input.expectedReason(), 1L, Long::sum));
        return reasons;
    }

    EnumMap<RollupStep, Map<Point, Rollup>> allExpectedRollups() {
        EnumMap<RollupStep, Map<Point, Rollup>> all = new EnumMap<>(RollupStep.class);
        for (RollupStep step : RollupStep.values()) {
            all.put(step, expectedRollups(step));
        }
        return all;
    }
}
