package dev.tspipe.ingest;

import dev.tspipe.model.keys.DistributionKey;
import dev.tspipe.schemas.LogText;
import dev.tspipe.schemas.Reading;
import dev.tspipe.schemas.serde.AvroSerdeConfig;
import dev.tspipe.schemas.serde.AvroSerializer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Writes {@link Reading}s to the readings topic as tspipe expects them (docs/design.md §3): key = the
 * device id ({@code tenant/device} when a tenant is set) in UTF-8, so that the default
 * partitioner puts every reading of a device in one partition; value = Avro in the Confluent wire
 * format; record timestamp = the reading's timestamp. The producer is idempotent with
 * {@code acks=all}, LZ4-compressed and batched ({@link #defaults()}); every setting can be
 * overridden.
 *
 * <p>{@link #send} is asynchronous and thread-safe. A failure is never swallowed: the returned
 * future completes exceptionally, the failure is counted ({@link #counts()}) and logged.
 *
 * <pre>{@code
 * try (ReadingProducer producer = ReadingProducer.create("broker:9092", "http://registry:8081", "readings")) {
 *     producer.send(reading).whenComplete((metadata, error) -> ...);
 * }
 * }</pre>
 */
public final class ReadingProducer implements AutoCloseable {

    /** The topic readings go to unless another is given. */
    public static final String DEFAULT_TOPIC = "readings";

    private static final Logger log = LoggerFactory.getLogger(ReadingProducer.class);
    /** Failures logged one by one before the log switches to a summary every {@link #LOG_EVERY} failures. */
    private static final int LOGGED_ONE_BY_ONE = 10;
    private static final int LOG_EVERY = 10_000;

    private final Producer<byte[], Reading> producer;
    private final String topic;
    private final AtomicLong sent = new AtomicLong();
    private final AtomicLong acknowledged = new AtomicLong();
    private final AtomicLong failed = new AtomicLong();

    /** What was sent, acknowledged by the broker, and failed so far. */
    public record Counts(long sent, long acknowledged, long failed) {

        /** Sent but neither acknowledged nor failed yet. */
        public long inFlight() {
            return sent - acknowledged - failed;
        }
    }

    ReadingProducer(Producer<byte[], Reading> producer, String topic) {
        this.producer = Objects.requireNonNull(producer, "producer");
        this.topic = Objects.requireNonNull(topic, "topic");
    }

    /** A producer to {@code topic} with tspipe's {@link #defaults()}. */
    public static ReadingProducer create(String bootstrapServers, String schemaRegistryUrl, String topic) {
        return create(topic, Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
                AvroSerdeConfig.SCHEMA_REGISTRY_URL, schemaRegistryUrl));
    }

    /**
     * A producer to {@code topic}.
     *
     * @param settings Kafka producer settings and Avro serde settings ({@code schema.registry.url} is
     *                 required; see {@link AvroSerdeConfig}), applied over {@link #defaults()}
     */
    public static ReadingProducer create(String topic, Map<String, ?> settings) {
        Map<String, Object> merged = new HashMap<>(defaults());
        merged.putAll(settings);
        AvroSerializer<Reading> values = new AvroSerializer<>();
        values.configure(merged, false);
        Map<String, Object> producerSettings = new HashMap<>(merged);
        // The serializer is passed as an instance: its keys are not the producer's (and would be logged as unknown).
        producerSettings.keySet().removeAll(AvroSerdeConfig.definition().names());
        return new ReadingProducer(new KafkaProducer<>(producerSettings, new ByteArraySerializer(), values), topic);
    }

    /**
     * The producer settings tspipe uses unless overridden: idempotence and {@code acks=all} (no
     * duplicates or losses from retries), LZ4 compression, 10 ms linger and 64 KiB batches (readings
     * are small; batching is what makes throughput).
     */
    public static Map<String, Object> defaults() {
        return Map.of(
                ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true,
                ProducerConfig.ACKS_CONFIG, "all",
                ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4",
                ProducerConfig.LINGER_MS_CONFIG, 10,
                ProducerConfig.BATCH_SIZE_CONFIG, 64 * 1024,
                ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, (int) Duration.ofMinutes(2).toMillis());
    }

    /** The Kafka key of a reading: {@code tenant/device}, or the device id when there is no tenant (docs/design.md §3). */
    public static String distributionKey(Reading reading) {
        return DistributionKey.of(reading.getTenant(), reading.getDeviceId());
    }

    /** The topic this producer writes to. */
    public String topic() {
        return topic;
    }

    /**
     * Sends a reading. The future completes with the record's metadata once the broker has it
     * (all in-sync replicas), or exceptionally with the reason it could not be written, including
     * serialization and schema-registry failures.
     */
    public CompletableFuture<RecordMetadata> send(Reading reading) {
        Objects.requireNonNull(reading, "reading");
        CompletableFuture<RecordMetadata> result = new CompletableFuture<>();
        sent.incrementAndGet();
        ProducerRecord<byte[], Reading> record = new ProducerRecord<>(topic, null, reading.getTimestamp().toEpochMilli(),
                distributionKey(reading).getBytes(StandardCharsets.UTF_8), reading);
        try {
            producer.send(record, (metadata, error) -> {
                if (error == null) {
                    acknowledged.incrementAndGet();
                    result.complete(metadata);
                } else {
                    fail(reading, error, result);
                }
            });
        } catch (RuntimeException e) {
            // Serialization (and a closed producer) fail in the caller's thread, before a callback exists.
            fail(reading, e, result);
        }
        return result;
    }

    private void fail(Reading reading, Throwable error, CompletableFuture<RecordMetadata> result) {
        long failures = failed.incrementAndGet();
        if (failures <= LOGGED_ONE_BY_ONE) {
            log.warn("Could not write the reading of {} {} at {} to topic '{}': {}", LogText.escape(distributionKey(reading)),
                    LogText.escape(reading.getMetric()), reading.getTimestamp(), topic, LogText.escape(error));
        } else if (failures % LOG_EVERY == 0) {
            log.warn("{} readings could not be written to topic '{}' so far; the last failure: {}", failures, topic,
                    LogText.escape(error));
        }
        result.completeExceptionally(error);
    }

    /**
     * Checks that the brokers answer and the topic exists, waiting at most {@code max.block.ms}.
     * Worth calling before a long run: with the brokers unreachable, every {@link #send} would block
     * that long before it fails.
     *
     * @return the topic's number of partitions
     * @throws org.apache.kafka.common.KafkaException when the brokers cannot be reached or the topic does not exist
     */
    public int awaitTopic() {
        return producer.partitionsFor(topic).size();
    }

    /** Sends everything buffered and waits until each send has completed (with success or failure). */
    public void flush() {
        producer.flush();
    }

    /** What was sent, acknowledged and failed so far. */
    public Counts counts() {
        return new Counts(sent.get(), acknowledged.get(), failed.get());
    }

    /** Sends what is buffered, then closes the producer. */
    @Override
    public void close() {
        producer.close();
    }
}
