package dev.tspipe.ingest;

import dev.tspipe.model.keys.DistributionKey;
import dev.tspipe.schemas.BatchPoint;
import dev.tspipe.schemas.BatchSeries;
import dev.tspipe.schemas.Reading;
import dev.tspipe.schemas.ReadingBatch;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Puts readings into {@link ReadingBatch}es (docs/schemas-and-serde.md, "ReadingBatch"): one batch per device, each
 * metric with one set of tags once, then its points.
 *
 * <p>A batch stores exactly what its readings sent one by one in the same order would store. Readings of different
 * metrics are different series, so grouping them by metric changes nothing; readings of one metric keep their order:
 * a reading joins the last entry of its metric when it has the same tags, and starts a new entry after it otherwise
 * (tags are part of a row, so the last of two readings at one time must stay the last).
 */
public final class ReadingBatches {

    private ReadingBatches() {
    }

    /**
     * One batch of {@code readings}, which must all be of one device and tenant.
     *
     * @throws IllegalArgumentException when they are not, or there are none
     */
    public static ReadingBatch of(List<Reading> readings) {
        if (readings.isEmpty()) {
            throw new IllegalArgumentException("a batch needs at least one reading");
        }
        Reading first = readings.get(0);
        List<BatchSeries.Builder> entries = new ArrayList<>();
        Map<String, BatchSeries.Builder> lastOfMetric = new HashMap<>();
        for (Reading reading : readings) {
            if (!reading.getDeviceId().equals(first.getDeviceId()) || !Objects.equals(reading.getTenant(), first.getTenant())) {
                throw new IllegalArgumentException("a batch holds readings of one device: " + key(first) + " and " + key(reading));
            }
            BatchSeries.Builder entry = lastOfMetric.get(reading.getMetric());
            if (entry == null || !entry.getTags().equals(reading.getTags())) {
                entry = BatchSeries.newBuilder().setMetric(reading.getMetric()).setTags(reading.getTags()).setPoints(new ArrayList<>());
                entries.add(entry);
                lastOfMetric.put(reading.getMetric(), entry);
            }
            entry.getPoints().add(new BatchPoint(reading.getTimestamp(), reading.getValue()));
        }
        List<BatchSeries> series = new ArrayList<>(entries.size());
        for (BatchSeries.Builder entry : entries) {
            series.add(entry.build());
        }
        return ReadingBatch.newBuilder().setDeviceId(first.getDeviceId()).setTenant(first.getTenant()).setSeries(series).build();
    }

    /**
     * {@code readings} in batches of at most {@code maxReadings}: grouped by device (and tenant) in the order devices
     * first appear, each device's readings in their order.
     */
    public static List<ReadingBatch> byDevice(List<Reading> readings, int maxReadings) {
        if (maxReadings < 1) {
            throw new IllegalArgumentException("a batch holds at least one reading, not " + maxReadings);
        }
        List<ReadingBatch> batches = new ArrayList<>();
        for (List<Reading> device : groupByDevice(readings)) {
            for (int from = 0; from < device.size(); from += maxReadings) {
                batches.add(of(device.subList(from, Math.min(device.size(), from + maxReadings))));
            }
        }
        return batches;
    }

    /** {@code readings} grouped by device (and tenant), in the order devices first appear, each device's in their order. */
    static List<List<Reading>> groupByDevice(List<Reading> readings) {
        Map<String, List<Reading>> byDevice = new LinkedHashMap<>();
        for (Reading reading : readings) {
            byDevice.computeIfAbsent(key(reading), k -> new ArrayList<>()).add(reading);
        }
        return new ArrayList<>(byDevice.values());
    }

    /** The readings of {@code batch} in its order, each as it would be sent alone. */
    public static List<Reading> readingsOf(ReadingBatch batch) {
        List<Reading> readings = new ArrayList<>();
        for (BatchSeries entry : batch.getSeries()) {
            for (BatchPoint point : entry.getPoints()) {
                readings.add(Reading.newBuilder().setDeviceId(batch.getDeviceId()).setTenant(batch.getTenant())
                        .setMetric(entry.getMetric()).setTags(entry.getTags()).setTimestamp(point.getTimestamp())
                        .setValue(point.getValue()).build());
            }
        }
        return readings;
    }

    /** How many readings {@code batch} holds. */
    public static int size(ReadingBatch batch) {
        int size = 0;
        for (BatchSeries entry : batch.getSeries()) {
            size += entry.getPoints().size();
        }
        return size;
    }

    /** The batch's latest reading time, its record's timestamp (Kafka's retention keeps the record while any reading is young). */
    static long latestMillis(ReadingBatch batch) {
        long latest = Long.MIN_VALUE;
        for (BatchSeries entry : batch.getSeries()) {
            for (BatchPoint point : entry.getPoints()) {
                latest = Math.max(latest, point.getTimestamp().toEpochMilli());
            }
        }
        return latest == Long.MIN_VALUE ? System.currentTimeMillis() : latest;
    }

    private static String key(Reading reading) {
        return DistributionKey.of(reading.getTenant(), reading.getDeviceId());
    }
}
