package dev.tspipe.ingest;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Re-produces the records of a time range of one topic to another (or the same) topic: key, value,
 * headers and timestamp as they are, byte for byte, never decoded.
 *
 * <p>Per source partition it starts at {@code offsetsForTimes(from - maxLateness)} and stops at the
 * first record with a timestamp at or after {@code to + maxLateness}, or at the partition's end
 * offset taken when the replay started (so that replaying a topic into itself ends). Only records
 * with {@code from <= timestamp < to} are written. A partition's timestamps are only roughly in
 * order when producers send late readings; {@code maxLateness} widens the scan by that much on both
 * sides so that late records of the range are still found.
 *
 * <p>Replaying is safe to repeat: the pipeline identifies a reading by (tenant, device, metric,
 * timestamp), so a reading that arrives again overwrites its row with the same value and its
 * bucket counters are corrected, not incremented (docs/design.md §5).
 */
public final class Replayer {

    private static final Logger log = LoggerFactory.getLogger(Replayer.class);

    /**
     * What to replay.
     *
     * @param sourceTopic where the records are read
     * @param targetTopic where they are written
     * @param fromMillis  start of the range, inclusive (record timestamp, epoch ms)
     * @param toMillis    end of the range, exclusive
     * @param partitions  source partitions to replay; empty: all
     * @param maxLateness how far a record's timestamp may lag behind its neighbours' in the log
     * @param untilEnd    read each partition to its end offset instead of stopping at the first record after the range
     * @param progressBar whether to draw a progress bar (only drawn on a terminal)
     */
    public record Options(String sourceTopic, String targetTopic, long fromMillis, long toMillis, List<Integer> partitions,
                          Duration maxLateness, boolean untilEnd, boolean progressBar) {

        public Options {
            Objects.requireNonNull(sourceTopic, "sourceTopic");
            Objects.requireNonNull(targetTopic, "targetTopic");
            partitions = List.copyOf(partitions);
            Objects.requireNonNull(maxLateness, "maxLateness");
            if (fromMillis >= toMillis) {
                throw new IllegalArgumentException("the range is empty: --from (" + fromMillis + ") must be before --to (" + toMillis + ")");
            }
            if (maxLateness.isNegative()) {
                throw new IllegalArgumentException("max lateness must not be negative, not " + maxLateness);
            }
        }

        /** All partitions of {@code sourceTopic}, no lateness, no progress bar. */
        public static Options of(String sourceTopic, String targetTopic, long fromMillis, long toMillis) {
            return new Options(sourceTopic, targetTopic, fromMillis, toMillis, List.of(), Duration.ZERO, false, false);
        }

        public Options withPartitions(List<Integer> newPartitions) {
            return new Options(sourceTopic, targetTopic, fromMillis, toMillis, newPartitions, maxLateness, untilEnd, progressBar);
        }

        public Options withMaxLateness(Duration lateness) {
            return new Options(sourceTopic, targetTopic, fromMillis, toMillis, partitions, lateness, untilEnd, progressBar);
        }

        /** Reads every partition to its end offset: exact whatever the order of timestamps in the log. */
        public Options scanningToEnd() {
            return new Options(sourceTopic, targetTopic, fromMillis, toMillis, partitions, maxLateness, true, progressBar);
        }

        public Options withProgressBar(boolean enabled) {
            return new Options(sourceTopic, targetTopic, fromMillis, toMillis, partitions, maxLateness, untilEnd, enabled);
        }
    }

    private final Map<String, Object> clientSettings;

    /** @param clientSettings Kafka client settings for both the consumer and the producer ({@code bootstrap.servers}, security, ...) */
    public Replayer(Map<String, ?> clientSettings) {
        this.clientSettings = Map.copyOf(clientSettings);
    }

