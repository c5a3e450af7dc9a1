package dev.tspipe.processor.topology;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Counts the records that arrive away from their device's task and are re-routed, and tells the
 * operator why, at most once a minute per reason and process: a warning that names the topic, the
 * partition and a device, and what to change in the producer.
 */
final class MisplacedRecords {

    private static final Logger log = LoggerFactory.getLogger(MisplacedRecords.class);
    static final long WARNING_INTERVAL_NANOS = 60L * 1_000_000_000;
    /** Shared by every task of the process: one warning a minute, not one per task. */
    private static final Map<Routed.Placement, AtomicLong> LAST_WARNING = new EnumMap<>(Map.of(
            Routed.Placement.OTHER_KEY, new AtomicLong(System.nanoTime() - WARNING_INTERVAL_NANOS),
            Routed.Placement.OTHER_PARTITION, new AtomicLong(System.nanoTime() - WARNING_INTERVAL_NANOS)));

    private final PipelineMetrics metrics;

    MisplacedRecords(PipelineMetrics metrics) {
        this.metrics = metrics;
    }

    void rerouted(Routed.Placement placement, DeadLetters.Source here, String distributionKey) {
        metrics.rerouted(placement);
        AtomicLong last = LAST_WARNING.get(placement);
        long now = System.nanoTime();
        long previous = last.get();
        if (now - previous < WARNING_INTERVAL_NANOS || !last.compareAndSet(previous, now)) {
            return;
        }
        if (placement == Routed.Placement.OTHER_PARTITION) {
            log.warn("Topic {} partition {} holds readings of devices that belong to other partitions (device '{}', "
                            + "by murmur2 of its key as the Java client places it): they are re-routed through the repartition "
                            + "topic, which costs a second write and read. Producers built on librdkafka (Python, Go, .NET, "
                            + "C/C++, Node) place keys by CRC32 by default: set partitioner=murmur2_random (docs/ingest.md). "
                            + "Counted in kafka_stream_tspipe_rerouted_total{tspipe_id=\"other-partition\"} on /metrics; next warning in a minute at the earliest.",
                    here.topic(), here.partition(), distributionKey);
        } else {
            log.warn("Topic {} partition {} holds readings whose Kafka key is not their device (device '{}'): they are "
                            + "re-routed through the repartition topic, which costs a second write and read. Key each record "
                            + "by its device id (tenant/device in a multi-tenant deployment; docs/ingest.md). Counted in "
                            + "kafka_stream_tspipe_rerouted_total{tspipe_id=\"other-key\"} on /metrics; next warning in a minute at the earliest.",
                    here.topic(), here.partition(), distributionKey);
        }
    }
}
