package dev.tspipe.query.stats;

import dev.tspipe.model.keys.DistributionKey;
import dev.tspipe.processor.store.RollupStep;
import dev.tspipe.processor.store.SegmentStatistics;
import dev.tspipe.processor.store.SeriesStore;
import dev.tspipe.processor.store.StoreNames;
import dev.tspipe.processor.store.Table;
import dev.tspipe.processor.store.TableStore;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StoreQueryParameters;
import org.apache.kafka.streams.TaskMetadata;
import org.apache.kafka.streams.ThreadMetadata;
import org.apache.kafka.streams.errors.InvalidStateStoreException;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * The statistics of this instance's active partitions (AnalyticDB's partition statistics): per
 * partition and table, the rows and bytes, and for the time-keyed tables every time partition.
 *
 * <p>Partition statistics are not part of any interactive-query interface, so the tables are
 * fetched through {@link TableStore#queryableType()}, which returns the store objects themselves.
 */
public final class LocalPartitionStatistics {

    public static final List<String> STORES = List.of(StoreNames.RAW, StoreNames.rollup(RollupStep.MINUTE),
            StoreNames.rollup(RollupStep.HOUR), StoreNames.rollup(RollupStep.DAY), StoreNames.LATEST);

    record Segment(long startMillis, long endMillis, long rows, long bytes) {
    }

    record StoreStatistics(long rows, Long bytes, List<Segment> segments) {
    }

    /**
     * A device's volume in the raw table: RocksDB's estimates of its bytes and rows, and the bytes it would hold over the
     * whole raw lifecycle at the rate it filled what is held (see {@link #devices}).
     */
    record DeviceVolume(String device, long estimatedBytes, long estimatedRows, long projectedLifecycleBytes,
                        boolean overGuideline) {
    }

    /**
     * The partition's devices by volume: the {@value #TOP_DEVICES} largest, and those whose projected lifecycle bytes
     * break the per-key guideline (docs/row-keys.md: about 10 GB per key value over its lifecycle).
     */
    record Devices(int count, long guidelineBytes, long lifecycleMs, List<DeviceVolume> top, List<DeviceVolume> overGuideline) {
    }

    record PartitionStatistics(int partition, String owner, Map<String, StoreStatistics> stores, Devices devices) {
    }

    /** The per-key volume guideline: about 10 GB per partition-key value over its lifecycle (Tablestore). */
    public static final long VOLUME_GUIDELINE_BYTES = DistributionKey.VOLUME_GUIDELINE_BYTES;
    static final int TOP_DEVICES = 10;
    /** The most devices over the guideline an answer lists per partition. */
    static final int MAX_LISTED_OVER = 100;
    /** The shortest span that a projection scales up from: less data than that says little about a lifecycle. */
    static final long MIN_PROJECTION_SPAN_MS = 3_600_000;

    private final KafkaStreams streams;
    private final String owner;
    /** A device's name from its key prefix ({@link KeyspaceHeatmap#name}). */
    private final Function<byte[], String> deviceNames;
    private final long guidelineBytes;

    LocalPartitionStatistics(KafkaStreams streams, String owner, Function<byte[], String> deviceNames, long guidelineBytes) {
        this.streams = streams;
        this.owner = owner;
        this.deviceNames = deviceNames;
        this.guidelineBytes = guidelineBytes;
    }

    List<PartitionStatistics> collect() {
        List<PartitionStatistics> partitions = new ArrayList<>();
        for (int partition : activePartitions(streams)) {
            Map<String, StoreStatistics> stores = new LinkedHashMap<>();
            for (String name : STORES) {
                try {
                    stores.put(name, statistics(name, partition));
                } catch (InvalidStateStoreException notHere) {
                    // The task has no such store (another sub-topology) or is migrating: leave it out.
                }
            }
            if (!stores.isEmpty()) {
                partitions.add(new PartitionStatistics(partition, owner, stores, devices(partition)));
            }
        }
        return partitions;
    }

    /** The partitions of this instance's active tasks (one task a partition: both decode steps share its stores). */
    static List<Integer> activePartitions(KafkaStreams streams) {
        List<Integer> partitions = new ArrayList<>();
        for (ThreadMetadata thread : streams.metadataForLocalThreads()) {
            for (TaskMetadata task : thread.activeTasks()) {
                partitions.add(task.taskId().partition());
            }
        }
        return partitions;
    }

    /** The table store {@code name} of the partition; {@link InvalidStateStoreException} when it is not queryable here. */
    static TableStore table(KafkaStreams streams, String name, int partition) {
        List<TableStore> found = streams.store(StoreQueryParameters.fromNameAndType(name, TableStore.queryableType())
                .withPartition(partition));
        if (found.isEmpty()) {
            throw new InvalidStateStoreException("no store " + name + " in partition " + partition);
        }
        return found.get(0);
    }

    /**
     * The partition's devices by their estimated bytes in the raw table. A device's projection scales what it holds
     * to the raw lifecycle by the span its partition holds: from the start of the oldest live time segment (or the
     * lifecycle's start, if later) to stream time, at least {@value #MIN_PROJECTION_SPAN_MS} ms. Early in a segment that
     * span is longer than the data, so the projection errs low, never high.
     */
    private Devices devices(int partition) {
        try {
            TableStore raw = table(streams, StoreNames.RAW, partition);
            SeriesStore store = raw.seriesStore();
            long lifecycle = store.spec().retentionMs(Table.RAW);
            long streamTime = store.streamTime().orElse(Long.MIN_VALUE);
            long oldest = raw.segmentStatistics().stream().mapToLong(SegmentStatistics::startMillis).min().orElse(streamTime);
            long span = streamTime == Long.MIN_VALUE ? 0 : streamTime - Math.max(oldest, streamTime - lifecycle);
            double scale = (double) lifecycle / Math.max(span, MIN_PROJECTION_SPAN_MS);
            List<DeviceVolume> volumes = new ArrayList<>();
            for (SeriesStore.DeviceVolume volume : store.deviceVolumes(Table.RAW)) {
                long projected = (long) Math.min(Long.MAX_VALUE, volume.bytes() * scale);
                volumes.add(new DeviceVolume(deviceNames.apply(volume.devicePrefix()), volume.bytes(), volume.rows(), projected,
                        projected > guidelineBytes));
            }
            volumes.sort(Comparator.comparingLong(DeviceVolume::estimatedBytes).reversed());
            List<DeviceVolume> over = volumes.stream().filter(DeviceVolume::overGuideline).limit(MAX_LISTED_OVER).toList();
            return new Devices(volumes.size(), guidelineBytes, lifecycle,
                    List.copyOf(volumes.subList(0, Math.min(TOP_DEVICES, volumes.size()))), over);
        } catch (InvalidStateStoreException notHere) {
            return null;
        }
    }

    private StoreStatistics statistics(String name, int partition) {
        TableStore table = table(streams, name, partition);
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
