package dev.tspipe.processor.topology;

import dev.tspipe.processor.store.SegmentedStoreSpec;
import dev.tspipe.processor.store.LifecycleKeyValueStore;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.kstream.Branched;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.KStream;
import org.apache.kafka.streams.kstream.Named;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.kstream.Repartitioned;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.StoreBuilder;
import org.apache.kafka.streams.state.Stores;

import java.time.Duration;
import java.util.ArrayList;
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
 * ingest owns: raw-rows, rollups-1m, rollups-1h, rollups-1d, latest
 * </pre>
 *
 * Only records whose Kafka key is not their device, or that are not in the partition that
 * {@link DevicePartitioner} gives their key (a producer with another partitioner), go through the
 * repartition topic; records placed right are stored in the task that read them.
 */
public final class TspipeTopology {

    /** Where the time-segmented stores come from; the production one is {@link LifecycleKeyValueStore#builder}. */
    @FunctionalInterface
    public interface SegmentedStoreFactory {
        StoreBuilder<KeyValueStore<Bytes, byte[]>> builder(SegmentedStoreSpec spec);
    }

    private TspipeTopology() {
    }

    /** The production topology: raw rows and rollups in time-segmented RocksDB stores. */
    public static Topology build(PipelineConfig config) {
        return build(config, LifecycleKeyValueStore::builder);
    }

    /** The topology with another source of segmented stores (tests). */
    public static Topology build(PipelineConfig config, SegmentedStoreFactory segmentedStores) {
        StreamsBuilder builder = new StreamsBuilder();
        List<String> storeNames = new ArrayList<>();
        for (StoreBuilder<?> store : stores(config, segmentedStores)) {
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

    static List<StoreBuilder<KeyValueStore<Bytes, byte[]>>> stores(PipelineConfig config, SegmentedStoreFactory segmentedStores) {
        List<StoreBuilder<KeyValueStore<Bytes, byte[]>>> stores = new ArrayList<>();
        // Kafka Streams' record cache only pays where several writes to one row fall into one commit interval:
        // never for raw rows (each is written once), rarely for 1-minute buckets, almost always for hourly and
        // daily buckets and the latest value during a backfill. Elsewhere it only adds a sorted-map insert and
        // an eviction per write (docs/storage.md, "Record cache").
        stores.add(segmented(segmentedStores, StoreNames.RAW, config.rawRetentionMs(), config.rawSegmentMs())
                .withCachingDisabled());
        for (RollupStep step : RollupStep.values()) {
            StoreBuilder<KeyValueStore<Bytes, byte[]>> rollups = segmented(segmentedStores, StoreNames.rollup(step),
                    config.rollupRetentionMs(step), Math.min(step.segment().toMillis(), config.rollupRetentionMs(step)));
            stores.add(step == RollupStep.MINUTE ? rollups.withCachingDisabled() : rollups);
        }
        stores.add(Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(StoreNames.LATEST), Serdes.Bytes(), Serdes.ByteArray())
                .withCachingEnabled());
        return stores;
    }

    private static StoreBuilder<KeyValueStore<Bytes, byte[]>> segmented(SegmentedStoreFactory factory, String name,
                                                                        long retentionMs, long segmentMs) {
        return factory.builder(SegmentedStoreSpec.of(name, Duration.ofMillis(retentionMs), Duration.ofMillis(segmentMs)));
    }
}
