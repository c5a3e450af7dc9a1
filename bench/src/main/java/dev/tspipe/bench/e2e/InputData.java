package dev.tspipe.bench.e2e;

import dev.tspipe.ingest.ReadingBatches;
import dev.tspipe.ingest.ReadingGenerator;
import dev.tspipe.schemas.Reading;
import dev.tspipe.schemas.ReadingBatch;
import dev.tspipe.schemas.serde.AvroSerdeConfig;
import dev.tspipe.schemas.serde.AvroSerializer;
import dev.tspipe.schemas.serde.Subjects;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The preloaded input: generated readings, serialized once in the Confluent wire format, then
 * written with a plain producer (the produce limit) and read back with a plain consumer (the
 * consume limit). Only the Kafka client calls are timed, never the Avro encoding.
 */
final class InputData {

    /** A series of the input, for the query phase. */
    record Series(String device, String metric) {
    }

    private final byte[][] keys;
    private final byte[][] values;
    private final long[] timestamps;
    private final List<Series> series;
    private final ReadingGenerator.Options generated;
    private final ReadingRows rows;
    private final Batched batched;

    /** The same readings as batches: one record per {@code readingsPerBatch} readings of a device (fewer at the end). */
    record Batched(byte[][] keys, byte[][] values, long[] timestamps, int readingsPerBatch) {

        long valueBytes() {
            long total = 0;
            for (byte[] value : values) {
                total += value.length;
            }
            return total;
        }
    }

    private InputData(byte[][] keys, byte[][] values, long[] timestamps, List<Series> series, ReadingGenerator.Options generated,
                      ReadingRows rows, Batched batched) {
        this.keys = keys;
        this.values = values;
        this.timestamps = timestamps;
        this.series = series;
        this.generated = generated;
        this.rows = rows;
        this.batched = batched;
    }

    /**
     * Readings spread evenly over {@code span} of event time, ending 5 minutes ago: none expired, none in the future.
     * With {@code keepRows}, the readings are also kept as {@link #rows()}, for a peer fed from memory.
     *
     * @param reportJitter null: independent readings; otherwise device reports, each later by up to this
     * @param batch        above 0: the same readings also as batches of this many readings of a device ({@link #batched()}),
     *                     each device's in their order (a device's batch leaves when it is full; the rest at the end)
     */
    static InputData generate(int count, int devices, int metrics, Duration span, Duration reportJitter, String registryUrl,
                              boolean keepRows, int batch) {
        Instant start = Instant.now().minus(span).minus(Duration.ofMinutes(5));
        double rate = count / (double) span.toSeconds();
        ReadingGenerator.Options shape = ReadingGenerator.Options.of(devices, metrics, rate, start);
        ReadingGenerator generator = new ReadingGenerator(reportJitter == null ? shape : shape.withReports(reportJitter));
        AvroSerializer<Reading> avro = serializer(registryUrl);
        byte[][] keys = new byte[count][];
        byte[][] values = new byte[count][];
        long[] timestamps = new long[count];
        Set<Series> series = new LinkedHashSet<>();
        ReadingRows rows = keepRows ? new ReadingRows(count) : null;
        BatchedWriter batches = batch > 0 ? new BatchedWriter(batch, registryUrl) : null;
        for (int i = 0; i < count; i++) {
            Reading reading = generator.next();
            if (batches != null) {
                batches.add(reading);
            }
            if (rows != null) {
                rows.add(reading);
            }
            keys[i] = reading.getDeviceId().getBytes(StandardCharsets.UTF_8);
            values[i] = avro.serialize(EndToEndBenchmark.INPUT_TOPIC, reading);
            timestamps[i] = reading.getTimestamp().toEpochMilli();
            series.add(new Series(reading.getDeviceId(), reading.getMetric()));
        }
        avro.close();
        return new InputData(keys, values, timestamps, List.copyOf(series), generator.options(), rows,
                batches == null ? null : batches.finish());
    }

    /** Collects each device's readings into batches of {@code size}, written in the wire format as a producer would. */
    private static final class BatchedWriter {
        private final int size;
        private final AvroSerializer<ReadingBatch> avro;
        private final Map<String, List<Reading>> pending = new LinkedHashMap<>();
        private final List<byte[]> keys = new ArrayList<>();
        private final List<byte[]> values = new ArrayList<>();
        private final List<Long> timestamps = new ArrayList<>();

        BatchedWriter(int size, String registryUrl) {
            this.size = size;
            this.avro = new AvroSerializer<>();
            avro.configure(Map.of(AvroSerdeConfig.SCHEMA_REGISTRY_URL, registryUrl,
                    AvroSerdeConfig.VALUE_SUBJECT_NAME_STRATEGY, Subjects.TOPIC_RECORD_NAME.className()), false);
        }

        void add(Reading reading) {
            List<Reading> device = pending.computeIfAbsent(reading.getDeviceId(), d -> new ArrayList<>(size));
            device.add(reading);
            if (device.size() == size) {
                write(pending.remove(reading.getDeviceId()));
            }
        }

