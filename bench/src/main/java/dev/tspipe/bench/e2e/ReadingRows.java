package dev.tspipe.bench.e2e;

import dev.tspipe.schemas.Reading;

import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * The preloaded readings as columns, for a peer that is fed from memory rather than from the topic ({@link QuestDbTable}):
 * device, metric, event time, value and tags of each, in input order. About 28 bytes a reading, where the
 * {@link Reading}s themselves would take several times that: the strings and tag maps are the generator's own shared
 * instances (tag maps interned here in case they were not), so a row holds references, a long and a double.
 */
final class ReadingRows {

    private final String[] devices;
    private final String[] metrics;
    private final Map<String, String>[] tags;
    private final long[] timestamps;
    private final double[] values;
    private final Map<Map<String, String>, Map<String, String>> internedTags = new HashMap<>();
    private int size;

    @SuppressWarnings("unchecked")
    ReadingRows(int capacity) {
        devices = new String[capacity];
        metrics = new String[capacity];
        tags = new Map[capacity];
        timestamps = new long[capacity];
        values = new double[capacity];
    }

    void add(Reading reading) {
        devices[size] = reading.getDeviceId();
        metrics[size] = reading.getMetric();
        tags[size] = internedTags.computeIfAbsent(reading.getTags(), Map::copyOf);
        timestamps[size] = reading.getTimestamp().toEpochMilli();
        values[size] = reading.getValue();
        size++;
    }

    int size() {
        return size;
    }

    String device(int row) {
        return devices[row];
    }

    String metric(int row) {
        return metrics[row];
    }

    Map<String, String> tags(int row) {
        return tags[row];
    }

    long timestampMillis(int row) {
        return timestamps[row];
    }

    double value(int row) {
        return values[row];
    }

    /** Every tag key of the input, sorted. */
    List<String> tagKeys() {
        TreeSet<String> keys = new TreeSet<>();
        internedTags.keySet().forEach(map -> keys.addAll(map.keySet()));
        return List.copyOf(keys);
    }

    /**
     * Rows with distinct (device, metric, timestamp): what a store that keeps the last write of each key holds, as
     * QuestDB's {@code DEDUP UPSERT KEYS(ts, device, metric)} and tspipe do. Each series' timestamps are sorted
     * and counted apart.
     */
    long distinctKeys() {
        Map<String, Map<String, Integer>> ids = new HashMap<>();
        int[] series = new int[size];
        int[] count = new int[1];
        for (int row = 0; row < size; row++) {
            series[row] = ids.computeIfAbsent(devices[row], d -> new HashMap<>()).computeIfAbsent(metrics[row], m -> count[0]++);
        }
        int[] start = new int[count[0] + 1];
        for (int row = 0; row < size; row++) {
            start[series[row] + 1]++;
        }
        for (int s = 0; s < count[0]; s++) {
            start[s + 1] += start[s];
        }
        long[] bySeries = new long[size];
        int[] next = Arrays.copyOf(start, count[0]);
        for (int row = 0; row < size; row++) {
            bySeries[next[series[row]]++] = timestamps[row];
        }
        long distinct = 0;
        for (int s = 0; s < count[0]; s++) {
            Arrays.sort(bySeries, start[s], start[s + 1]);
            for (int i = start[s]; i < start[s + 1]; i++) {
                if (i == start[s] || bySeries[i] != bySeries[i - 1]) {
                    distinct++;
                }
            }
        }
        return distinct;
    }
}
