package dev.tspipe.embedded.registry;

import dev.tspipe.schemas.registry.RegistryEvent;
import dev.tspipe.schemas.registry.RegistryException;
import dev.tspipe.schemas.registry.SchemaRegistryCore;

import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The registry's journal on Kafka: a compacted, single-partition topic (Confluent's
 * {@code _schemas}) that every change is written to, synchronously and before it is applied,
 * and that is replayed from the beginning when a registry starts.
 *
 * <p>The producer is idempotent with {@code acks=all}: a change the registry answered for is
 * on the broker, exactly once. One partition keeps the journal in one total order.
 */
public final class SchemasTopic implements SchemaRegistryCore.Journal, AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(SchemasTopic.class);

    /** Confluent Schema Registry's default {@code kafkastore.topic}. */
    public static final String DEFAULT_NAME = "_schemas";

    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    private final Map<String, Object> clientSettings;
    private final String bootstrapServers;
    private final String topic;
    private final KafkaProducer<String, String> producer;

    private SchemasTopic(Map<String, Object> clientSettings, String topic, KafkaProducer<String, String> producer) {
        this.clientSettings = clientSettings;
        this.bootstrapServers = String.valueOf(clientSettings.get(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG));
        this.topic = topic;
        this.producer = producer;
    }

    /** Creates the topic if it is missing, checks that it can serve as a journal, and opens a producer. */
    public static SchemasTopic open(String bootstrapServers, String topic) {
        return open(Map.of(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers), topic);
    }

    /**
     * As {@link #open(String, String)}, with Kafka client settings ({@code bootstrap.servers} and any
     * security settings) for the journal's producer, consumer and admin client.
     */
    public static SchemasTopic open(Map<String, Object> clientSettings, String topic) {
        Map<String, Object> settings = Map.copyOf(clientSettings);
        ensureTopic(settings, topic);
        Map<String, Object> config = new HashMap<>(settings);
        config.put(ProducerConfig.ACKS_CONFIG, "all");
        config.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        config.put(ProducerConfig.LINGER_MS_CONFIG, 0);
        config.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, (int) TIMEOUT.toMillis());
        config.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, (int) TIMEOUT.toMillis());
        config.put(ProducerConfig.CLIENT_ID_CONFIG, "tspipe-schema-registry-journal");
        return new SchemasTopic(settings, topic,
                new KafkaProducer<>(config, new StringSerializer(), new StringSerializer()));
    }

    public String name() {
        return topic;
    }

    /**
     * Applies every record from the beginning of the topic up to its end offset as of this
     * call, in order.
     *
     * @return the number of events applied
     */
    public int replayInto(SchemaRegistryCore core) {
        Map<String, Object> config = new HashMap<>(clientSettings);
        config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        config.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        config.put(ConsumerConfig.CLIENT_ID_CONFIG, "tspipe-schema-registry-replay");
        TopicPartition partition = new TopicPartition(topic, 0);
        int applied = 0;
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(config, new StringDeserializer(), new StringDeserializer())) {
            consumer.assign(List.of(partition));
            consumer.seekToBeginning(List.of(partition));
            long end = consumer.endOffsets(List.of(partition), TIMEOUT).get(partition);
            long deadline = System.nanoTime() + TIMEOUT.toNanos() * 4;
            while (consumer.position(partition, TIMEOUT) < end) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("Could not read " + topic + " up to offset " + end + " on " + bootstrapServers);
                }
                for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(200))) {
                    if (record.offset() >= end) {
                        break;
                    }
                    Optional<RegistryEvent> event;
                    try {
                        event = SchemasTopicCodec.decode(record.key(), record.value());
                    } catch (SchemasTopicCodec.MalformedRecordException e) {
                        throw new IllegalStateException("Cannot replay " + topic + " at offset " + record.offset() + ": " + e.getMessage(), e);
                    }
                    if (event.isPresent()) {
                        core.apply(event.get());
                        applied++;
                    }
                }
            }
            log.info("Replayed {} schema registry events from {} (end offset {})", applied, topic, end);
        }
        return applied;
    }

    /** Writes an event and waits until every in-sync replica has it; a failure is a 500 (50001) for the client. */
    @Override
    public void append(RegistryEvent event) {
        SchemasTopicCodec.Entry entry = SchemasTopicCodec.encode(event);
        try {
            RecordMetadata written = producer.send(new ProducerRecord<>(topic, 0, entry.key(), entry.value()))
                    .get(TIMEOUT.toMillis() + 5_000, TimeUnit.MILLISECONDS);
            log.debug("Journaled {} at {}-{}@{}", event, topic, written.partition(), written.offset());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw storeError(event, e);
        } catch (ExecutionException e) {
            throw storeError(event, e.getCause());
        } catch (TimeoutException | RuntimeException e) {
            throw storeError(event, e);
        }
    }

    private RegistryException storeError(RegistryEvent event, Throwable cause) {
        log.error("Could not write {} to {} on {}", event, topic, bootstrapServers, cause);
        return new RegistryException(500, RegistryException.STORE_ERROR,
                "Error while writing to the backend store (Kafka topic " + topic + "): " + cause.getMessage(), cause);
    }

    @Override
    public void close() {
        producer.close(Duration.ofSeconds(10));
    }

    private static void ensureTopic(Map<String, Object> clientSettings, String topic) {
        Object bootstrapServers = clientSettings.get(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG);
        Map<String, Object> config = new HashMap<>(clientSettings);
        config.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) TIMEOUT.toMillis());
        try (Admin admin = Admin.create(config)) {
            // The broker's default.replication.factor and min.insync.replicas: 1 on a single broker, 3 and 2 on a cluster.
            NewTopic newTopic = new NewTopic(topic, Optional.of(1), Optional.empty())
                    .configs(Map.of(TopicConfig.CLEANUP_POLICY_CONFIG, TopicConfig.CLEANUP_POLICY_COMPACT));
            try {
                admin.createTopics(List.of(newTopic)).all().get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
                log.info("Created schema registry topic {} (1 partition, compacted, the broker's replication factor)", topic);
            } catch (ExecutionException e) {
                if (!(e.getCause() instanceof TopicExistsException)) {
                    throw new IllegalStateException("Could not create topic " + topic + " on " + bootstrapServers
                            + ": " + e.getCause().getMessage(), e.getCause());
                }
            }
            // A topic just created may not be known yet to the broker answering the describe calls: ask again.
            long deadline = System.nanoTime() + TIMEOUT.toNanos();
            while (true) {
                try {
                    checkTopic(admin, topic);
                    break;
                } catch (ExecutionException e) {
                    if (!(e.getCause() instanceof UnknownTopicOrPartitionException) || System.nanoTime() > deadline) {
                        throw e;
                    }
                    Thread.sleep(100);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while preparing topic " + topic, e);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof AuthorizationException) {
                throw new IllegalStateException("Kafka at " + bootstrapServers + " does not allow this client to prepare the "
                        + "registry's topic " + topic + " (" + e.getCause().getMessage() + "); grant it CREATE, DESCRIBE, "
                        + "DESCRIBE_CONFIGS, READ and WRITE on topic " + topic + " (ACLs, docs/security.md)", e.getCause());
            }
            throw new IllegalStateException("Could not prepare topic " + topic + " on " + bootstrapServers + ": " + e.getMessage(), e);
        } catch (TimeoutException e) {
            throw new IllegalStateException("Could not prepare topic " + topic + " on " + bootstrapServers + ": " + e.getMessage(), e);
        }
    }

    /** Checks that {@code topic} has one partition and is compacted. */
    private static void checkTopic(Admin admin, String topic) throws ExecutionException, InterruptedException, TimeoutException {
        TopicDescription description = admin.describeTopics(List.of(topic)).allTopicNames()
                .get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS).get(topic);
        if (description.partitions().size() != 1) {
            throw new IllegalStateException("Topic " + topic + " has " + description.partitions().size()
                    + " partitions; the schema registry needs exactly 1 to keep its journal in order. "
                    + "Delete the topic or choose another one.");
        }
        ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, topic);
        Config topicConfig = admin.describeConfigs(List.of(resource)).all()
                .get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS).get(resource);
        String policy = topicConfig.get(TopicConfig.CLEANUP_POLICY_CONFIG).value();
        if (!TopicConfig.CLEANUP_POLICY_COMPACT.equals(policy)) {
            throw new IllegalStateException("Topic " + topic + " has cleanup.policy=" + policy
                    + "; the schema registry needs cleanup.policy=compact so that no schema is ever deleted by retention.");
        }
    }
}
