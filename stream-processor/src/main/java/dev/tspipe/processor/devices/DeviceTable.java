package dev.tspipe.processor.devices;

import dev.tspipe.schemas.Device;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.StoreBuilder;
import org.apache.kafka.streams.state.Stores;

import java.util.Map;

/**
 * The replicated reference table of device metadata (docs/design.md §1, rule 10; AnalyticDB's replicated tables):
 * the compacted topic {@code devices} read by every node into a global store, so that a query needs no other
 * instance to know a device's site, type or labels.
 *
 * <pre>
 * devices (compacted, every partition) ─► devices-source (its processor, DeviceTableUpdater) ─► store "devices"
 * </pre>
 *
 * <p>The store is in memory: a global store is filled from its topic at every start (its topic is its changelog),
 * and a table that has to stay small (at most {@value #MAX_ROWS} rows) costs a few MiB. Key: the device's
 * distribution key ({@link dev.tspipe.model.devices.DeviceKeys#keyOf}); value: the {@link Device} ({@link StoredDevices}, no registry needed to read it).
 */
public final class DeviceTable {

    /** The global store's name, for interactive queries. */
    public static final String STORE = "devices";
    /** The most rows a replicated table should hold (AnalyticDB's advice); above it a node logs a warning. */
    public static final int MAX_ROWS = 20_000;

    static final String SOURCE = "devices-source";

    private DeviceTable() {
    }

    /**
     * Adds the global store and the processor that keeps it to {@code builder}.
     *
     * @param topic         the devices topic
     * @param serdeSettings the Avro deserializer's settings, the registry's URL among them
     */
    public static void addTo(StreamsBuilder builder, String topic, Map<String, Object> serdeSettings) {
        Map<String, Object> settings = java.util.Collections.unmodifiableMap(new java.util.HashMap<>(serdeSettings));
        builder.addGlobalStore(storeBuilder(), topic,
                Consumed.with(Serdes.ByteArray(), Serdes.ByteArray()).withName(SOURCE),
                () -> new DeviceTableUpdater(topic, settings));
    }

    static StoreBuilder<KeyValueStore<String, Device>> storeBuilder() {
        // Global stores have no changelog of their own: the topic is theirs.
        return Stores.keyValueStoreBuilder(Stores.inMemoryKeyValueStore(STORE), Serdes.String(), StoredDevices.serde())
                .withLoggingDisabled();
    }
}
