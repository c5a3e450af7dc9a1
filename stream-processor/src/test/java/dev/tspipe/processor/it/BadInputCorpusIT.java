package dev.tspipe.processor.it;

import dev.tspipe.embedded.EmbeddedSchemaRegistry;
import dev.tspipe.embedded.junit.EmbeddedKafkaExtension;
import dev.tspipe.processor.badinput.BadInputCorpus;
import dev.tspipe.processor.badinput.CorpusExpectations;
import dev.tspipe.processor.topology.PipelineConfig;
import dev.tspipe.processor.topology.Topics;
import dev.tspipe.processor.topology.TspipeStreams;
import dev.tspipe.schemas.registry.RestSchemaRegistryClient;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StoreQueryParameters;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.ThreadMetadata;
import org.apache.kafka.streams.state.QueryableStoreTypes;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Future;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The bad-input corpus ({@code bad-input/corpus.tsv}) on the real broker, with the schemas in the
 * embedded registry over HTTP: the dead-letter topic holds exactly one letter per bad record, with
 * its reason and original bytes, every valid record is stored, and the Kafka Streams client runs
 * throughout with the stream thread it started with.
 *
 * <p>One input partition, so that every case arrives after the valid reading that set stream time
 * (T0). The input and dead-letter topics (the operator's) accept 4 MiB records, so that the 1 MiB
 * cases reach the pipeline and the too-large one's dead letter can leave it; the internal topics and
 * the producer run with tspipe's defaults (docs/reliability.md, "Record sizes").
 */
class BadInputCorpusIT {

    private static final String APP = "bad-input-it";
    private static final String READINGS = APP + "-readings";
    private static final String DLQ = APP + "-dlq";
    private static final int LARGE_RECORDS = 4 * 1024 * 1024;
    /** A guard against a hang, not a speed requirement. */
    private static final Duration HANG_GUARD = Duration.ofMinutes(3);

    @RegisterExtension
    static final EmbeddedKafkaExtension KAFKA = new EmbeddedKafkaExtension();

    private static EmbeddedSchemaRegistry registry;

    @TempDir
    Path stateDir;

    @BeforeAll
    static void startRegistry() {
        registry = EmbeddedSchemaRegistry.builder().bootstrapServers(KAFKA.broker().bootstrapServers()).start();
    }

    @AfterAll
    static void stopRegistry() {
        registry.close();
    }

    @Test
    void everyBadRecordIsOneDeadLetterWithItsReasonAndBytesEveryGoodOneIsStoredAndTheClientKeepsRunning() throws Exception {
        Map<String, String> largeRecords = Map.of(TopicConfig.MAX_MESSAGE_BYTES_CONFIG, Integer.toString(LARGE_RECORDS));
        KAFKA.broker().createTopics(new NewTopic(READINGS, 1, (short) 1).configs(largeRecords),
                new NewTopic(DLQ, 1, (short) 1).configs(largeRecords), new NewTopic(Topics.DEVICES, 1, (short) 1));
        Map<String, Integer> ids = BadInputCorpus.register(
                new RestSchemaRegistryClient(List.of(URI.create(registry.url())), Optional.empty()), READINGS);
        List<BadInputCorpus.Input> inputs = BadInputCorpus.inputs(ids);
        List<BadInputCorpus.Input> records = new ArrayList<>();
        for (int i = 0; i <= inputs.size(); i++) {
            records.add(BadInputCorpus.filler(i, ids));
            if (i < inputs.size()) {
                records.add(inputs.get(i));
            }
        }

        PipelineConfig config = new PipelineConfig(Map.of(PipelineConfig.SCHEMA_REGISTRY_URL, registry.url(),
                PipelineConfig.READINGS_TOPIC, READINGS, PipelineConfig.DLQ_TOPIC, DLQ));
        List<KafkaStreams.State> states = new CopyOnWriteArrayList<>();
        try (KafkaStreams streams = TspipeStreams.create(config, streamsSettings())) {
            streams.setStateListener((now, before) -> states.add(now));
            streams.start();
            await().atMost(HANG_GUARD).until(() -> streams.state() == KafkaStreams.State.RUNNING);
            Set<String> threads = threadNames(streams);

            List<CorpusExpectations.Sent> sent = produce(records);
            CorpusExpectations.Rows rows = rows(streams);
            List<CorpusExpectations.Letter> letters = new ArrayList<>();
            int expectedLetters = CorpusExpectations.expectedReasons(sent).size();
            try (KafkaConsumer<byte[], byte[]> dlq = dlqConsumer()) {
                await().atMost(HANG_GUARD).pollInterval(Duration.ofMillis(500)).ignoreExceptions().until(() -> {
                    for (ConsumerRecord<byte[], byte[]> r : dlq.poll(Duration.ofMillis(200))) {
                        letters.add(new CorpusExpectations.Letter(r.key(), r.value(), r.headers()));
                    }
                    return letters.size() >= expectedLetters && CorpusExpectations.allStored(sent, config.keyLayout(), rows);
                });
                dlq.poll(Duration.ofSeconds(2)).forEach(r -> letters.add(new CorpusExpectations.Letter(r.key(), r.value(), r.headers())));
            }

            CorpusExpectations.assertDeadLetters(sent, letters);
            CorpusExpectations.assertStored(sent, config.keyLayout(), rows);
            assertThat(streams.state()).isEqualTo(KafkaStreams.State.RUNNING);
            assertThat(states).as("states of the client").doesNotContain(KafkaStreams.State.PENDING_ERROR,
                    KafkaStreams.State.ERROR, KafkaStreams.State.PENDING_SHUTDOWN);
            assertThat(threadNames(streams)).as("stream threads: none died and was replaced").isEqualTo(threads);
        }
    }

    private Map<String, Object> streamsSettings() {
        Map<String, Object> props = new HashMap<>();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, APP);
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, KAFKA.broker().bootstrapServers());
        props.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString());
        props.put(StreamsConfig.NUM_STREAM_THREADS_CONFIG, 1);
        props.put(StreamsConfig.REPLICATION_FACTOR_CONFIG, 1);
        return props;
    }

    private static Set<String> threadNames(KafkaStreams streams) {
        return streams.metadataForLocalThreads().stream().map(ThreadMetadata::threadName).collect(Collectors.toSet());
    }

    /** Sends every record in order to the one partition, and returns where each landed. */
    private static List<CorpusExpectations.Sent> produce(List<BadInputCorpus.Input> records) throws Exception {
        Map<String, Object> producerConfig = KAFKA.broker().clientConfig();
        producerConfig.put(ProducerConfig.ACKS_CONFIG, "all");
        producerConfig.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        producerConfig.put(ProducerConfig.MAX_REQUEST_SIZE_CONFIG, LARGE_RECORDS);
        List<Future<RecordMetadata>> sends = new ArrayList<>();
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(producerConfig, new ByteArraySerializer(),
                new ByteArraySerializer())) {
            for (BadInputCorpus.Input input : records) {
                sends.add(producer.send(new ProducerRecord<>(READINGS, 0, input.key(), input.value(), input.headers())));
            }
            producer.flush();
        }
        List<CorpusExpectations.Sent> sent = new ArrayList<>();
        for (int i = 0; i < records.size(); i++) {
            RecordMetadata metadata = sends.get(i).get();
            sent.add(new CorpusExpectations.Sent(records.get(i), metadata.topic(), metadata.partition(), metadata.offset()));
        }
        return sent;
    }

    private static KafkaConsumer<byte[], byte[]> dlqConsumer() {
        Map<String, Object> config = KAFKA.broker().clientConfig();
        config.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(config, new ByteArrayDeserializer(), new ByteArrayDeserializer());
        TopicPartition partition = new TopicPartition(DLQ, 0);
        consumer.assign(List.of(partition));
        consumer.seekToBeginning(List.of(partition));
        return consumer;
    }

    /** The stores through interactive queries: what a query server would read. */
    private static CorpusExpectations.Rows rows(KafkaStreams streams) {
        return CorpusExpectations.Rows.of(name ->
                streams.store(StoreQueryParameters.fromNameAndType(name, QueryableStoreTypes.<Bytes, byte[]>keyValueStore())));
    }
}
