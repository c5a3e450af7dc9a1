package dev.tspipe.embedded;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class EmbeddedKafkaRestartIT {

    @TempDir
    Path dataDir;

    @Test
    void aBrokerRestartedOnTheSameFolderKeepsTopicsAndRecords() {
        Path kafkaDir = dataDir.resolve("kafka");
        try (EmbeddedKafka first = EmbeddedKafka.builder().logDir(kafkaDir).start()) {
            first.createTopic("durable", 4);
            KafkaRoundTrip.produce(first, "durable", 1_000);
        }
        assertThat(kafkaDir).isDirectory();
        assertThat(Files.exists(kafkaDir.resolve("meta.properties"))).isTrue();

        // New ephemeral ports on purpose: the data must not depend on them.
        try (EmbeddedKafka second = EmbeddedKafka.builder().logDir(kafkaDir).start()) {
            assertThat(second.topicNames()).contains("durable");
            List<ConsumerRecord<String, String>> records =
                    KafkaRoundTrip.consumeAll(second, "durable", 1_000, Duration.ofSeconds(60), "read_uncommitted");
            assertThat(records).hasSize(1_000);
            assertThat(records).extracting(ConsumerRecord::value).contains(KafkaRoundTrip.value(0), KafkaRoundTrip.value(999));
        }
        assertThat(kafkaDir).as("a given folder survives close").isDirectory();
    }

    @Test
    void aTemporaryFolderIsDeletedOnClose() {
        Path dir;
        try (EmbeddedKafka kafka = EmbeddedKafka.builder().start()) {
            dir = kafka.logDir();
            assertThat(dir).isDirectory();
        }
        assertThat(dir).doesNotExist();
    }
}
