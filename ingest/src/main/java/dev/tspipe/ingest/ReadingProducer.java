package dev.tspipe.ingest;

import dev.tspipe.model.keys.DistributionKey;
import dev.tspipe.schemas.LogText;
import dev.tspipe.schemas.Reading;
import dev.tspipe.schemas.ReadingBatch;
import dev.tspipe.schemas.serde.AvroSerdeConfig;
import dev.tspipe.schemas.serde.AvroSerializer;
import dev.tspipe.schemas.serde.Subjects;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.Serializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
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
 * <p><b>Batches.</b> A {@link ReadingBatch} (many readings of one device in one record) is sent with
 * {@link #send(ReadingBatch)}, its schema registered under {@code <topic>-dev.tspipe.schemas.ReadingBatch}
 * (TopicRecordNameStrategy) while single readings stay under {@code <topic>-value}. With
 * {@value #BATCH_READINGS} above 1 in the settings, {@link #send(Reading)} itself batches: it keeps each device's
 * readings until it has that many, or until {@value #BATCH_LINGER_MS} ms have passed since the first, or until
 * {@link #flush()}, and sends them as one batch ({@link ReadingBatches}); each reading's future completes with its
 * batch's record. Counts are of readings either way.
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

    /** Setting: the most readings of a device that {@link #send(Reading)} puts in one record; 1 (the default) sends each alone. */
    public static final String BATCH_READINGS = "tspipe.batch.readings";
    /** Setting: the longest a reading waits for its batch to fill, in milliseconds (default 100). */
    public static final String BATCH_LINGER_MS = "tspipe.batch.linger.ms";
    private static final long DEFAULT_LINGER_MS = 100;
    /** The largest batch value {@link #sendAll} writes, in bytes: half of the broker's and tspipe's 1 MiB record limits. */
    public static final int MAX_BATCH_BYTES = 512 * 1024;

    private final Producer<byte[], byte[]> producer;
    private final Serializer<Reading> readings;
    private final Serializer<ReadingBatch> batches;
    private final String topic;
    private final int batchReadings;
    private final long lingerNanos;
    /** Readings waiting for their batch, by distribution key, in the order devices came; guarded by itself. */
    private final Map<String, Pending> pending = new LinkedHashMap<>();
    private final ScheduledExecutorService lingering;
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

    /** A device's readings that wait for their batch, and their callers' futures. */
    private static final class Pending {
        final List<Reading> readings = new ArrayList<>();
        final List<CompletableFuture<RecordMetadata>> results = new ArrayList<>();
        final long firstNanos = System.nanoTime();
    }

    ReadingProducer(Producer<byte[], byte[]> producer, Serializer<Reading> readings, Serializer<ReadingBatch> batches,
                    String topic, int batchReadings, long lingerMs) {
        if (batchReadings < 1) {
            throw new IllegalArgumentException(BATCH_READINGS + " must be at least 1, not " + batchReadings);
        }
        if (lingerMs < 0) {
            throw new IllegalArgumentException(BATCH_LINGER_MS + " must be at least 0, not " + lingerMs);
        }
        this.producer = Objects.requireNonNull(producer, "producer");
        this.readings = Objects.requireNonNull(readings, "readings");
        this.batches = Objects.requireNonNull(batches, "batches");
        this.topic = Objects.requireNonNull(topic, "topic");
        this.batchReadings = batchReadings;
        this.lingerNanos = TimeUnit.MILLISECONDS.toNanos(lingerMs);
        if (batchReadings > 1) {
            lingering = Executors.newSingleThreadScheduledExecutor(task -> {
                Thread thread = new Thread(task, "tspipe-batch-linger-" + topic);
                thread.setDaemon(true);
                return thread;
            });
            long tick = Math.max(1, lingerMs / 2);
            lingering.scheduleWithFixedDelay(this::sendLingering, tick, tick, TimeUnit.MILLISECONDS);
        } else {
            lingering = null;
        }
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
        int batchReadings = intSetting(merged.remove(BATCH_READINGS), 1, BATCH_READINGS);
        int lingerMs = intSetting(merged.remove(BATCH_LINGER_MS), (int) DEFAULT_LINGER_MS, BATCH_LINGER_MS);
        AvroSerializer<Reading> values = new AvroSerializer<>();
        values.configure(merged, false);
        // Batches under their own subject (TopicRecordNameStrategy), single readings under <topic>-value as ever.
        Map<String, Object> batchSettings = new HashMap<>(merged);
        batchSettings.put(AvroSerdeConfig.VALUE_SUBJECT_NAME_STRATEGY, Subjects.TOPIC_RECORD_NAME.className());
        AvroSerializer<ReadingBatch> batchValues = new AvroSerializer<>();
        batchValues.configure(batchSettings, false);
        Map<String, Object> producerSettings = new HashMap<>(merged);
        // The serializers are tspipe's own: their keys are not the producer's (and would be logged as unknown).
        producerSettings.keySet().removeAll(AvroSerdeConfig.definition().names());
        return new ReadingProducer(new KafkaProducer<>(producerSettings, new ByteArraySerializer(), new ByteArraySerializer()),
                values, batchValues, topic, batchReadings, lingerMs);
    }

    private static int intSetting(Object value, int otherwise, String name) {
        if (value == null) {
            return otherwise;
        }
        try {
            return value instanceof Number number ? number.intValue() : Integer.parseInt(value.toString().trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(name + " must be a whole number, not '" + value + "'");
        }
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
     * Sends a reading (alone, or in its device's next batch when batching). The future completes with the record's
     * metadata once the broker has it (all in-sync replicas), or exceptionally with the reason it could not be
     * written, including serialization and schema-registry failures.
     */
    public CompletableFuture<RecordMetadata> send(Reading reading) {
        Objects.requireNonNull(reading, "reading");
        CompletableFuture<RecordMetadata> result = new CompletableFuture<>();
        sent.incrementAndGet();
        if (batchReadings == 1) {
            byte[] value;
            try {
                value = readings.serialize(topic, reading);
            } catch (RuntimeException e) {
                fail(List.of(reading), e, List.of(result));
                return result;
            }
            write(reading.getTimestamp().toEpochMilli(), distributionKey(reading), value, List.of(reading), List.of(result));
            return result;
        }
        // Batches leave under the lock, so that a device's batches reach the producer in the order of their readings
        // whichever thread (a caller's, the lingering one) sends them.
        synchronized (pending) {
            Pending device = pending.computeIfAbsent(distributionKey(reading), key -> new Pending());
            device.readings.add(reading);
            device.results.add(result);
            if (device.readings.size() >= batchReadings) {
                sendPending(pending.remove(distributionKey(reading)));
            }
        }
        return result;
    }

    /**
     * Sends a batch of readings of one device as one record, keyed by its device, timestamped with its latest reading.
     * The future completes as {@link #send(Reading)}'s does; the counts count its readings.
     */
    public CompletableFuture<RecordMetadata> send(ReadingBatch batch) {
        Objects.requireNonNull(batch, "batch");
        List<Reading> of = ReadingBatches.readingsOf(batch);
        sent.addAndGet(of.size());
        CompletableFuture<RecordMetadata> result = new CompletableFuture<>();
        sendBatch(batch, of, List.of(result));
        return result;
    }

    /**
     * Sends {@code readings} at once, one batch per device, without waiting for more: what an HTTP write of many
     * readings does. A device's batch over {@value #MAX_BATCH_BYTES} bytes is sent in halves until each is under it (the
     * broker's and tspipe's record size limits are 1 MiB). The future completes when every record is acknowledged, or
     * exceptionally with the first failure; the counts count each reading.
     */
    public CompletableFuture<Void> sendAll(List<Reading> readings) {
        List<CompletableFuture<RecordMetadata>> results = new ArrayList<>();
        sent.addAndGet(readings.size());
        for (List<Reading> device : ReadingBatches.groupByDevice(readings)) {
            sendWithin(device, results);
        }
        return CompletableFuture.allOf(results.toArray(CompletableFuture[]::new));
    }

    /** Sends {@code of} (one device's) as one batch, or in halves while a batch of them is over {@link #MAX_BATCH_BYTES}. */
    private void sendWithin(List<Reading> of, List<CompletableFuture<RecordMetadata>> results) {
        CompletableFuture<RecordMetadata> result = new CompletableFuture<>();
        byte[] value;
        ReadingBatch batch;
        try {
            batch = ReadingBatches.of(of);
            value = batches.serialize(topic, batch);
        } catch (RuntimeException e) {
            fail(of, e, List.of(result));
            results.add(result);
            return;
        }
        if (value.length > MAX_BATCH_BYTES && of.size() > 1) {
            sendWithin(of.subList(0, of.size() / 2), results);
            sendWithin(of.subList(of.size() / 2, of.size()), results);
            return;
        }
        results.add(result);
        write(ReadingBatches.latestMillis(batch), DistributionKey.of(batch.getTenant(), batch.getDeviceId()), value, of, List.of(result));
    }

    private void sendPending(Pending device) {
        ReadingBatch batch;
        try {
            batch = ReadingBatches.of(device.readings);
        } catch (RuntimeException e) {
            fail(device.readings, e, device.results);
            return;
        }
        sendBatch(batch, device.readings, device.results);
    }

    private void sendBatch(ReadingBatch batch, List<Reading> of, List<CompletableFuture<RecordMetadata>> results) {
        byte[] value;
        try {
            value = batches.serialize(topic, batch);
        } catch (RuntimeException e) {
            fail(of, e, results);
            return;
        }
        write(ReadingBatches.latestMillis(batch), DistributionKey.of(batch.getTenant(), batch.getDeviceId()), value, of, results);
    }

    /** Writes one record of {@code of}; every future of {@code results} completes with it. */
    private void write(long timestamp, String key, byte[] value, List<Reading> of, List<CompletableFuture<RecordMetadata>> results) {
        ProducerRecord<byte[], byte[]> record = new ProducerRecord<>(topic, null, timestamp, key.getBytes(StandardCharsets.UTF_8), value);
        try {
            producer.send(record, (metadata, error) -> {
                if (error == null) {
                    acknowledged.addAndGet(of.size());
                    results.forEach(result -> result.complete(metadata));
                } else {
                    fail(of, error, results);
                }
            });
        } catch (RuntimeException e) {
            // A closed producer (and a full buffer past max.block.ms) fails in the caller's thread, before a callback exists.
            fail(of, e, results);
        }
    }

    /** Sends the batches whose first reading has waited the linger time (the lingering thread's task). */
    private void sendLingering() {
        long now = System.nanoTime();
        synchronized (pending) {
            for (Iterator<Pending> devices = pending.values().iterator(); devices.hasNext(); ) {
                Pending device = devices.next();
                if (now - device.firstNanos >= lingerNanos) {
                    devices.remove();
                    sendPending(device);
                }
            }
        }
    }

    /** Sends every reading that waits for its batch, now. */
    private void sendAllPending() {
        synchronized (pending) {
            pending.values().forEach(this::sendPending);
            pending.clear();
        }
    }

    private void fail(List<Reading> of, Throwable error, List<CompletableFuture<RecordMetadata>> results) {
        long failures = failed.addAndGet(of.size());
        Reading reading = of.get(0);
        if (failures - of.size() < LOGGED_ONE_BY_ONE) {
            log.warn("Could not write {} of {} {} at {} to topic '{}': {}", of.size() == 1 ? "the reading" : "a batch of " + of.size()
                            + " readings, the first", LogText.escape(distributionKey(reading)), LogText.escape(reading.getMetric()),
                    reading.getTimestamp(), topic, LogText.escape(error));
        } else if (failures / LOG_EVERY != (failures - of.size()) / LOG_EVERY) {
            log.warn("{} readings could not be written to topic '{}' so far; the last failure: {}", failures, topic,
                    LogText.escape(error));
        }
        results.forEach(result -> result.completeExceptionally(error));
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

    /** Sends everything buffered (readings waiting for their batch too) and waits until each send has completed (with success or failure). */
    public void flush() {
        sendAllPending();
        producer.flush();
    }

    /** What was sent, acknowledged and failed so far. */
    public Counts counts() {
        return new Counts(sent.get(), acknowledged.get(), failed.get());
    }

    /** Sends what is buffered (readings waiting for their batch too), then closes the producer. */
    @Override
    public void close() {
        if (lingering != null) {
            lingering.shutdownNow();
        }
        sendAllPending();
        producer.close();
    }
}
