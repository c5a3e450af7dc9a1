package dev.tspipe.ingest;

import dev.tspipe.model.devices.DeviceKeys;
import dev.tspipe.schemas.Device;
import dev.tspipe.schemas.serde.AvroDeserializer;
import dev.tspipe.schemas.serde.AvroSerializer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The devices topic as {@code tspipe devices} reads and writes it (docs/devices.md): key = the device id
 * ({@code tenant/id} when it has a tenant, as readings are keyed), value = Avro {@link Device} in the Confluent wire
 * format (subject {@code <topic>-value}), a tombstone deletes. Reading needs no node: the compacted topic is read
 * from its start to its end.
 */
public final class DeviceTopic {

    private static final Logger LOG = LoggerFactory.getLogger(DeviceTopic.class);
    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    private final String topic;
    private final Map<String, Object> settings;

    /**
     * @param settings Kafka client settings ({@code bootstrap.servers}, security) and the serde's
     *                 ({@code schema.registry.url} required)
     */
    public DeviceTopic(String topic, Map<String, Object> settings) {
        this.topic = topic;
        this.settings = Map.copyOf(settings);
    }

    /**
     * Writes the devices in one transaction: a reader of committed records (every node under exactly-once, and
     * {@link #readAll}) sees all of them or, when this fails, none.
     *
     * @param progress told of each device acknowledged
     */
    public void putAll(List<Device> devices, Progress progress) {
        Map<String, Object> config = producerSettings();
        config.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "tspipe-devices-import-" + UUID.randomUUID());
        try (KafkaProducer<String, byte[]> producer = new KafkaProducer<>(config, new StringSerializer(), new ByteArraySerializer());
             AvroSerializer<Object> avro = serializer()) {
            producer.initTransactions();
            producer.beginTransaction();
            try {
                for (Device device : devices) {
                    producer.send(new ProducerRecord<>(topic, DeviceKeys.keyOf(device), avro.serialize(topic, device)),
                            (metadata, error) -> progress.stepBy(error == null ? 1 : 0));
                }
                producer.commitTransaction();
            } catch (KafkaException e) {
                producer.abortTransaction();
                throw e;
            }
        }
    }

    /** Writes one device (its newest version). */
    public void put(Device device) {
        send(DeviceKeys.keyOf(device), device);
    }

    /** Deletes the device of {@code key} (a tombstone; the topic's compaction removes its versions later). */
    public void delete(String key) {
        send(key, null);
    }

    private void send(String key, Device device) {
        try (KafkaProducer<String, byte[]> producer = new KafkaProducer<>(producerSettings(), new StringSerializer(),
                new ByteArraySerializer()); AvroSerializer<Object> avro = serializer()) {
            producer.send(new ProducerRecord<>(topic, key, device == null ? null : avro.serialize(topic, device)))
                    .get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            throw e.getCause() instanceof KafkaException kafka ? kafka : new KafkaException(e.getCause());
        } catch (TimeoutException e) {
            throw new KafkaException("no acknowledgement within " + TIMEOUT.toSeconds() + " s", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new KafkaException("interrupted", e);
        }
    }

    /**
     * Every device of the topic, by key: its records from the start to the end as they are now, the newest version of
     * each key kept, a tombstone removing it. A record that is not a device is skipped (and logged).
     */
    public Map<String, Device> readAll() {
        Map<String, Object> config = new HashMap<>(settings);
        config.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        config.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 5_000);
        Map<String, Device> devices = new TreeMap<>();
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(config, new ByteArrayDeserializer(), new ByteArrayDeserializer());
             AvroDeserializer<Device> avro = new AvroDeserializer<>(Device.class)) {
            avro.configure(settings, false);
            List<PartitionInfo> partitions = consumer.partitionsFor(topic, TIMEOUT);
            if (partitions == null || partitions.isEmpty()) {
                throw new KafkaException("the topic '" + topic + "' does not exist");
            }
            List<TopicPartition> assigned = partitions.stream().map(p -> new TopicPartition(topic, p.partition())).toList();
            consumer.assign(assigned);
            consumer.seekToBeginning(assigned);
            Map<TopicPartition, Long> end = consumer.endOffsets(assigned, TIMEOUT);
            long deadline = System.nanoTime() + TIMEOUT.toNanos();
            while (assigned.stream().anyMatch(p -> consumer.position(p, TIMEOUT) < end.get(p))) {
                if (System.nanoTime() > deadline) {
                    throw new KafkaException("the topic '" + topic + "' was not read to its end within " + TIMEOUT.toSeconds() + " s");
                }
                for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(500))) {
                    if (record.key() == null) {
                        continue;
                    }
                    String key = new String(record.key(), StandardCharsets.UTF_8);
                    if (record.value() == null) {
                        devices.remove(key);
                        continue;
                    }
                    try {
                        devices.put(key, avro.deserialize(topic, record.value()));
                    } catch (SerializationException e) {
                        LOG.warn("Record {}-{}@{} is not a device, skipped: {}", record.topic(), record.partition(),
                                record.offset(), e.getMessage());
                    }
                }
            }
        }
        return devices;
    }

    private Map<String, Object> producerSettings() {
        Map<String, Object> config = new HashMap<>(settings);
        config.put(ProducerConfig.ACKS_CONFIG, "all");
        config.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        config.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, (int) TIMEOUT.toMillis());
        return config;
    }

    private AvroSerializer<Object> serializer() {
        AvroSerializer<Object> avro = new AvroSerializer<>();
        avro.configure(settings, false);
        return avro;
    }
}
