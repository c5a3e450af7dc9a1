package dev.tspipe.ingest.it;

import dev.tspipe.embedded.EmbeddedKafka;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/** Every record of a topic, read with a consumer from the beginning to the end offsets. */
final class TopicRecords {

    private TopicRecords() {
    }

    static List<ConsumerRecord<byte[], byte[]>> readAll(EmbeddedKafka kafka, String topic) {
        Map<String, Object> config = kafka.clientConfig();
        config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        config.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 5_000);
        List<ConsumerRecord<byte[], byte[]>> records = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(config, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            List<TopicPartition> partitions = consumer.partitionsFor(topic).stream()
                    .map(p -> new TopicPartition(topic, p.partition())).toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> ends = consumer.endOffsets(partitions);
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (partitions.stream().anyMatch(tp -> consumer.position(tp) < ends.get(tp))) {
                if (System.nanoTime() > deadline) {
                    throw new AssertionError("could not read " + topic + " to its end offsets " + ends + " within 30 s");
                }
                consumer.poll(Duration.ofMillis(200)).forEach(records::add);
            }
        }
        return records;
    }

    /** A record as text, for comparing multisets of records: key, value, headers and timestamp. */
    static String describe(byte[] key, byte[] value, Iterable<Header> headers, long timestamp) {
        HexFormat hex = HexFormat.of();
        List<String> headerTexts = new ArrayList<>();
        headers.forEach(h -> headerTexts.add(h.key() + "=" + hex.formatHex(h.value())));
        return (key == null ? "null" : hex.formatHex(key)) + " " + hex.formatHex(value) + " "
                + headerTexts.stream().collect(Collectors.joining(",", "[", "]")) + " @" + timestamp;
    }

    static String describe(ConsumerRecord<byte[], byte[]> record) {
        return describe(record.key(), record.value(), record.headers(), record.timestamp());
    }
}
