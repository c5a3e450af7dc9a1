package dev.tspipe.embedded;

import dev.tspipe.embedded.junit.EmbeddedKafkaExtension;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;

class EmbeddedKafkaIT {

    @RegisterExtension
    static final EmbeddedKafkaExtension KAFKA = new EmbeddedKafkaExtension();

    @Test
    void producesAndConsumesTenThousandRecordsOverSixPartitions() {
        EmbeddedKafka kafka = KAFKA.broker();
        kafka.createTopic("round-trip", 6);

        KafkaRoundTrip.produce(kafka, "round-trip", 10_000);
        List<ConsumerRecord<String, String>> records =
                KafkaRoundTrip.consumeAll(kafka, "round-trip", 10_000, Duration.ofSeconds(60), "read_uncommitted");

        assertThat(records).hasSize(10_000);
        assertThat(records.stream().map(ConsumerRecord::value).collect(Collectors.toSet()))
                .isEqualTo(IntStream.range(0, 10_000).mapToObj(KafkaRoundTrip::value).collect(Collectors.toSet()));
        assertThat(records.stream().map(ConsumerRecord::partition).collect(Collectors.toSet()))
                .isEqualTo(Set.of(0, 1, 2, 3, 4, 5));
        // The default partitioner keeps every key in one partition.
        Map<String, Set<Integer>> partitionsByKey = records.stream().collect(Collectors.groupingBy(
                ConsumerRecord::key, Collectors.mapping(ConsumerRecord::partition, Collectors.toSet())));
        assertThat(partitionsByKey.values()).allSatisfy(partitions -> assertThat(partitions).hasSize(1));
    }

    @Test
    void createTopicIsIdempotent() {
        EmbeddedKafka kafka = KAFKA.broker();
        kafka.createTopic("twice", 3);
        kafka.createTopic("twice", 3);

        assertThat(kafka.topicNames()).contains("twice");
    }

    @Test
    void transactionsCommitOnASingleNode() {
        EmbeddedKafka kafka = KAFKA.broker();
        kafka.createTopic("transactional", 2);
        Map<String, Object> config = kafka.clientConfig();
        config.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "tx-test");
        try (KafkaProducer<String, String> producer =
                     new KafkaProducer<>(config, new StringSerializer(), new StringSerializer())) {
            producer.initTransactions();
            producer.beginTransaction();
            producer.send(new ProducerRecord<>("transactional", "k", "aborted"));
            producer.abortTransaction();
            producer.beginTransaction();
            producer.send(new ProducerRecord<>("transactional", "k", "committed"));
            producer.commitTransaction();
        }

        List<ConsumerRecord<String, String>> records =
                KafkaRoundTrip.consumeAll(kafka, "transactional", 1, Duration.ofSeconds(30), "read_committed");

        assertThat(records).extracting(ConsumerRecord::value).containsExactly("committed");
    }
}
