package dev.tspipe.processor.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tspipe.processor.keys.KeyLayout;
import dev.tspipe.processor.keys.RowKey;
import dev.tspipe.processor.keys.SeriesId;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The store inside a topology, with Kafka Streams' logging and caching layers on top. */
class SegmentedStoreTopologyTest {

    private static final String APP_ID = "segmented-topology-test";
    private static final SegmentedStoreSpec SPEC = SegmentedStoreSpec.of("raw-rows", Duration.ofDays(7), Duration.ofDays(1));
    private static final SeriesId SERIES = SeriesId.of("sensor-1", "temp");
    private static final long T0 = 1_700_000_000_000L;

    @TempDir
    Path stateDir;

    @Test
    void changelogConfigDeletesByTimeAndCompacts() {
        assertThat(SegmentedStores.changelogConfig(SPEC)).isEqualTo(Map.of(
                "cleanup.policy", "compact,delete",
                "retention.ms", Long.toString(Duration.ofDays(8).toMillis())));
    }

    @Test
    void putsAreReadableAndReachTheChangelog() {
        Topology topology = new Topology();
        topology.addSource("rows", new ByteArrayDeserializer(), new ByteArrayDeserializer(), "rows");
        topology.addProcessor("writer", RowWriter::new, "rows");
        topology.addStateStore(Stores.keyValueStoreBuilder(SegmentedStores.supplier(SPEC), Serdes.Bytes(), Serdes.ByteArray())
                .withLoggingEnabled(SegmentedStores.changelogConfig(SPEC))
                .withCachingEnabled(), "writer");

        Properties properties = new Properties();
        properties.put(StreamsConfig.APPLICATION_ID_CONFIG, APP_ID);
        properties.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "localhost:9092");
        properties.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString());
        properties.put(StreamsConfig.ROCKSDB_CONFIG_SETTER_CLASS_CONFIG, TspipeRocksDbConfigSetter.class);

        try (TopologyTestDriver driver = new TopologyTestDriver(topology, properties)) {
            TestInputTopic<byte[], byte[]> input = driver.createInputTopic("rows", new ByteArraySerializer(), new ByteArraySerializer());
            byte[] k1 = RowKey.encode(KeyLayout.DEFAULT, SERIES, T0);
            byte[] k2 = RowKey.encode(KeyLayout.DEFAULT, SERIES, T0 + Duration.ofDays(1).toMillis());
            input.pipeInput(k1, bytes("20.5"));
            input.pipeInput(k2, bytes("21.5"));

            KeyValueStore<Bytes, byte[]> store = driver.getKeyValueStore(SPEC.name());
            assertThat(store.get(Bytes.wrap(k1))).isEqualTo(bytes("20.5"));
            List<String> values = new ArrayList<>();
            try (KeyValueIterator<Bytes, byte[]> it = store.range(Bytes.wrap(k2), Bytes.wrap(k1))) {
                it.forEachRemaining(kv -> values.add(new String(kv.value, StandardCharsets.UTF_8)));
            }
            assertThat(values).as("newest first").containsExactly("21.5", "20.5");

            TestOutputTopic<byte[], byte[]> changelog = driver.createOutputTopic(APP_ID + "-" + SPEC.name() + "-changelog",
                    new ByteArrayDeserializer(), new ByteArrayDeserializer());
            List<KeyValue<byte[], byte[]>> logged = changelog.readKeyValuesToList();
            assertThat(logged).extracting(kv -> new String(kv.key, StandardCharsets.UTF_8) + "=" + new String(kv.value, StandardCharsets.UTF_8))
                    .containsExactly(new String(k1, StandardCharsets.UTF_8) + "=20.5", new String(k2, StandardCharsets.UTF_8) + "=21.5");
        }
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private static final class RowWriter implements Processor<byte[], byte[], Void, Void> {
        private KeyValueStore<Bytes, byte[]> store;

        @Override
        public void init(ProcessorContext<Void, Void> context) {
            store = context.getStateStore(SPEC.name());
        }

        @Override
        public void process(Record<byte[], byte[]> record) {
            store.put(Bytes.wrap(record.key()), record.value());
        }
    }
}
