package dev.tspipe.processor.topology;

import dev.tspipe.processor.store.RocksDbMemory;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.errors.AuthenticationException;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Wires a Kafka Streams instance of the ingestion topology: the process-wide RocksDB memory
 * budget, the partition count of the readings topic (asked of the broker once), the topology,
 * tspipe's Kafka Streams defaults with the user's settings on top, and the replacement of failed
 * stream threads ({@link StreamThreadReplacement}).
 */
public final class TspipeStreams {

    private static final Logger log = LoggerFactory.getLogger(TspipeStreams.class);
    private static final long LOOKUP_TIMEOUT_S = 30;

    private TspipeStreams() {
    }

    /**
     * @param config          tspipe's settings; when it does not give the readings topic's partition count, the
     *                        broker is asked, and an {@link IllegalStateException} says what to fix if it cannot answer
     *                        (the topic does not exist, Kafka cannot be reached)
     * @param streamsSettings Kafka Streams settings ({@code application.id}, {@code bootstrap.servers}, ...),
     *                        applied over {@link StreamsSettings#defaults}
     */
    public static KafkaStreams create(PipelineConfig config, Map<String, ?> streamsSettings) {
        RocksDbMemory.configure(config.rocksDbMemoryBytes());
        Properties props = new Properties();
        props.putAll(StreamsSettings.merged(config, streamsSettings));
        PipelineConfig placed = withPartitions(config, props);
        KafkaStreams streams = new KafkaStreams(TspipeTopology.build(placed), props);
        streams.setUncaughtExceptionHandler(new StreamThreadReplacement());
        return streams;
    }

    /**
     * {@code config} with the readings topic's partition count, asked of the broker when it is not set; the devices
     * topic is looked up with it, because Kafka Streams would only fail later, in its global thread, without it.
     */
    private static PipelineConfig withPartitions(PipelineConfig config, Properties props) {
        if (config.readingsPartitions() > 0) {
            return config;
        }
        String topic = config.readingsTopic();
        String devices = config.devicesTopic();
        List<String> topics = List.of(topic, devices);
        Map<String, Object> admin = new StreamsConfig(props).getAdminConfigs("tspipe-partitions");
        try (Admin client = Admin.create(admin)) {
            Map<String, KafkaFuture<TopicDescription>> described = client.describeTopics(topics).topicNameValues();
            try {
                described.get(devices).get(LOOKUP_TIMEOUT_S, TimeUnit.SECONDS);
            } catch (ExecutionException e) {
                if (e.getCause() instanceof UnknownTopicOrPartitionException) {
                    Object bootstrap = props.get(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG);
                    throw new IllegalStateException("the devices topic '" + devices + "' does not exist on " + bootstrap
                            + "; every node reads it (device metadata, docs/devices.md): create it first, e.g. "
                            + "tspipe node --create-topics, or kafka-topics.sh --bootstrap-server " + bootstrap
                            + " --create --topic " + devices + " --partitions 1 --config cleanup.policy=compact", e.getCause());
                }
                if (e.getCause() instanceof AuthorizationException) {
                    throw new IllegalStateException("Kafka at " + props.get(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG)
                            + " does not allow this client to describe the devices topic '" + devices + "': "
                            + e.getCause().getMessage() + "; grant it DESCRIBE and READ on the topic (an ACL)", e.getCause());
                }
                // The readings topic's lookup below says what is wrong (Kafka unreachable, credentials).
            }
            TopicDescription description = described.get(topic).get(LOOKUP_TIMEOUT_S, TimeUnit.SECONDS);
            int partitions = description.partitions().size();
            log.info("Readings topic {} has {} partitions; a record in another partition than its device's is re-routed",
                    topic, partitions);
            Map<Object, Object> originals = new HashMap<>(config.originals());
            originals.put(PipelineConfig.READINGS_PARTITIONS, partitions);
            return new PipelineConfig(originals);
        } catch (ExecutionException e) {
            Object bootstrap = props.get(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG);
            if (e.getCause() instanceof UnknownTopicOrPartitionException) {
                throw new IllegalStateException("the readings topic '" + topic + "' does not exist on " + bootstrap
                        + "; create it first, e.g. kafka-topics.sh --bootstrap-server " + bootstrap + " --create --topic "
                        + topic + " --partitions 12", e.getCause());
            }
            if (e.getCause() instanceof AuthenticationException) {
                throw new IllegalStateException("Kafka at " + bootstrap + " refused this client's credentials: "
                        + e.getCause().getMessage() + "; check the security settings (security.protocol, sasl.mechanism,"
                        + " sasl.jaas.config, ssl.*: --kafka-config)", e.getCause());
            }
            if (e.getCause() instanceof AuthorizationException) {
                throw new IllegalStateException("Kafka at " + bootstrap + " does not allow this client to describe the"
                        + " readings topic '" + topic + "': " + e.getCause().getMessage() + "; grant it DESCRIBE and READ on"
                        + " the topic (an ACL)", e.getCause());
            }
            throw new IllegalStateException("cannot reach Kafka at " + bootstrap + " to look up the readings topic '" + topic
                    + "': " + e.getCause().getMessage() + "; check bootstrap.servers (--bootstrap-servers)", e.getCause());
        } catch (TimeoutException e) {
            throw new IllegalStateException("Kafka at " + props.get(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG)
                    + " did not say within " + LOOKUP_TIMEOUT_S + " s how many partitions the readings topic '" + topic
                    + "' has; check bootstrap.servers (--bootstrap-servers), or set " + PipelineConfig.READINGS_PARTITIONS, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while looking up the readings topic's partitions", e);
        }
    }
}
