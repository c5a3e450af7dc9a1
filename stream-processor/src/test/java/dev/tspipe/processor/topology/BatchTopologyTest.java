package dev.tspipe.processor.topology;

import dev.tspipe.model.rows.RawRow;
import dev.tspipe.processor.store.Table;
import dev.tspipe.schemas.BatchPoint;
import dev.tspipe.schemas.BatchSeries;
import dev.tspipe.schemas.Reading;
import dev.tspipe.schemas.ReadingBatch;
import dev.tspipe.schemas.serde.AvroDeserializer;
import dev.tspipe.schemas.serde.AvroSerdeConfig;
import dev.tspipe.schemas.serde.AvroSerializer;
import dev.tspipe.schemas.serde.WireFormat;
import org.apache.avro.generic.GenericRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Batches of readings ({@code ReadingBatch}) on the test driver: each reading judged as it would be alone, the bad
 * ones dead-lettered one by one with their index, the good ones stored; the same readings alone or in batches give
 * the same tables, byte for byte.
 */
class BatchTopologyTest extends TopologyTestBase {

    private static final long DAY = Duration.ofDays(1).toMillis();

    @TempDir
    Path singlesStateDir;

    /** What a generated reading is, and what tspipe must make of it. */
    enum Kind {
        GOOD(null), NAN("invalid-value"), INFINITE("invalid-value"), BEFORE_1970("invalid-timestamp"),
        EXPIRED("expired"), FUTURE("future");

        final String reason;

        Kind(String reason) {
            this.reason = reason;
        }
    }

    /** What a generated series entry is: every point of a bad one is rejected for the entry's fault. */
    enum EntryKind {
        GOOD(null), EMPTY_METRIC("invalid-field"), CONTROL_IN_METRIC("invalid-field"), METRIC_TOO_LONG("key-too-long");

        final String reason;

        EntryKind(String reason) {
            this.reason = reason;
        }
    }

    record Point(long timestamp, double value, Kind kind) {
    }

    record Entry(String metric, Map<String, String> tags, List<Point> points, EntryKind kind) {
    }

    record Batch(String device, List<Entry> entries) {
        ReadingBatch toAvro() {
            List<BatchSeries> series = new ArrayList<>();
            for (Entry entry : entries) {
                series.add(BatchSeries.newBuilder().setMetric(entry.metric()).setTags(entry.tags())
                        .setPoints(entry.points().stream().map(p -> new BatchPoint(Instant.ofEpochMilli(p.timestamp()), p.value())).toList())
                        .build());
            }
            return ReadingBatch.newBuilder().setDeviceId(device).setSeries(series).build();
        }

