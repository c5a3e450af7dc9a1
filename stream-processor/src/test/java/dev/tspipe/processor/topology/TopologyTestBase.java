package dev.tspipe.processor.topology;

import dev.tspipe.model.keys.RowKey;
import dev.tspipe.model.keys.SeriesId;
import dev.tspipe.model.rows.LatestReading;
import dev.tspipe.model.rows.RawRow;
import dev.tspipe.model.rows.Rollup;
import dev.tspipe.processor.store.RollupStep;
import dev.tspipe.processor.store.StoreNames;
import dev.tspipe.schemas.Reading;
import dev.tspipe.schemas.registry.MockSchemaRegistry;
import dev.tspipe.schemas.serde.AvroSerdeConfig;
import dev.tspipe.schemas.serde.AvroSerializer;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.state.KeyValueStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;

/** A TopologyTestDriver around tspipe's topology, with an in-process schema registry. */
abstract class TopologyTestBase {

    static final long T0 = Instant.parse("2026-11-30T12:00:00Z").toEpochMilli();

    @TempDir
    Path stateDir;

    final String scope = "topology-" + UUID.randomUUID();
    TopologyTestDriver driver;
    TestInputTopic<byte[], byte[]> readings;
    TestOutputTopic<byte[], byte[]> dlq;
    AvroSerializer<Object> avro;
    PipelineConfig config;

    /** Settings that a test class may change before the driver starts. */
    Map<String, Object> pipelineSettings() {
        return new HashMap<>();
    }


    @BeforeEach
    void startDriver() {
        Map<String, Object> settings = pipelineSettings();
        settings.put(PipelineConfig.SCHEMA_REGISTRY_URL, "mock://" + scope);
        config = new PipelineConfig(settings);
        Properties props = new Properties();
        props.putAll(StreamsSettings.defaults(config));
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, "tspipe-test");
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
        props.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString());
        driver = new TopologyTestDriver(TspipeTopology.build(config), props);
        readings = driver.createInputTopic(config.readingsTopic(), new ByteArraySerializer(), new ByteArraySerializer());
        dlq = driver.createOutputTopic(config.dlqTopic(), new ByteArrayDeserializer(), new ByteArrayDeserializer());
        avro = new AvroSerializer<>();
        avro.configure(Map.of(AvroSerdeConfig.SCHEMA_REGISTRY_URL, "mock://" + scope), false);
    }

    @AfterEach
    void stopDriver() {
        driver.close();
        MockSchemaRegistry.dropScope(scope);
    }

    static Reading reading(String device, String metric, long epochMillis, double value) {
        return Reading.newBuilder().setDeviceId(device).setMetric(metric)
                .setTimestamp(Instant.ofEpochMilli(epochMillis)).setValue(value).build();
    }

    byte[] bytes(Object value) {
        return avro.serialize(config.readingsTopic(), value);
    }

    /** Sends a reading keyed by its device, as producers do. */
    void send(Reading reading) {
        readings.pipeInput(utf8(reading.getDeviceId()), bytes(reading));
    }

    static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    KeyValueStore<Bytes, byte[]> store(String name) {
        return driver.getKeyValueStore(name);
    }

    RawRow rawRow(String device, String metric, long epochMillis) {
        byte[] bytes = store(StoreNames.RAW).get(Bytes.wrap(RowKey.encode(config.keyLayout(), SeriesId.of(device, metric), epochMillis)));
        return bytes == null ? null : RawRow.fromBytes(bytes);
    }

    Rollup rollup(RollupStep step, String device, String metric, long bucketStart) {
        byte[] bytes = store(StoreNames.rollup(step)).get(Bytes.wrap(RowKey.encodeRollup(config.keyLayout(),
                SeriesId.of(device, metric), bucketStart)));
        return bytes == null ? null : Rollup.fromBytes(bytes);
    }

    LatestReading latest(String device, String metric) {
        byte[] bytes = store(StoreNames.LATEST).get(Bytes.wrap(RowKey.seriesPrefix(config.keyLayout(), SeriesId.of(device, metric))));
        return bytes == null ? null : LatestReading.fromBytes(bytes);
    }

    static String header(Headers headers, String name) {
        return DeadLetters.text(headers, name);
    }
}
