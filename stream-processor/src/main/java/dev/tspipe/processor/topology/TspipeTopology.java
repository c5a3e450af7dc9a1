package dev.tspipe.processor.topology;

import dev.tspipe.model.keys.DevicePartitioner;
import dev.tspipe.processor.devices.DeviceTable;
import dev.tspipe.processor.store.RollupStep;
import dev.tspipe.processor.store.SeriesStoreSpec;
import dev.tspipe.processor.store.Table;
import dev.tspipe.processor.store.TableStore;
import dev.tspipe.schemas.serde.AvroSerdeConfig;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.KStream;
import org.apache.kafka.streams.kstream.Named;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.kstream.Repartitioned;
import org.apache.kafka.streams.state.StoreBuilder;

import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * Builds tspipe's ingestion topology from its configuration: a pure function, no I/O.
 *
 * <pre>
 * readings ─► decode ─┬─ (keyed by device, in its partition: stored by decode's ingest step)
 *                     ├─ route-rejected ─────────────────────────────────────────────► readings-dlq
 *                     ├─ route-ingest-rejected (expired, future) ─────────────────────► readings-dlq
 *                     └─ route-other-key (key by device) ─► repartition ─► decode-by-device ─┬─ (stored by its ingest step)
 *                                                                                          ├─ route-by-device-rejected ─► readings-dlq
 *                                                                                          └─ route-by-device-ingest-rejected ─► readings-dlq
 * decode and decode-by-device share the task's series store: raw-rows, rollups-1m, rollups-1h, rollups-1d, latest
 * (one RocksDB, five changelogs)
 *
 * devices (compacted) ─► devices-source ─► global store "devices" on every node ({@link DeviceTable})
 * </pre>
 *
 * Only records whose Kafka key is not their device, or that are not in the partition that
 * {@link DevicePartitioner} gives their key (a producer with another partitioner), go through the
 * repartition topic; records placed right are stored in the task that read them.
 */
public final class TspipeTopology {

    /** The children of the decode steps: records rejected by decoding, records to re-route by device, records rejected by ingest. */
    static final String REJECTED = "route-rejected";
    static final String REJECTED_BY_DEVICE = "route-by-device-rejected";
    static final String OTHER_KEY = "route-other-key";
    static final String INGEST_REJECTED = "route-ingest-rejected";
    static final String INGEST_REJECTED_BY_DEVICE = "route-by-device-ingest-rejected";

    private TspipeTopology() {
    }

    /** The topology: raw rows, rollups and latest values in each task's series store; device metadata on every node. */
    public static Topology build(PipelineConfig config) {
        StreamsBuilder builder = new StreamsBuilder();
        List<String> storeNames = new ArrayList<>();
        for (StoreBuilder<?> store : stores(config)) {
            builder.addStateStore(store);
            storeNames.add(store.name());
        }

        KStream<byte[], byte[]> readings = builder.stream(config.readingsTopic(),
                Consumed.with(Serdes.ByteArray(), Serdes.ByteArray()).withName("readings"));
        // Each decode step stores the readings it accepts where they are (its IngestStep, with the stores connected to
        // it) and forwards every other record to the one child it is for: a valid reading crosses no other node.
        String[] stores = storeNames.toArray(String[]::new);
        KStream<byte[], Routed> decoded = readings.process(() -> new DecodeProcessor(config, true,
                new DecodeProcessor.Children(REJECTED, OTHER_KEY, INGEST_REJECTED)), Named.as("decode"), stores);

        KStream<byte[], byte[]> byDevice = decoded
                .map((key, routed) -> KeyValue.pair(routed.deviceKey(), routed.originalValue()), Named.as(OTHER_KEY))
                .repartition(Repartitioned.<byte[], byte[]>as(Topics.BY_DEVICE_REPARTITION)
                        .withKeySerde(Serdes.ByteArray()).withValueSerde(Serdes.ByteArray()));
        // After the repartition every record is keyed by its device and in its partition; a record that is not
        // (none) is stored anyway, so that no path can drop a record.
        KStream<byte[], Routed> redecoded = byDevice.process(() -> new DecodeProcessor(config, false,
                new DecodeProcessor.Children(REJECTED_BY_DEVICE, null, INGEST_REJECTED_BY_DEVICE)), Named.as("decode-by-device"), stores);

        toDeadLetters(decoded, REJECTED, "dlq-decode", config);
        toDeadLetters(decoded, INGEST_REJECTED, "dlq-ingest", config);
        toDeadLetters(redecoded, REJECTED_BY_DEVICE, "dlq-decode-by-device", config);
        toDeadLetters(redecoded, INGEST_REJECTED_BY_DEVICE, "dlq-ingest-by-device", config);
        DeviceTable.addTo(builder, config.devicesTopic(), devicesSerdeSettings(config));
        return builder.build();
    }

    /** The child {@code route} of a decode step, which its rejections are forwarded to, writes them to the dead-letter topic. */
    private static void toDeadLetters(KStream<byte[], Routed> step, String route, String sink, PipelineConfig config) {
        step.mapValues(Routed::originalValue, Named.as(route))
                .to(config.dlqTopic(), Produced.<byte[], byte[]>with(Serdes.ByteArray(), Serdes.ByteArray()).withName(sink));
    }

    /** The five tables of the series store, one Kafka Streams store (and changelog) each (docs/storage.md). */
    static List<StoreBuilder<TableStore>> stores(PipelineConfig config) {
        SeriesStoreSpec spec = storeSpec(config);
        List<StoreBuilder<TableStore>> stores = new ArrayList<>();
        for (Table table : Table.values()) {
            stores.add(TableStore.builder(table, spec));
        }
        return stores;
    }

    static SeriesStoreSpec storeSpec(PipelineConfig config) {
        Map<RollupStep, Duration> rollups = new EnumMap<>(RollupStep.class);
        for (RollupStep step : RollupStep.values()) {
            rollups.put(step, Duration.ofMillis(config.rollupRetentionMs(step)));
        }
        return SeriesStoreSpec.of(Duration.ofMillis(config.rawRetentionMs()), Duration.ofMillis(config.rawSegmentMs()), rollups);
    }

    /** The devices' Avro deserializer's settings: those of the configuration, with the registry's URL. */
    private static Map<String, Object> devicesSerdeSettings(PipelineConfig config) {
        Map<String, Object> settings = AvroSerdeConfig.settingsIn(config.originals());
        settings.put(AvroSerdeConfig.SCHEMA_REGISTRY_URL, config.schemaRegistryUrl());
        return settings;
    }

}