        private void write(List<Reading> readings) {
            ReadingBatch batch = ReadingBatches.of(readings);
            keys.add(batch.getDeviceId().getBytes(StandardCharsets.UTF_8));
            values.add(avro.serialize(EndToEndBenchmark.INPUT_TOPIC_BATCHED, batch));
            timestamps.add(readings.stream().mapToLong(r -> r.getTimestamp().toEpochMilli()).max().orElseThrow());
        }

        Batched finish() {
            pending.values().forEach(this::write);
            pending.clear();
            avro.close();
            return new Batched(keys.toArray(byte[][]::new), values.toArray(byte[][]::new),
                    timestamps.stream().mapToLong(Long::longValue).toArray(), size);
        }
    }

    /** The same readings as batches; null when the input was generated without. */
    Batched batched() {
        return batched;
    }

    /** The readings themselves, in input order: the same devices, metrics, timestamps, values and tags as the topic's. */
    ReadingRows rows() {
        if (rows == null) {
            throw new IllegalStateException("the input was generated without keeping its rows");
        }
        return rows;
    }

    /** tspipe's Avro serializer in the Confluent wire format, through the registry: how every reading of the harness is written. */
    static AvroSerializer<Reading> serializer(String registryUrl) {
        AvroSerializer<Reading> avro = new AvroSerializer<>();
        avro.configure(Map.of(AvroSerdeConfig.SCHEMA_REGISTRY_URL, registryUrl), false);
        return avro;
    }

    /** The producer of every reading of the harness: acks=all, lz4, batches of up to 512 KiB after 20 ms. */
    static Map<String, Object> producerConfig(String bootstrap) {
        return Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                ProducerConfig.ACKS_CONFIG, "all",
                ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4",
                ProducerConfig.LINGER_MS_CONFIG, 20,
                ProducerConfig.BATCH_SIZE_CONFIG, 512 * 1024,
                ProducerConfig.BUFFER_MEMORY_CONFIG, 256L * 1024 * 1024);
    }

    /**
     * The options of a generator of fresh readings: the same devices, metrics and shape (reports or independent
     * readings), {@code ratePerSecond} readings per second of event time, from just after the last preloaded reading
     * (so that none is older than the preloaded ones), with another seed.
     */
    ReadingGenerator.Options freshReadings(double ratePerSecond) {
        long last = 0;
        for (long timestamp : timestamps) {
            last = Math.max(last, timestamp);
        }
        ReadingGenerator.Options fresh = ReadingGenerator.Options.of(generated.devices(), generated.metrics(), ratePerSecond,
                Instant.ofEpochMilli(last + 1)).withSeed(generated.seed() + 1);
        return generated.reportJitter() == null ? fresh : fresh.withReports(generated.reportJitter());
    }

    int count() {
        return values.length;
    }

    List<Series> series() {
        return series;
    }

    long valueBytes() {
        long total = 0;
        for (byte[] value : values) {
            total += value.length;
        }
        return total;
    }

    /** Writes every reading (record timestamp = reading time); returns the elapsed nanoseconds until all are acknowledged. */
    long produce(String bootstrap, String topic) {
        return produce(bootstrap, topic, keys, values, timestamps);
    }

    /** Writes every batch of {@link #batched()} (record timestamp = its latest reading's); returns the elapsed nanoseconds. */
    long produceBatched(String bootstrap, String topic) {
        return produce(bootstrap, topic, batched.keys(), batched.values(), batched.timestamps());
    }

    private static long produce(String bootstrap, String topic, byte[][] keys, byte[][] values, long[] timestamps) {
        AtomicReference<Exception> failure = new AtomicReference<>();
        long start = System.nanoTime();
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(producerConfig(bootstrap), new ByteArraySerializer(),
                new ByteArraySerializer())) {
            for (int i = 0; i < values.length; i++) {
                producer.send(new ProducerRecord<>(topic, null, timestamps[i], keys[i], values[i]), (metadata, e) -> {
                    if (e != null) {
                        failure.compareAndSet(null, e);
                    }
                });
            }
            producer.flush();
        }
        long elapsed = System.nanoTime() - start;
        if (failure.get() != null) {
            throw new IllegalStateException("the preload failed: " + failure.get().getMessage(), failure.get());
        }
        return elapsed;
    }

    /** Reads the whole topic from the beginning with a plain consumer; returns the elapsed nanoseconds. */
    static long consumeAll(String bootstrap, String topic, long expected, Map<TopicPartition, Long> ends) {
        Map<String, Object> config = Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false,
                ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 10_000,
                ConsumerConfig.FETCH_MAX_BYTES_CONFIG, 64 * 1024 * 1024,
                ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, 8 * 1024 * 1024);
        long start = System.nanoTime();
        long read = 0;
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(config, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            List<TopicPartition> partitions = new ArrayList<>(ends.keySet());
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            long deadline = System.nanoTime() + Duration.ofMinutes(5).toNanos();
            while (read < expected) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("the plain consumer read " + read + " of " + expected + " records in 5 minutes");
                }
                ConsumerRecords<byte[], byte[]> records = consumer.poll(Duration.ofMillis(500));
                read += records.count();
            }
        }
        return System.nanoTime() - start;
    }
}
