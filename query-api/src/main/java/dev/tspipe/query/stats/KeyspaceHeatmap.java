package dev.tspipe.query.stats;

import dev.tspipe.query.error.ApiException;
import dev.tspipe.query.series.TimeWindow;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tspipe.model.keys.KeyLayout;
import dev.tspipe.model.keys.MalformedKeyException;
import dev.tspipe.model.keys.RowKey;
import dev.tspipe.processor.store.KeyspaceActivity.Counter;
import dev.tspipe.processor.store.KeyspaceActivity;
import dev.tspipe.processor.store.StoreNames;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.errors.InvalidStateStoreException;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.OptionalInt;
import java.util.TreeSet;

/**
 * The key-space heatmap (Bigtable's Key Visualizer): per partition, its devices in row-key order cut into a fixed
 * number of ranges of as many devices each, and per range and minute the rows written, rows read or bytes of both
 * (docs/query-api.md, "Key-space heatmap"). Each instance draws the ranges of its own active partitions from their
 * {@link KeyspaceActivity}; the instance asked merges them.
 */
final class KeyspaceHeatmap {

    static final int DEFAULT_RANGES = 16;
    static final int MAX_RANGES = 256;
    private static final int HOTTEST = 5;
    private static final byte[] ANY_METRIC = "-#".getBytes(StandardCharsets.US_ASCII);

    /** What the heatmap counts. */
    enum Metric {
        WRITES, READS, BYTES;

        long of(KeyspaceActivity.DeviceCounts device, int minute) {
            return switch (this) {
                case WRITES -> device.count(minute, Counter.WRITE_ROWS);
                case READS -> device.count(minute, Counter.READ_ROWS);
                case BYTES -> device.count(minute, Counter.WRITE_BYTES) + device.count(minute, Counter.READ_BYTES);
            };
        }

        String label() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** A heatmap's parameters, with {@code from} and {@code to} on whole minutes. */
    record Request(long from, long to, Metric metric, int ranges) {

        /**
         * Without {@code from}/{@code to}: the last hour up to the end of the current minute. Rounded out to whole minutes,
         * and at most the last {@value KeyspaceActivity#MINUTES} minutes of the window.
         */
        static Request parse(String fromText, String toText, String metricText, String rangesText, long nowMs) {
            long minute = KeyspaceActivity.MINUTE_MS;
            long end = Math.floorDiv(nowMs, minute) * minute + minute;
            TimeWindow window = TimeWindow.parse(fromText, toText);
            long to = toText == null || toText.isEmpty() ? end : window.to();
            long from = fromText == null || fromText.isEmpty() ? to - KeyspaceActivity.MINUTES * minute : window.from();
            to = Math.floorDiv(to + minute - 1, minute) * minute;
            // Only the last MINUTES minutes are kept: a longer window is cut to its last ones.
            from = Math.max(Math.floorDiv(from, minute) * minute, to - KeyspaceActivity.MINUTES * minute);
            to = Math.max(to, from + minute);
            return new Request(from, to, metric(metricText), ranges(rangesText));
        }

        private static Metric metric(String text) {
            if (text == null || text.isEmpty()) {
                return Metric.WRITES;
            }
            for (Metric metric : Metric.values()) {
                if (metric.label().equals(text)) {
                    return metric;
                }
            }
            throw ApiException.badParameter("metric", "'" + text + "' is not a heatmap metric; use writes (rows written), "
                    + "reads (rows read) or bytes (bytes written and read)");
        }

        private static int ranges(String text) {
            if (text == null || text.isEmpty()) {
                return DEFAULT_RANGES;
            }
            try {
                int ranges = Integer.parseInt(text);
                if (ranges >= 1 && ranges <= MAX_RANGES) {
                    return ranges;
                }
            } catch (NumberFormatException e) {
                // refused below
            }
            throw ApiException.badParameter("ranges", "'" + text + "' is not a number of key ranges per partition from 1 to "
                    + MAX_RANGES);
        }

        /** The query string that asks another instance for the same heatmap. */
        String query() {
            return "from=" + from + "&to=" + to + "&metric=" + metric.label() + "&ranges=" + ranges;
        }
    }

    /** A range of a partition's key space: its first and last device, how many devices, and per minute its count. */
    record Range(String firstDevice, String lastDevice, int devices, long total, long[] values) {
    }

    /** One partition's ranges, in key order. */
    record PartitionRanges(int partition, List<Range> ranges) {
    }

    private final KafkaStreams streams;
    private final KeyLayout layout;

    KeyspaceHeatmap(KafkaStreams streams, KeyLayout layout) {
        this.streams = streams;
        this.layout = layout;
    }

