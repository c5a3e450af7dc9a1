package dev.tspipe.processor.topology;

import dev.tspipe.processor.store.RollupStep;
import dev.tspipe.processor.store.SeriesStoreSpec;
import dev.tspipe.processor.store.Table;
import dev.tspipe.processor.store.TableStore;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.kstream.Branched;
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
 * readings ─► decode ─┬─ rejected ───────────────────────────────────────────────► readings-dlq
 *                     ├─ keyed by device, in its partition ───────┐
 *                     └─ other key or partition ─► key by device ─► repartition ─► decode ─┴─► ingest ─► readings-dlq
 *                                                                               (expired, future)
 * ingest owns the task's series store: raw-rows, rollups-1m, rollups-1h, rollups-1d, latest (one RocksDB, five changelogs)
 * </pre>
 *
 * Only records whose Kafka key is not their device, or that are not in the partition that
 * {@link DevicePartitioner} gives their key (a producer with another partitioner), go through the
 * repartition topic; records placed right are stored in the task that read them.
 */
public final class TspipeTopology {

    private TspipeTopology() {
    }

    /** The topology: raw rows, rollups and latest values in each task's series store. */
    public static Topology build(PipelineConfig config) {
        StreamsBuilder builder = new StreamsBuilder();
        List<String> storeNames = new ArrayList<>();
        for (StoreBuilder<?> store : stores(config)) {
            builder.addStateStore(store);
            storeNames.add(store.name());
        }

        KStream<byte[], byte[]> readings = builder.stream(config.readingsTopic(),
                Consumed.with(Serdes.ByteArray(), Serdes.ByteArray()).withName("readings"));
        Map<String, KStream<byte[], Routed>> decoded = decodeAndRoute(readings, config, "", true);

        KStream<byte[], byte[]> byDevice = decoded.get("route-other-key")
                .map((key, routed) -> KeyValue.pair(routed.deviceKey(), routed.originalValue()), Named.as("key-by-device"))
                .repartition(Repartitioned.<byte[], byte[]>as(Topics.BY_DEVICE_REPARTITION)
                        .withKeySerde(Serdes.ByteArray()).withValueSerde(Serdes.ByteArray()));
        Map<String, KStream<byte[], Routed>> redecoded = decodeAndRoute(byDevice, config, "-by-device", false);

        // After the repartition every record is keyed by its device and in its partition; the second "other-key"
        // branch is empty, and merged anyway so that no path can drop a record.
        KStream<byte[], Routed> valid = decoded.get("route-keyed-by-device")
                .merge(redecoded.get("route-by-device-keyed-by-device"), Named.as("merge-keyed"))
                .merge(redecoded.get("route-by-device-other-key"), Named.as("merge-all"));
        KStream<byte[], byte[]> ingestRejects = valid.process(() -> new IngestProcessor(config), Named.as("ingest"),
                storeNames.toArray(String[]::new));

        Produced<byte[], byte[]> toDlq = Produced.<byte[], byte[]>with(Serdes.ByteArray(), Serdes.ByteArray());
        decoded.get("route-rejected").mapValues(Routed::originalValue, Named.as("decode-rejects"))
                .to(config.dlqTopic(), toDlq.withName("dlq-decode"));
        redecoded.get("route-by-device-rejected").mapValues(Routed::originalValue, Named.as("decode-by-device-rejects"))
                .to(config.dlqTopic(), Produced.<byte[], byte[]>with(Serdes.ByteArray(), Serdes.ByteArray()).withName("dlq-decode-by-device"));
        ingestRejects.to(config.dlqTopic(), Produced.<byte[], byte[]>with(Serdes.ByteArray(), Serdes.ByteArray()).withName("dlq-ingest"));
        return builder.build();
    }

    /**
     * Decodes and splits: {@code rejected}, {@code keyed-by-device} (keyed by the device and, where
     * {@code checkPartition}, in the device's partition) and {@code other-key} (everything to re-route: another key,
     * or another partition).
     */
    private static Map<String, KStream<byte[], Routed>> decodeAndRoute(KStream<byte[], byte[]> input,
                                                                       PipelineConfig config, String suffix,
                                                                       boolean checkPartition) {
        return input.process(() -> new DecodeProcessor(config, checkPartition), Named.as("decode" + suffix))
                .split(Named.as("route" + suffix + "-"))
                .branch((key, routed) -> routed.rejected(), Branched.as("rejected"))
                .branch((key, routed) -> routed.here(), Branched.as("keyed-by-device"))
                .defaultBranch(Branched.as("other-key"));
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
}
