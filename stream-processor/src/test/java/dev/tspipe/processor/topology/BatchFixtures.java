package dev.tspipe.processor.topology;

import dev.tspipe.schemas.BatchPoint;
import dev.tspipe.schemas.BatchSeries;
import dev.tspipe.schemas.Reading;
import dev.tspipe.schemas.ReadingBatch;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * Seeded batches of readings for tests, with bad readings and bad series entries of every kind mixed in, and the
 * oracle of what tspipe makes of each reading (why it is rejected, if it is).
 */
public final class BatchFixtures {

    private static final long DAY = Duration.ofDays(1).toMillis();

    private BatchFixtures() {
    }

    /** What a generated reading is, and what tspipe must make of it. */
    public enum Kind {
        GOOD(null), NAN("invalid-value"), INFINITE("invalid-value"), BEFORE_1970("invalid-timestamp"),
        EXPIRED("expired"), FUTURE("future");

        public final String reason;

        Kind(String reason) {
            this.reason = reason;
        }
    }

    /** What a generated series entry is: every point of a bad one is rejected for the entry's fault. */
    public enum EntryKind {
        GOOD(null), EMPTY_METRIC("invalid-field"), CONTROL_IN_METRIC("invalid-field"), METRIC_TOO_LONG("key-too-long");

        public final String reason;

        EntryKind(String reason) {
            this.reason = reason;
        }
    }

    public record Point(long timestamp, double value, Kind kind) {
    }

    public record Entry(String metric, Map<String, String> tags, List<Point> points, EntryKind kind) {
    }

    public record Batch(String device, List<Entry> entries) {
        public ReadingBatch toAvro() {
            List<BatchSeries> series = new ArrayList<>();
            for (Entry entry : entries) {
                series.add(BatchSeries.newBuilder().setMetric(entry.metric()).setTags(entry.tags())
                        .setPoints(entry.points().stream().map(p -> new BatchPoint(Instant.ofEpochMilli(p.timestamp()), p.value())).toList())
                        .build());
            }
            return ReadingBatch.newBuilder().setDeviceId(device).setSeries(series).build();
        }

        /** The readings in the batch's order, each as it would be sent alone. */
        public List<Reading> alone() {
            List<Reading> readings = new ArrayList<>();
            for (Entry entry : entries) {
                for (Point p : entry.points()) {
                    readings.add(Reading.newBuilder().setDeviceId(device).setMetric(entry.metric()).setTags(entry.tags())
                            .setTimestamp(Instant.ofEpochMilli(p.timestamp())).setValue(p.value()).build());
                }
            }
            return readings;
        }
    }

    /**
     * Seeded batches of a few devices: readings within an hour after t0, with duplicates and corrections of earlier
     * ones, and (when {@code bad}) bad readings and bad series entries of every kind mixed in.
     */
    public static List<Batch> batches(long seed, int count, boolean bad, long t0) {
        Random random = new Random(seed);
        List<Batch> batches = new ArrayList<>();
        List<long[]> sent = new ArrayList<>();
        for (int b = 0; b < count; b++) {
            String device = "device-" + random.nextInt(6);
            List<Entry> entries = new ArrayList<>();
            int entryCount = 1 + random.nextInt(4);
            for (int e = 0; e < entryCount; e++) {
                EntryKind entryKind = bad && random.nextInt(12) == 0 ? EntryKind.values()[1 + random.nextInt(EntryKind.values().length - 1)]
                        : EntryKind.GOOD;
                String metric = switch (entryKind) {
                    case GOOD -> "m" + random.nextInt(4);
                    case EMPTY_METRIC -> "";
                    case CONTROL_IN_METRIC -> "m\u0001" + random.nextInt(4);
                    case METRIC_TOO_LONG -> "m".repeat(1_100);
                };
                Map<String, String> tags = random.nextBoolean() ? Map.of() : Map.of("site", "s" + random.nextInt(2), "unit", "C");
                List<Point> points = new ArrayList<>();
                int pointCount = random.nextInt(8);
                for (int p = 0; p < pointCount; p++) {
                    Kind kind = bad && random.nextInt(8) == 0 ? Kind.values()[1 + random.nextInt(Kind.values().length - 1)] : Kind.GOOD;
                    long timestamp = t0 + random.nextInt(3_600) * 1_000L;
                    double value = Math.round(random.nextGaussian() * 1_000) / 10.0;
                    if (kind == Kind.GOOD && !sent.isEmpty() && random.nextInt(5) == 0) {
                        // The same series and time as an earlier reading: a duplicate, or a correction
                        long[] earlier = sent.get(random.nextInt(sent.size()));
                        timestamp = earlier[0];
                        value = random.nextBoolean() ? Double.longBitsToDouble(earlier[1]) : value + 1;
                    }
                    switch (kind) {
                        case NAN -> value = Double.NaN;
                        case INFINITE -> value = Double.NEGATIVE_INFINITY;
                        case BEFORE_1970 -> timestamp = -1_000 - random.nextInt(1_000);
                        case EXPIRED -> timestamp = t0 - 8 * DAY - random.nextInt(1_000);
                        case FUTURE -> timestamp = t0 + 5 * DAY + random.nextInt(1_000);
                        case GOOD -> sent.add(new long[] {timestamp, Double.doubleToRawLongBits(value)});
                    }
                    points.add(new Point(timestamp, value, kind));
                }
                entries.add(new Entry(metric, tags, points, entryKind));
            }
            batches.add(new Batch(device, entries));
        }
        return batches;
    }

    /**
     * Why a reading is rejected, checked in the order a single reading's are: its fields, its value, its timestamp's
     * range, its row key's length (all at decoding), then expired or future (at ingest).
     */
    public static String reason(EntryKind entry, Kind point) {
        if (entry == EntryKind.EMPTY_METRIC || entry == EntryKind.CONTROL_IN_METRIC) {
            return entry.reason;
        }
        if (point == Kind.NAN || point == Kind.INFINITE || point == Kind.BEFORE_1970) {
            return point.reason;
        }
        return entry.reason != null ? entry.reason : point.reason;
    }

}
