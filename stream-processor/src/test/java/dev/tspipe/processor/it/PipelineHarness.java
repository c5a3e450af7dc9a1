package dev.tspipe.processor.it;

import dev.tspipe.embedded.EmbeddedKafka;
import dev.tspipe.model.keys.KeyLayout;
import dev.tspipe.model.keys.RowKey;
import dev.tspipe.model.keys.SeriesId;
import dev.tspipe.model.rows.LatestReading;
import dev.tspipe.model.rows.RawRow;
import dev.tspipe.model.rows.Rollup;
import dev.tspipe.processor.store.RollupStep;
import dev.tspipe.processor.store.StoreNames;
import dev.tspipe.processor.topology.DeadLetters;
import dev.tspipe.processor.topology.PipelineConfig;
import dev.tspipe.processor.topology.Topics;
import dev.tspipe.processor.topology.TspipeStreams;
import dev.tspipe.schemas.serde.AvroSerdeConfig;
import dev.tspipe.schemas.serde.AvroSerializer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StoreQueryParameters;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.QueryableStoreTypes;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** Runs the real topology in a KafkaStreams instance against the embedded broker, and reads what it stored. */
final class PipelineHarness {

    static final int PARTITIONS = 6;

    private final EmbeddedKafka kafka;
    private final String registryUrl;
    private final String applicationId;
    private final Map<String, Object> pipelineSettings = new HashMap<>();

    PipelineHarness(EmbeddedKafka kafka, String registryUrl, String applicationId) {
        this.kafka = kafka;
        this.registryUrl = registryUrl;
        this.applicationId = applicationId;
        pipelineSettings.put(PipelineConfig.SCHEMA_REGISTRY_URL, registryUrl);
        pipelineSettings.put(PipelineConfig.READINGS_TOPIC, applicationId + "-readings");
        pipelineSettings.put(PipelineConfig.DLQ_TOPIC, applicationId + "-dlq");
        // The generated data spans 3 days in shuffled order: the future margin must allow that.
        pipelineSettings.put(PipelineConfig.FUTURE_MARGIN_MS, Duration.ofDays(4).toMillis());
        kafka.createTopic(readingsTopic(), PARTITIONS);
        kafka.createTopic(dlqTopic(), 1);
        kafka.createTopic(Topics.DEVICES, 1);
    }

    String registryUrl() {
        return registryUrl;
    }

    PipelineConfig config() {
        return new PipelineConfig(pipelineSettings);
    }

    String readingsTopic() {
        return applicationId + "-readings";
    }

    String dlqTopic() {
        return applicationId + "-dlq";
    }

