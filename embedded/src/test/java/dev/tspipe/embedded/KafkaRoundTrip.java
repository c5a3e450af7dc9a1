package dev.tspipe.embedded;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** Plain producer and consumer helpers for the broker tests. */
final class KafkaRoundTrip {

    private KafkaRoundTrip() {
    }

    static void produce(EmbeddedKafka kafka, String topic, int count) {
        Map<String, Object> config = kafka.clientConfig();
        config.put(ProducerConfig.ACKS_CONFIG, "all");
        config.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        try (KafkaProducer<String, String> producer =
                     new KafkaProducer<>(config, new StringSerializer(), new StringSerializer())) {
            for (int i = 0; i < count; i++) {
                producer.send(new ProducerRecord<>(topic, key(i), value(i)));
            }
            producer.flush();
        }
    }

    /** Reads every partition of the topic from the beginning until {@code expected} records or the timeout. */
    static List<ConsumerRecord<String, String>> consumeAll(EmbeddedKafka kafka, String topic, int expected,
                                                           Duration timeout, String isolationLevel) {
        Map<String, Object> config = kafka.clientConfig();
        config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        config.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, isolationLevel);
        List<ConsumerRecord<String, String>> records = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer =
                     new KafkaConsumer<>(config, new StringDeserializer(), new StringDeserializer())) {
            List<TopicPartition> partitions = consumer.partitionsFor(topic, timeout).stream()
                    .map(info -> new TopicPartition(topic, info.partition()))
                    .toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            long deadline = System.nanoTime() + timeout.toNanos();
            while (records.size() < expected && System.nanoTime() < deadline) {
                consumer.poll(Duration.ofMillis(200)).forEach(records::add);
            }
            // One more poll: a broker that returned more than was produced must fail the test.
            consumer.poll(Duration.ofMillis(200)).forEach(records::add);
        }
        return records;
    }

    static String key(int i) {
        return "device-" + (i % 97);
    }

    static String value(int i) {
        return "reading-" + i;
    }
}