    /**
     * Replays the range and waits until every record is written or failed.
     *
     * @throws IllegalArgumentException when the source topic or a requested partition does not exist
     */
    public ReplaySummary replay(Options options) {
        long started = System.nanoTime();
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(consumerSettings(), new ByteArrayDeserializer(), new ByteArrayDeserializer());
             KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(producerSettings(), new ByteArraySerializer(), new ByteArraySerializer())) {
            List<TopicPartition> partitions = partitions(consumer, options);
            Map<TopicPartition, Long> ends = consumer.endOffsets(partitions);
            Map<TopicPartition, Long> query = new HashMap<>();
            partitions.forEach(tp -> query.put(tp, options.fromMillis()));
            Map<TopicPartition, OffsetAndTimestamp> starts = consumer.offsetsForTimes(query);

            Map<Integer, Long> counts = new TreeMap<>();
            Map<TopicPartition, Long> from = new HashMap<>();
            long total = 0;
            for (TopicPartition tp : partitions) {
                counts.put(tp.partition(), 0L);
                OffsetAndTimestamp start = starts.get(tp);
                long end = ends.get(tp);
                if (start != null && start.offset() < end) {
                    from.put(tp, start.offset());
                    total += end - start.offset();
                }
                log.debug("Replay of {}: offsets {} to {}", tp, start == null ? "none" : start.offset(), end);
            }

            long stopAt = options.untilEnd() ? Long.MAX_VALUE : options.toMillis() + options.maxLateness().toMillis();
            AtomicLong failed = new AtomicLong();
            try (Progress progress = Progress.bar(options.progressBar(), "replay", total, "records", 1)) {
                OffsetRanges.read(consumer, from, ends, record -> {
                    if (record.timestamp() >= stopAt) {
                        return false;
                    }
                    progress.stepBy(1);
                    if (record.timestamp() >= options.fromMillis() && record.timestamp() < options.toMillis()) {
                        TopicPartition tp = new TopicPartition(record.topic(), record.partition());
                        counts.merge(tp.partition(), 1L, Long::sum);
                        producer.send(new ProducerRecord<>(options.targetTopic(), null, record.timestamp(), record.key(),
                                record.value(), record.headers()), (metadata, error) -> {
                            if (error != null && failed.incrementAndGet() <= 10) {
                                log.warn("Could not replay {} offset {} to topic '{}': {}", tp, record.offset(),
                                        options.targetTopic(), error.toString());
                            }
                        });
                    }
                    return true;
                });
                producer.flush();
            }
            ReplaySummary summary = ReplaySummary.of(counts, failed.get(), Duration.ofNanos(System.nanoTime() - started));
            log.info("Replay of {} [{}, {}) to {}: {}", options.sourceTopic(), options.fromMillis(), options.toMillis(),
                    options.targetTopic(), summary.describe());
            return summary;
        }
    }

    private static List<TopicPartition> partitions(KafkaConsumer<byte[], byte[]> consumer, Options options) {
        List<PartitionInfo> infos = consumer.partitionsFor(options.sourceTopic());
        if (infos == null || infos.isEmpty()) {
            throw new IllegalArgumentException("the source topic '" + options.sourceTopic() + "' does not exist");
        }
        List<Integer> existing = infos.stream().map(PartitionInfo::partition).sorted().toList();
        List<Integer> wanted = options.partitions().isEmpty() ? existing : options.partitions();
        for (int partition : wanted) {
            if (!existing.contains(partition)) {
                throw new IllegalArgumentException("the source topic '" + options.sourceTopic() + "' has no partition " + partition
                        + "; its partitions are 0 to " + (existing.size() - 1));
            }
        }
        return wanted.stream().distinct().sorted().map(p -> new TopicPartition(options.sourceTopic(), p)).toList();
    }

    private Map<String, Object> consumerSettings() {
        Map<String, Object> settings = new HashMap<>(clientSettings);
        settings.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        settings.putIfAbsent(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        settings.putIfAbsent(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 2_000);
        return settings;
    }

    private Map<String, Object> producerSettings() {
        Map<String, Object> settings = new HashMap<>(clientSettings);
        settings.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        settings.put(ProducerConfig.ACKS_CONFIG, "all");
        settings.putIfAbsent(ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4");
        settings.putIfAbsent(ProducerConfig.LINGER_MS_CONFIG, 10);
        settings.putIfAbsent(ProducerConfig.BATCH_SIZE_CONFIG, 64 * 1024);
        return settings;
    }
}