    KafkaStreams start(Path stateDir) {
        Map<String, Object> props = new HashMap<>();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, applicationId);
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
        props.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString());
        props.put(StreamsConfig.NUM_STREAM_THREADS_CONFIG, 1);
        props.put(StreamsConfig.REPLICATION_FACTOR_CONFIG, 1);
        KafkaStreams streams = TspipeStreams.create(config(), props);
        streams.start();
        return streams;
    }

    void produce(List<GeneratedData.Input> inputs) {
        Map<String, Object> producerConfig = kafka.clientConfig();
        producerConfig.put(ProducerConfig.ACKS_CONFIG, "all");
        producerConfig.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        producerConfig.put(ProducerConfig.LINGER_MS_CONFIG, 5);
        AvroSerializer<Object> avro = new AvroSerializer<>();
        avro.configure(Map.of(AvroSerdeConfig.SCHEMA_REGISTRY_URL, registryUrl), false);
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(producerConfig, new ByteArraySerializer(), new ByteArraySerializer())) {
            for (GeneratedData.Input input : inputs) {
                producer.send(new ProducerRecord<>(readingsTopic(), input.key() == null ? null : input.key().getBytes(StandardCharsets.UTF_8),
                        valueOf(input, avro)));
            }
            producer.flush();
        }
    }

    static byte[] valueOf(GeneratedData.Input input, AvroSerializer<Object> avro) {
        return input.badValue() != null ? input.badValue() : avro.serialize("readings", input.reading());
    }

    private ReadOnlyKeyValueStore<Bytes, byte[]> store(KafkaStreams streams, String name) {
        return streams.store(StoreQueryParameters.fromNameAndType(name, QueryableStoreTypes.keyValueStore()));
    }

    Map<GeneratedData.Point, Double> rawRows(KafkaStreams streams) {
        KeyLayout layout = config().keyLayout();
        Map<GeneratedData.Point, Double> rows = new HashMap<>();
        try (KeyValueIterator<Bytes, byte[]> all = store(streams, StoreNames.RAW).all()) {
            all.forEachRemaining(kv -> {
                RowKey key = RowKey.fromBytes(kv.key.get(), layout);
                rows.put(new GeneratedData.Point(key.series(), key.epochMillis()), RawRow.fromBytes(kv.value).value());
            });
        }
        return rows;
    }

    Map<GeneratedData.Point, Rollup> rollups(KafkaStreams streams, RollupStep step) {
        KeyLayout layout = config().keyLayout();
        Map<GeneratedData.Point, Rollup> rollups = new HashMap<>();
        try (KeyValueIterator<Bytes, byte[]> all = store(streams, StoreNames.rollup(step)).all()) {
            all.forEachRemaining(kv -> {
                RowKey key = RowKey.fromBytes(kv.key.get(), layout);
                rollups.put(new GeneratedData.Point(key.series(), key.epochMillis()), Rollup.fromBytes(kv.value));
            });
        }
        return rollups;
    }

    Map<SeriesId, Long> latest(KafkaStreams streams) {
        KeyLayout layout = config().keyLayout();
        Map<SeriesId, Long> latest = new HashMap<>();
        try (KeyValueIterator<Bytes, byte[]> all = store(streams, StoreNames.LATEST).all()) {
            all.forEachRemaining(kv -> {
                SeriesId series = RowKey.fromBytes(RowKey.withTimestamp(kv.key.get(), 0), layout).series();
                latest.put(series, LatestReading.fromBytes(kv.value).epochMillis());
            });
        }
        return latest;
    }

    /** Every committed dead letter: value bytes and reason. */
    List<Map.Entry<byte[], String>> deadLetters() {
        List<Map.Entry<byte[], String>> letters = new ArrayList<>();
        for (ConsumerRecord<byte[], byte[]> record : deadLetterRecords()) {
            letters.add(Map.entry(record.value() == null ? new byte[0] : record.value(),
                    DeadLetters.text(record.headers(), DeadLetters.REASON)));
        }
        return letters;
    }

    /** Every committed dead letter, as the topic holds it. */
    List<ConsumerRecord<byte[], byte[]>> deadLetterRecords() {
        Map<String, Object> config = kafka.clientConfig();
        config.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        List<ConsumerRecord<byte[], byte[]>> letters = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(config, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            TopicPartition partition = new TopicPartition(dlqTopic(), 0);
            consumer.assign(List.of(partition));
            consumer.seekToBeginning(List.of(partition));
            long end = consumer.endOffsets(List.of(partition)).get(partition);
            long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            while (consumer.position(partition) < end && System.nanoTime() < deadline) {
                consumer.poll(Duration.ofMillis(200)).forEach(letters::add);
            }
        }
        return letters;
    }

    /**
     * What {@code read} gives once it is {@code expected}, polled every 200 ms while the instance runs (a store between
     * owners is asked again), or after 3 minutes whatever it gives then: for the caller to assert on.
     */
    static <T> Map<GeneratedData.Point, T> awaitRows(KafkaStreams streams, java.util.function.Function<KafkaStreams,
            Map<GeneratedData.Point, T>> read, Map<GeneratedData.Point, T> expected) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofMinutes(3).toNanos();
        Map<GeneratedData.Point, T> stored = Map.of();
        while (System.nanoTime() < deadline) {
            if (streams.state() == KafkaStreams.State.RUNNING) {
                try {
                    stored = read.apply(streams);
                    if (stored.equals(expected)) {
                        return stored;
                    }
                } catch (org.apache.kafka.streams.errors.InvalidStateStoreException rebalancing) {
                    // The store is between owners for a moment: ask again.
                }
            }
            Thread.sleep(200);
        }
        return stored;
    }
}
