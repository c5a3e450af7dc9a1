package dev.tspipe.processor.devices;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.tspipe.model.devices.DeviceKeys;
import dev.tspipe.processor.topology.PipelineConfig;
import dev.tspipe.processor.topology.StreamsSettings;
import dev.tspipe.processor.topology.TspipeTopology;
import dev.tspipe.schemas.Device;
import dev.tspipe.schemas.Reading;
import dev.tspipe.schemas.registry.MockSchemaRegistry;
import dev.tspipe.schemas.serde.AvroSerdeConfig;
import dev.tspipe.schemas.serde.AvroSerializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/** The global device table of the real topology, fed through its topic: puts, updates, tombstones, bad records, the row count. */
class DeviceTableTest {

    private static final Instant REGISTERED = Instant.parse("2026-11-30T12:00:00Z");

    @TempDir
    Path stateDir;

    private final String scope = "devices-" + UUID.randomUUID();
    private TopologyTestDriver driver;
    private TestInputTopic<byte[], byte[]> topic;
    private AvroSerializer<Object> avro;
    private PipelineConfig config;
    private final ListAppender<ILoggingEvent> log = new ListAppender<>();
    private final Logger updaterLog = (Logger) LoggerFactory.getLogger(DeviceTableUpdater.class);

    @BeforeEach
    void startDriver() {
        config = new PipelineConfig(Map.of(PipelineConfig.SCHEMA_REGISTRY_URL, "mock://" + scope));
        Properties props = new Properties();
        props.putAll(StreamsSettings.defaults(config));
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, "devices-test");
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
        props.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString());
        driver = new TopologyTestDriver(TspipeTopology.build(config), props);
        topic = driver.createInputTopic(config.devicesTopic(), new ByteArraySerializer(), new ByteArraySerializer());
        avro = new AvroSerializer<>();
        avro.configure(Map.of(AvroSerdeConfig.SCHEMA_REGISTRY_URL, "mock://" + scope), false);
        log.start();
        updaterLog.addAppender(log);
    }

    @AfterEach
    void stopDriver() {
        updaterLog.detachAppender(log);
        driver.close();
        MockSchemaRegistry.dropScope(scope);
    }

    static Device device(String tenant, String id, String site, String type, Map<String, String> labels) {
        return Device.newBuilder().setId(id).setTenant(tenant).setSite(site).setType(type).setLabels(labels)
                .setRegistered(REGISTERED).build();
    }

    private void put(String key, Object value) {
        topic.pipeInput(key.getBytes(StandardCharsets.UTF_8), avro.serialize(config.devicesTopic(), value));
    }

    private void put(Device device) {
        put(DeviceKeys.keyOf(device), device);
    }

    private void delete(String key) {
        topic.pipeInput(key.getBytes(StandardCharsets.UTF_8), (byte[]) null);
    }

    private KeyValueStore<String, Device> store() {
        return driver.getKeyValueStore(DeviceTable.STORE);
    }

    private Map<String, Device> table() {
        Map<String, Device> rows = new TreeMap<>();
        try (KeyValueIterator<String, Device> all = store().all()) {
            all.forEachRemaining(row -> rows.put(row.key, row.value));
        }
        return rows;
    }

    private List<ILoggingEvent> warnings() {
        return log.list.stream().filter(event -> event.getLevel() == Level.WARN).toList();
    }

    @Test
    void aDeviceIsPutUpdatedAndDeletedByItsKey() {
        Device press = device(null, "press-1", "plant-1", "press", Map.of("line", "3"));
        put(press);
        put(device(null, "kiln-1", "plant-2", "kiln", Map.of()));
        assertThat(table()).containsOnlyKeys("kiln-1", "press-1");
        assertThat(store().get("press-1")).isEqualTo(press);

        Device moved = device(null, "press-1", "plant-2", "press", Map.of("line", "4", "firmware", "2.1"));
        put(moved);
        assertThat(store().get("press-1")).isEqualTo(moved);
        assertThat(store().approximateNumEntries()).isEqualTo(2);

        delete("press-1");
        delete("never-there");
        assertThat(table()).containsOnlyKeys("kiln-1");
        assertThat(warnings()).isEmpty();
    }

    @Test
    void aTenantsDeviceIsKeyedTenantSlashId() {
        Device acme = device("acme", "press-1", null, null, Map.of());
        put(acme);
        assertThat(table()).containsOnlyKeys("acme/press-1");
        assertThat(store().get("acme/press-1").getSite()).isNull();
    }

    @Test
    void recordsThatAreNotDevicesAreLeftOutAndTheDeviceKeepsItsVersion() {
        Device press = device(null, "press-1", "plant-1", "press", Map.of());
        put(press);
        put("press-1", device(null, "press-2", "plant-9", "press", Map.of()));     // key of another device
        topic.pipeInput("press-1".getBytes(StandardCharsets.UTF_8), avro.serialize("readings", Reading.newBuilder()
                .setDeviceId("press-1").setMetric("m").setTimestamp(REGISTERED).setValue(1).build()));   // another schema
        topic.pipeInput("press-1".getBytes(StandardCharsets.UTF_8), new byte[] {0, 0, 0, 0, 99, 1});   // unknown schema id
        topic.pipeInput("press-1".getBytes(StandardCharsets.UTF_8), new byte[] {7});                   // not the wire format
        put("", device(null, "", null, null, Map.of()));                             // no id
        topic.pipeInput(null, avro.serialize(config.devicesTopic(), press));          // no key

        assertThat(table()).containsOnly(Map.entry("press-1", press));
        assertThat(warnings()).hasSize(6);
        assertThat(warnings()).allSatisfy(event -> assertThat(event.getFormattedMessage()).startsWith("Device record"));
    }

    @Test
    void aWarningIsLoggedOnceWhenTheTableGrowsAboveTwentyThousandRowsAndAgainAfterItShrankBack() {
        for (int i = 0; i < DeviceTable.MAX_ROWS; i++) {
            put(device(null, String.format("device-%05d", i), "plant-" + i % 7, "press", Map.of()));
        }
        assertThat(warnings()).isEmpty();

        put(device(null, "device-20000", "plant-1", "press", Map.of()));
        put(device(null, "device-20001", "plant-1", "press", Map.of()));
        put(device(null, "device-00001", "plant-2", "press", Map.of()));      // an update: no new row
        assertThat(store().approximateNumEntries()).isEqualTo(DeviceTable.MAX_ROWS + 2);
        assertThat(warnings()).hasSize(1);
        assertThat(warnings().get(0).getArgumentArray()).containsExactly(DeviceTable.MAX_ROWS + 1L, DeviceTable.MAX_ROWS);

        delete("device-20000");
        delete("device-20001");
        put(device(null, "device-20002", "plant-1", "press", Map.of()));
        assertThat(warnings()).hasSize(2);
        assertThat(warnings().get(1).getArgumentArray()).containsExactly(DeviceTable.MAX_ROWS + 1L, DeviceTable.MAX_ROWS);
    }

    @Test
    void theStoredBytesReadBackAsTheDevice() {
        Map<String, String> labels = new HashMap<>(Map.of("ünit", "°C", "empty", ""));
        Device device = device("t", "Café 1", "site", "type", labels);
        byte[] bytes = StoredDevices.serde().serializer().serialize("x", device);
        assertThat(StoredDevices.serde().deserializer().deserialize("x", bytes)).isEqualTo(device);
    }
}
