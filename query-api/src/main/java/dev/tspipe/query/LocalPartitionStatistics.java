package dev.tspipe.query;

import dev.tspipe.processor.store.SegmentStatistics;
import dev.tspipe.processor.store.SegmentedKeyValueStore;
import dev.tspipe.processor.store.StoreLayers;
import dev.tspipe.processor.topology.RollupStep;
import dev.tspipe.processor.topology.StoreNames;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StoreQueryParameters;
import org.apache.kafka.streams.TaskMetadata;
import org.apache.kafka.streams.ThreadMetadata;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.apache.kafka.streams.processor.StateStore;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.QueryableStoreType;
import org.apache.kafka.streams.state.internals.StateStoreProvider;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The statistics of this instance's active partitions (AnalyticDB's partition statistics): per
 * partition and store, the rows and bytes, and for the time-segmented stores every segment.
 *
 * <p>Segment statistics are not part of any interactive-query interface, so the stores are
 * fetched through a {@link QueryableStoreType} that returns the store objects themselves, then
 * unwrapped down to the {@link SegmentedKeyValueStore}. The {@code latest} store's bytes come
 * from Kafka Streams' RocksDB metrics ({@code total-sst-files-size} + {@code size-all-mem-tables}).
 */
final class LocalPartitionStatistics {

    static final List<String> STORES = List.of(StoreNames.RAW, StoreNames.rollup(RollupStep.MINUTE),
            StoreNames.rollup(RollupStep.HOUR), StoreNames.rollup(RollupStep.DAY), StoreNames.LATEST);

    record Segment(long startMillis, long endMillis, long rows, long bytes) {
    }

    record StoreStatistics(long rows, Long bytes, List<Segment> segments) {
    }

    record PartitionStatistics(int partition, String owner, Map<String, StoreStatistics> stores) {
    }

    private final KafkaStreams streams;
    private final String owner;

    LocalPartitionStatistics(KafkaStreams streams, String owner) {
        this.streams = streams;
        this.owner = owner;
    }

    List<PartitionStatistics> collect() {
        List<PartitionStatistics> partitions = new ArrayList<>();
        for (ThreadMetadata thread : streams.metadataForLocalThreads()) {
            for (TaskMetadata task : thread.activeTasks()) {
                int partition = task.taskId().partition();
                Map<String, StoreStatistics> stores = new LinkedHashMap<>();
                for (String name : STORES) {
                    try {
                        stores.put(name, statistics(name, partition, task.taskId().toString()));
                    } catch (InvalidStateStoreException notHere) {
                        // The task has no such store (another sub-topology) or is migrating: leave it out.
                    }
                }
                if (!stores.isEmpty()) {
                    partitions.add(new PartitionStatistics(partition, owner, stores));
                }
            }
        }
        return partitions;
    }

    private StoreStatistics statistics(String name, int partition, String taskId) {
        List<StateStore> found = streams.store(StoreQueryParameters.fromNameAndType(name, new RawStores()).withPartition(partition));
        if (found.isEmpty()) {
            throw new InvalidStateStoreException("no store " + name + " in partition " + partition);
        }
        StateStore outer = found.get(0);
        long rows = outer instanceof KeyValueStore<?, ?> kv ? kv.approximateNumEntries() : -1;
        Optional<SegmentedKeyValueStore> inner = StoreLayers.find(outer, SegmentedKeyValueStore.class);
        if (inner.isPresent()) {
            SegmentedKeyValueStore segmented = inner.get();
            List<Segment> segments = new ArrayList<>();
            long bytes = 0;
            for (SegmentStatistics s : segmented.segmentStatistics()) {
                long segmentBytes = Math.max(0, s.liveSstBytes()) + Math.max(0, s.memtableBytes());
                segments.add(new Segment(s.startMillis(), s.endMillis(), s.estimatedRows(), segmentBytes));
                bytes += segmentBytes;
            }
            return new StoreStatistics(rows, bytes, segments);
        }
        return new StoreStatistics(rows, rocksDbBytes(name, taskId), List.of());
    }

    private Long rocksDbBytes(String store, String taskId) {
        long total = 0;
        boolean found = false;
        for (Map.Entry<MetricName, ? extends Metric> entry : streams.metrics().entrySet()) {
            MetricName name = entry.getKey();
            if (name.group().equals("stream-state-metrics") && store.equals(name.tags().get("rocksdb-state-id"))
                    && taskId.equals(name.tags().get("task-id"))
                    && (name.name().equals("total-sst-files-size") || name.name().equals("size-all-mem-tables"))
                    && entry.getValue().metricValue() instanceof Number value) {
                total += value.longValue();
                found = true;
            }
        }
        return found ? total : null;
    }

    /** An IQv1 store type whose answer is the partition's store objects, unwrapped by nothing. */
    private static final class RawStores implements QueryableStoreType<List<StateStore>> {

        @Override
        public boolean accepts(StateStore stateStore) {
            return true;
        }

        @Override
        @SuppressWarnings({"unchecked", "rawtypes"})
        public List<StateStore> create(StateStoreProvider provider, String storeName) {
            return (List) provider.stores(storeName, (QueryableStoreType) this);
        }
    }
}
