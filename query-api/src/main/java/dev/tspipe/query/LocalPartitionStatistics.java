package dev.tspipe.query;

import dev.tspipe.processor.store.RollupStep;
import dev.tspipe.processor.store.SegmentStatistics;
import dev.tspipe.processor.store.StoreNames;
import dev.tspipe.processor.store.TableStore;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StoreQueryParameters;
import org.apache.kafka.streams.TaskMetadata;
import org.apache.kafka.streams.ThreadMetadata;
import org.apache.kafka.streams.errors.InvalidStateStoreException;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The statistics of this instance's active partitions (AnalyticDB's partition statistics): per
 * partition and table, the rows and bytes, and for the time-keyed tables every time partition.
 *
 * <p>Partition statistics are not part of any interactive-query interface, so the tables are
 * fetched through {@link TableStore#queryableType()}, which returns the store objects themselves.
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
                        stores.put(name, statistics(name, partition));
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

    private StoreStatistics statistics(String name, int partition) {
        List<TableStore> found = streams.store(StoreQueryParameters.fromNameAndType(name, TableStore.queryableType())
                .withPartition(partition));
        if (found.isEmpty()) {
            throw new InvalidStateStoreException("no store " + name + " in partition " + partition);
        }
        TableStore table = found.get(0);
        List<Segment> segments = new ArrayList<>();
        long bytes = 0;
        for (SegmentStatistics s : table.segmentStatistics()) {
            long segmentBytes = Math.max(0, s.liveSstBytes()) + Math.max(0, s.memtableBytes());
            if (table.table().timeKeyed()) {
                segments.add(new Segment(s.startMillis(), s.endMillis(), s.estimatedRows(), segmentBytes));
            }
            bytes += segmentBytes;
        }
        return new StoreStatistics(table.approximateNumEntries(), bytes, segments);
    }
}
