package dev.tspipe.ingest;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/**
 * Reads a range of offsets of each of some partitions, without a consumer group: what {@code tspipe replay} and
 * {@code tspipe keys analyze} read. A partition is done when the consumer's position reaches its end offset, not when
 * a record with the offset before it comes: transaction markers and compacted gaps leave no record there.
 */
public final class OffsetRanges {

    private static final Duration POLL = Duration.ofMillis(500);

    private OffsetRanges() {
    }

    /**
     * Assigns the partitions of {@code starts} to {@code consumer}, seeks each to its start and gives every record
     * before its partition's end offset (from {@code ends}) to {@code each}, in offset order per partition, until
     * every partition is done; {@code each} returns false to end its record's partition there.
     */
    public static void read(KafkaConsumer<byte[], byte[]> consumer, Map<TopicPartition, Long> starts,
                            Map<TopicPartition, Long> ends, Predicate<ConsumerRecord<byte[], byte[]>> each) {
        Map<TopicPartition, Long> remaining = new HashMap<>();
        starts.keySet().forEach(tp -> remaining.put(tp, ends.get(tp)));
        consumer.assign(remaining.keySet());
        starts.forEach(consumer::seek);
        while (!remaining.isEmpty()) {
            for (ConsumerRecord<byte[], byte[]> record : consumer.poll(POLL)) {
                TopicPartition tp = new TopicPartition(record.topic(), record.partition());
                Long end = remaining.get(tp);
                if (end == null) {
                    continue;
                }
                if (record.offset() >= end || !each.test(record)) {
                    finish(consumer, remaining, tp);
                }
            }
            for (TopicPartition tp : new ArrayList<>(remaining.keySet())) {
                if (consumer.position(tp) >= remaining.get(tp)) {
                    finish(consumer, remaining, tp);
                }
            }
        }
    }

    private static void finish(KafkaConsumer<byte[], byte[]> consumer, Map<TopicPartition, Long> remaining, TopicPartition tp) {
        if (remaining.remove(tp) != null) {
            consumer.pause(List.of(tp));
        }
    }
}
