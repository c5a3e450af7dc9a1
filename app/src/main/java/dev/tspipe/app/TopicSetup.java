package dev.tspipe.app;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.errors.TopicExistsException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Creates a node's input, dead-letter and devices topics when they are missing ({@code tspipe node
 * --create-topics}), with the cluster's default replication factor and min ISR, so that a fresh
 * cluster needs no {@code kafka-topics.sh} step. The devices topic is compacted (the newest version of
 * each device is kept, a tombstone deletes it: docs/devices.md). Several nodes may race to create them:
 * the topic that exists already is left as it is.
 */
final class TopicSetup {

    private static final Logger log = LoggerFactory.getLogger(TopicSetup.class);
    private static final long TIMEOUT_S = 60;

    private TopicSetup() {
    }

    /** @param clientSettings Kafka client settings: {@code bootstrap.servers}, security, ... */
    static void createMissing(Map<String, Object> clientSettings, String readingsTopic, int partitions, String dlqTopic,
                              String devicesTopic) {
        if (partitions < 1) {
            throw new UserError("--partitions must be at least 1, not " + partitions);
        }
        Object bootstrapServers = clientSettings.get(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG);
        Map<String, Object> settings = new HashMap<>(clientSettings);
        settings.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) TimeUnit.SECONDS.toMillis(TIMEOUT_S));
        try (Admin admin = Admin.create(settings)) {
            for (NewTopic topic : List.of(new NewTopic(readingsTopic, Optional.of(partitions), Optional.empty()),
                    new NewTopic(dlqTopic, Optional.of(1), Optional.empty()),
                    new NewTopic(devicesTopic, Optional.of(1), Optional.empty())
                            .configs(Map.of(TopicConfig.CLEANUP_POLICY_CONFIG, TopicConfig.CLEANUP_POLICY_COMPACT)))) {
                try {
                    admin.createTopics(List.of(topic)).all().get(TIMEOUT_S, TimeUnit.SECONDS);
                    log.info("Created topic {} ({} partitions, the cluster's replication factor)", topic.name(),
                            topic.numPartitions());
                } catch (ExecutionException e) {
                    if (!(e.getCause() instanceof TopicExistsException)) {
                        throw new UserError("cannot create topic '" + topic.name() + "' on " + bootstrapServers + ": "
                                + e.getCause().getMessage() + "; check --bootstrap-servers, or create it yourself");
                    }
                }
            }
        } catch (TimeoutException e) {
            throw new UserError("Kafka at " + bootstrapServers + " did not answer within " + TIMEOUT_S
                    + " s while creating topics; check --bootstrap-servers");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new UserError("interrupted while creating topics");
        }
    }
}