        /** The readings in the batch's order, each as it would be sent alone. */
        List<Reading> alone() {
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
     * Seeded batches of a few devices: readings within an hour after T0, with duplicates and corrections of earlier
     * ones, and (when {@code bad}) bad readings and bad series entries of every kind mixed in.
     */
    static List<Batch> batches(long seed, int count, boolean bad) {
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
                    long timestamp = T0 + random.nextInt(3_600) * 1_000L;
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
                        case EXPIRED -> timestamp = T0 - 8 * DAY - random.nextInt(1_000);
                        case FUTURE -> timestamp = T0 + 2 * DAY + random.nextInt(1_000);
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

    /** Stream time starts at the first reading stored: one at T0 first, so that expired and future mean the same throughout. */
    private static final Reading FIRST = reading("first", "m", T0, 0.0);

    /** A batch as a producer writes it: under the subject {@code readings-dev.tspipe.schemas.ReadingBatch}. */
    private byte[] batchBytes(Batch batch) {
        AvroSerializer<Object> serializer = new AvroSerializer<>();
        serializer.configure(Map.of(AvroSerdeConfig.SCHEMA_REGISTRY_URL, "mock://" + scope,
                AvroSerdeConfig.VALUE_SUBJECT_NAME_STRATEGY, "TopicRecordNameStrategy"), false);
        return serializer.serialize(config.readingsTopic(), batch.toAvro());
    }

    /**
     * Why a reading is rejected, checked in the order a single reading's are: its fields, its value, its timestamp's
     * range, its row key's length (all at decoding), then expired or future (at ingest).
     */
    private static String reason(EntryKind entry, Kind point) {
        if (entry == EntryKind.EMPTY_METRIC || entry == EntryKind.CONTROL_IN_METRIC) {
            return entry.reason;
        }
        if (point == Kind.NAN || point == Kind.INFINITE || point == Kind.BEFORE_1970) {
            return point.reason;
        }
        return entry.reason != null ? entry.reason : point.reason;
    }

    @Test
    void aBatchWithBadReadingsStoresExactlyTheGoodOnesAndDeadLettersEachBadOneWithItsIndex() {
        long seed = Long.getLong("tspipe.test.seed", System.nanoTime());
        List<Batch> batches = batches(seed, 120, true);
        String where = "seed " + seed;
        send(FIRST);

        // The oracle: the last good reading of each series and time is stored; each bad one is one dead letter.
        Map<String, Object[]> stored = new TreeMap<>();
        List<String> expectedLetters = new ArrayList<>();
        long offset = 1;
        int bad = 0;
        for (Batch batch : batches) {
            readings.pipeInput(utf8(batch.device()), batchBytes(batch));
            int index = 0;
            for (Entry entry : batch.entries()) {
                for (Point p : entry.points()) {
                    String reason = reason(entry.kind(), p.kind());
                    if (reason == null) {
                        stored.put(batch.device() + "|" + entry.metric() + "|" + p.timestamp(), new Object[] {p.value(), entry.tags()});
                    } else {
                        expectedLetters.add(offset + "/" + index + " " + reason + " " + batch.device() + " " + p.timestamp());
                        bad++;
                    }
                    index++;
                }
            }
            offset++;
        }
        assertThat(bad).as(where + ": the seed mixes bad readings in").isGreaterThan(10);

        List<String> letters = new ArrayList<>();
        AvroDeserializer<Object> generic = new AvroDeserializer<>();
        generic.configure(Map.of(AvroSerdeConfig.SCHEMA_REGISTRY_URL, "mock://" + scope), false);
        while (!dlq.isEmpty()) {
            TestRecord<byte[], byte[]> letter = dlq.readRecord();
            assertThat(header(letter.headers(), DeadLetters.SOURCE_TOPIC)).isEqualTo(config.readingsTopic());
            GenericRecord alone = (GenericRecord) generic.deserialize(config.readingsTopic(), letter.value());
            assertThat(alone.getSchema().getFullName()).as(where).isEqualTo("dev.tspipe.schemas.ReadingBatch");
            List<?> series = (List<?>) alone.get("series");
            assertThat(series).as(where + ": a dead letter holds one reading").hasSize(1);
            List<?> points = (List<?>) ((GenericRecord) series.get(0)).get("points");
            assertThat(points).hasSize(1);
            letters.add(header(letter.headers(), DeadLetters.SOURCE_OFFSET) + "/" + header(letter.headers(), DeadLetters.BATCH_INDEX)
                    + " " + header(letter.headers(), DeadLetters.REASON) + " " + alone.get("deviceId")
                    + " " + ((GenericRecord) points.get(0)).get("timestamp"));
            assertThat(header(letter.headers(), DeadLetters.MESSAGE)).as(where)
                    .startsWith("reading " + header(letter.headers(), DeadLetters.BATCH_INDEX) + " of the batch");
        }
        assertThat(letters).as(where).containsExactlyInAnyOrderElementsOf(expectedLetters);

        Map<String, Object[]> actual = new TreeMap<>();
        try (KeyValueIterator<Bytes, byte[]> rows = store(Table.RAW.storeName()).all()) {
            while (rows.hasNext()) {
                KeyValue<Bytes, byte[]> row = rows.next();
                var key = dev.tspipe.model.keys.RowKey.fromBytes(row.key.get(), config.keyLayout());
                RawRow raw = RawRow.fromBytes(row.value);
                actual.put(key.series().device() + "|" + key.series().metric() + "|" + key.epochMillis(), new Object[] {raw.value(), raw.tags()});
            }
        }
        actual.remove("first|m|" + T0);
        assertThat(actual.keySet()).as(where).isEqualTo(stored.keySet());
        actual.forEach((key, row) -> assertThat(row).as(where + ": " + key).isEqualTo(stored.get(key)));
    }

    @Test
    void theSameReadingsAloneOrInBatchesGiveByteIdenticalTables() {
        long seed = Long.getLong("tspipe.test.seed", System.nanoTime());
        List<Batch> batches = batches(seed, 150, true);
        send(FIRST);
        for (Batch batch : batches) {
            readings.pipeInput(utf8(batch.device()), batchBytes(batch));
        }

        Properties props = new Properties();
        props.putAll(StreamsSettings.defaults(config));
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, "tspipe-test");
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
        props.put(StreamsConfig.STATE_DIR_CONFIG, singlesStateDir.toString());
        try (TopologyTestDriver singles = new TopologyTestDriver(TspipeTopology.build(config), props)) {
            TestInputTopic<byte[], byte[]> input = singles.createInputTopic(config.readingsTopic(), new ByteArraySerializer(),
                    new ByteArraySerializer());
            input.pipeInput(utf8(FIRST.getDeviceId()), bytes(FIRST));
            for (Batch batch : batches) {
                for (Reading reading : batch.alone()) {
                    input.pipeInput(utf8(reading.getDeviceId()), bytes(reading));
                }
            }
            Map<Table, Map<String, String>> fromBatches = tables(driver);
            Map<Table, Map<String, String>> fromSingles = tables(singles);
            assertThat(fromBatches.get(Table.RAW)).as("seed " + seed + ": readings stored").hasSizeGreaterThan(100);
            for (Table table : Table.values()) {
                assertThat(fromBatches.get(table)).as("seed " + seed + ": table " + table).isEqualTo(fromSingles.get(table));
            }
        }
    }

    /** Every row of every table, key and value in hex. */
    private static Map<Table, Map<String, String>> tables(TopologyTestDriver driver) {
        Map<Table, Map<String, String>> tables = new EnumMap<>(Table.class);
        for (Table table : Table.values()) {
            Map<String, String> rows = new LinkedHashMap<>();
            try (KeyValueIterator<Bytes, byte[]> all = driver.<Bytes, byte[]>getKeyValueStore(table.storeName()).all()) {
                all.forEachRemaining(row -> rows.put(HexFormat.of().formatHex(row.key.get()), HexFormat.of().formatHex(row.value)));
            }
            tables.put(table, rows);
        }
        return tables;
    }

    @Test
    void aBatchThatCannotBeDecodedIsOneDeadLetterWithItsBytes() {
        byte[] good = batchBytes(batches(1, 1, false).get(0));
        byte[] truncated = java.util.Arrays.copyOf(good, good.length - 3);
        readings.pipeInput(utf8("device-1"), truncated);

        TestRecord<byte[], byte[]> letter = dlq.readRecord();
        assertThat(dlq.isEmpty()).isTrue();
        assertThat(letter.value()).isEqualTo(truncated);
        assertThat(header(letter.headers(), DeadLetters.REASON)).isEqualTo("undecodable");
        assertThat(header(letter.headers(), DeadLetters.BATCH_INDEX)).isNull();
    }

    @Test
    void aBatchWithoutADeviceIsOneDeadLetterAndStoresNothing() {
        Batch batch = new Batch("", List.of(new Entry("m", Map.of(), List.of(new Point(T0, 1.0, Kind.GOOD),
                new Point(T0 + 1, 2.0, Kind.GOOD)), EntryKind.GOOD)));
        byte[] value = batchBytes(batch);
        readings.pipeInput(utf8(""), value);

        TestRecord<byte[], byte[]> letter = dlq.readRecord();
        assertThat(dlq.isEmpty()).isTrue();
        assertThat(letter.value()).as("the whole batch, its bytes unchanged").isEqualTo(value);
        assertThat(header(letter.headers(), DeadLetters.REASON)).isEqualTo("invalid-field");
        assertThat(header(letter.headers(), DeadLetters.MESSAGE)).contains("'deviceId' is empty").contains("no reading of it was stored");
        try (KeyValueIterator<Bytes, byte[]> rows = store(Table.RAW.storeName()).all()) {
            assertThat(rows.hasNext()).isFalse();
        }
    }

    @Test
    void aBatchKeyedByAGatewayIsReroutedWholeAndEachReadingCountedOnce() {
        Batch batch = new Batch("device-7", List.of(
                new Entry("temp", Map.of(), List.of(new Point(T0, 1.0, Kind.GOOD), new Point(T0 + 1_000, 2.0, Kind.GOOD)), EntryKind.GOOD),
                new Entry("rpm", Map.of("unit", "1/min"), List.of(new Point(T0, 900.0, Kind.GOOD)), EntryKind.GOOD)));
        readings.pipeInput(utf8("gateway-1"), batchBytes(batch));

        assertThat(rawRow("device-7", "temp", T0).value()).isEqualTo(1.0);
        assertThat(rawRow("device-7", "temp", T0 + 1_000).value()).isEqualTo(2.0);
        assertThat(rawRow("device-7", "rpm", T0).tags()).isEqualTo(Map.of("unit", "1/min"));
        assertThat(rollup(dev.tspipe.processor.store.RollupStep.MINUTE, "device-7", "temp", T0).count()).isEqualTo(2);
        assertThat(driver.producedTopicNames()).contains("tspipe-test-" + Topics.BY_DEVICE_REPARTITION + "-repartition");
        assertThat(metric("rerouted-total", "other-key")).as("the batch is re-routed once, as one record").isEqualTo(1.0);
        assertThat(dlq.isEmpty()).isTrue();
    }

    private double metric(String name, String tspipeId) {
        Map<String, Double> values = new HashMap<>();
        driver.metrics().forEach((metricName, metric) -> {
            if (metricName.name().equals(name) && tspipeId.equals(metricName.tags().get("tspipe-id"))) {
                values.merge(name, ((Number) metric.metricValue()).doubleValue(), Double::sum);
            }
        });
        return values.getOrDefault(name, 0.0);
    }

    @Test
    void aDeadLetterOfABatchReadingKeepsTheBatchsSchemaIdAndReadsBackAsThatReading() {
        Batch batch = new Batch("device-2", List.of(new Entry("temp", Map.of("site", "north"),
                List.of(new Point(T0, 1.0, Kind.GOOD), new Point(T0 + 1, Double.NaN, Kind.NAN)), EntryKind.GOOD)));
        byte[] value = batchBytes(batch);
        readings.pipeInput(utf8("device-2"), value);

        TestRecord<byte[], byte[]> letter = dlq.readRecord();
        assertThat(WireFormat.schemaId(letter.value())).isEqualTo(WireFormat.schemaId(value));
        assertThat(header(letter.headers(), DeadLetters.BATCH_INDEX)).isEqualTo("1");
        assertThat(header(letter.headers(), DeadLetters.REASON)).isEqualTo("invalid-value");
        assertThat(header(letter.headers(), DeadLetters.MESSAGE)).contains("series 0 'temp', point 1");
        Batch alone = new Batch("device-2", List.of(new Entry("temp", Map.of("site", "north"),
                List.of(new Point(T0 + 1, Double.NaN, Kind.NAN)), EntryKind.GOOD)));
        assertThat(letter.value()).as("the reading alone, written as the producer would have").isEqualTo(batchBytes(alone));
        assertThat(rawRow("device-2", "temp", T0).value()).isEqualTo(1.0);
    }
}