    /** The ranges of this instance's active partitions. */
    List<PartitionRanges> local(Request request) {
        List<PartitionRanges> partitions = new ArrayList<>();
        for (int partition : LocalPartitionStatistics.activePartitions(streams)) {
            try {
                KeyspaceActivity.Window window = LocalPartitionStatistics.table(streams, StoreNames.RAW, partition)
                        .seriesStore().keyspace().window(request.from, request.to);
                partitions.add(new PartitionRanges(partition, ranges(window, request)));
            } catch (InvalidStateStoreException notHere) {
                // Migrating, or a task of another sub-topology: its owner (or nobody, then it is missing) answers.
            }
        }
        return partitions;
    }

    /** The window's devices cut into at most {@code request.ranges} ranges of as many devices each (one more for the first ones). */
    List<Range> ranges(KeyspaceActivity.Window window, Request request) {
        List<KeyspaceActivity.DeviceCounts> devices = window.devices();
        int count = Math.min(request.ranges, devices.size());
        int columns = (int) ((request.to - request.from) / KeyspaceActivity.MINUTE_MS);
        int offset = (int) ((window.startMs() - request.from) / KeyspaceActivity.MINUTE_MS);
        List<Range> ranges = new ArrayList<>(count);
        for (int r = 0; r < count; r++) {
            int first = (int) ((long) r * devices.size() / count);
            int end = (int) ((long) (r + 1) * devices.size() / count);
            long[] values = new long[columns];
            long total = 0;
            for (KeyspaceActivity.DeviceCounts device : devices.subList(first, end)) {
                for (int minute = 0; minute < window.minutes(); minute++) {
                    int column = offset + minute;
                    if (column >= 0 && column < columns) {
                        long value = request.metric.of(device, minute);
                        values[column] += value;
                        total += value;
                    }
                }
            }
            ranges.add(new Range(name(devices.get(first).devicePrefix()), name(devices.get(end - 1).devicePrefix()),
                    end - first, total, values));
        }
        return ranges;
    }

    /** A device prefix as its device, {@code tenant/device} when keys have a tenant. */
    String name(byte[] devicePrefix) {
        byte[] anyRow = RowKey.withTimestamp(concat(devicePrefix, ANY_METRIC), 0);
        try {
            return RowKey.fromBytes(anyRow, layout).series().distributionKey();
        } catch (MalformedKeyException e) {
            return new String(devicePrefix, StandardCharsets.UTF_8);
        }
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] both = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, both, a.length, b.length);
        return both;
    }

    /**
     * The answer: the partitions of every instance that answered, merged, with the minutes, the hottest ranges, the
     * largest cell, and the partitions that no instance answered for.
     */
    static ObjectNode answer(ObjectMapper json, Request request, List<JsonNode> partitions, OptionalInt partitionCount) {
        ObjectNode answer = json.createObjectNode();
        answer.put("metric", request.metric.label()).put("from", request.from).put("to", request.to)
                .put("minuteMs", KeyspaceActivity.MINUTE_MS);
        ArrayNode minutes = answer.putArray("minutes");
        for (long minute = request.from; minute < request.to; minute += KeyspaceActivity.MINUTE_MS) {
            minutes.add(minute);
        }
        List<JsonNode> sorted = new ArrayList<>(partitions);
        sorted.sort(Comparator.comparingInt(p -> p.path("partition").asInt()));
        ArrayNode ranges = answer.putArray("ranges");
        TreeSet<Integer> answered = new TreeSet<>();
        long max = 0;
        for (JsonNode partition : sorted) {
            answered.add(partition.path("partition").asInt());
            for (JsonNode range : partition.path("ranges")) {
                ObjectNode row = ranges.addObject().put("partition", partition.path("partition").asInt());
                row.setAll((ObjectNode) range);
                for (JsonNode value : range.path("values")) {
                    max = Math.max(max, value.asLong());
                }
            }
        }
        List<JsonNode> hottest = new ArrayList<>();
        ranges.forEach(hottest::add);
        hottest.removeIf(range -> range.path("total").asLong() == 0);
        hottest.sort(Comparator.comparingLong((JsonNode range) -> range.path("total").asLong()).reversed());
        ArrayNode top = answer.putArray("hottest");
        for (JsonNode range : hottest.subList(0, Math.min(HOTTEST, hottest.size()))) {
            top.addObject().put("partition", range.path("partition").asInt())
                    .put("firstDevice", range.path("firstDevice").asText()).put("lastDevice", range.path("lastDevice").asText())
                    .put("total", range.path("total").asLong());
        }
        answer.put("max", max);
        ArrayNode missing = answer.putArray("missing");
        for (int partition = 0; partition < partitionCount.orElse(0); partition++) {
            if (!answered.contains(partition)) {
                missing.add(partition);
            }
        }
        return answer;
    }
}
