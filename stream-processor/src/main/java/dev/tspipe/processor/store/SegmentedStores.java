package dev.tspipe.processor.store;

import java.util.Map;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.state.KeyValueBytesStoreSupplier;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * Entry points for the topology: a store supplier for {@code Stores.keyValueStoreBuilder} and the
 * matching changelog topic configuration.
 *
 * <pre>{@code
 * SegmentedStoreSpec spec = SegmentedStoreSpec.of("raw-rows", Duration.ofDays(7), Duration.ofDays(1));
 * StoreBuilder<KeyValueStore<Bytes, byte[]>> raw = Stores.keyValueStoreBuilder(
 *         SegmentedStores.supplier(spec), Serdes.Bytes(), Serdes.ByteArray())
 *     .withLoggingEnabled(SegmentedStores.changelogConfig(spec))
 *     .withCachingEnabled();
 * }</pre>
 */
public final class SegmentedStores {

    /** The metrics scope of segmented stores in Kafka Streams' store metrics. */
    public static final String METRICS_SCOPE = "tspipe-segmented";

    private SegmentedStores() {
    }

    /** A supplier of {@link SegmentedKeyValueStore}s with the given spec; each {@code get()} is a new instance. */
    public static KeyValueBytesStoreSupplier supplier(SegmentedStoreSpec spec) {
        return new Supplier(spec);
    }

    /**
     * The changelog topic configuration of a segmented store: {@code cleanup.policy=compact,delete} and
     * {@code retention.ms = retention + one segment interval}.
     *
     * <p>Why both policies: every row key is unique (it ends in the row's timestamp) and expired rows are
     * dropped with their segment, never deleted one by one, so no tombstone ever reaches the changelog and
     * compaction alone would keep every row forever. Time-based deletion removes what has expired; the
     * extra segment interval is a margin (like Kafka Streams' {@code windowstore.changelog.additional.retention.ms})
     * for the difference between the broker's clock and stream time. Compaction keeps only the last value
     * of a corrected row. Restoring from the changelog skips rows that are expired by then.
     */
    public static Map<String, String> changelogConfig(SegmentedStoreSpec spec) {
        long retentionMs = Math.addExact(spec.retentionMs(), spec.segmentIntervalMs());
        return Map.of(
                TopicConfig.CLEANUP_POLICY_CONFIG, TopicConfig.CLEANUP_POLICY_COMPACT + "," + TopicConfig.CLEANUP_POLICY_DELETE,
                TopicConfig.RETENTION_MS_CONFIG, Long.toString(retentionMs));
    }

    private record Supplier(SegmentedStoreSpec spec) implements KeyValueBytesStoreSupplier {

        @Override
        public String name() {
            return spec.name();
        }

        @Override
        public KeyValueStore<Bytes, byte[]> get() {
            return new SegmentedKeyValueStore(spec);
        }

        @Override
        public String metricsScope() {
            return METRICS_SCOPE;
        }
    }
}
