package dev.tspipe.processor.topology;

import dev.tspipe.model.rows.RawRow;
import dev.tspipe.processor.store.Table;
import dev.tspipe.processor.topology.BatchFixtures.Batch;
import dev.tspipe.processor.topology.BatchFixtures.Entry;
import dev.tspipe.processor.topology.BatchFixtures.EntryKind;
import dev.tspipe.processor.topology.BatchFixtures.Kind;
import dev.tspipe.processor.topology.BatchFixtures.Point;
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
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;


/**
 * Batches of readings ({@code ReadingBatch}) on the test driver: each reading judged as it would be alone, the bad
 * ones dead-lettered one by one with their index, the good ones stored; the same readings alone or in batches give
 * the same tables, byte for byte.
 */
class BatchTopologyTest extends TopologyTestBase {


    @TempDir
    Path singlesStateDir;

    /** Stream time starts at the first reading stored: one at T0 first, so that expired and future mean the same throughout. */
    private static final Reading FIRST = reading("first", "m", T0, 0.0);

    /** A batch as a producer writes it: under the subject {@code readings-dev.tspipe.schemas.ReadingBatch}. */
    private byte[] batchBytes(Batch batch) {
        AvroSerializer<Object> serializer = new AvroSerializer<>();
        serializer.configure(Map.of(AvroSerdeConfig.SCHEMA_REGISTRY_URL, "mock://" + scope,
                AvroSerdeConfig.VALUE_SUBJECT_NAME_STRATEGY, "TopicRecordNameStrategy"), false);
        return serializer.serialize(config.readingsTopic(), batch.toAvro());
    }

    @Test
    void aBatchWithBadReadingsStoresExactlyTheGoodOnesAndDeadLettersEachBadOneWithItsIndex() {
        long seed = Long.getLong("tspipe.test.seed", System.nanoTime());
        List<Batch> batches = BatchFixtures.batches(seed, 120, true, T0);
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
                    String reason = BatchFixtures.reason(entry.kind(), p.kind());
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

    /**
     * With bad readings, most batches take the generic path (a verdict per reading); without, every batch is read as
     * runs of a series' points and stored a run at a time: both store exactly what the same readings alone store.
     */
    @ParameterizedTest(name = "bad readings mixed in: {0}")
    @ValueSource(booleans = {true, false})
    void theSameReadingsAloneOrInBatchesGiveByteIdenticalTables(boolean bad) {
        long seed = Long.getLong("tspipe.test.seed", System.nanoTime());
        List<Batch> batches = BatchFixtures.batches(seed, 150, bad, T0);
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
        byte[] good = batchBytes(BatchFixtures.batches(1, 1, false, T0).get(0));
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
