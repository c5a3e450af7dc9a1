package dev.tspipe.bench.e2e;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.LogDirDescription;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.ReplicaInfo;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * What the broker holds for an application's changelog topics (every topic named
 * {@code <applicationId>-...-changelog}): bytes, the sum of the partitions' sizes on disk as the
 * broker reports them ({@code Admin.describeLogDirs}, every replica), and records, the end minus
 * the start offsets. Under exactly-once the offsets also count one commit marker per partition a
 * transaction wrote to, so records are slightly over-counted (about one per partition per commit).
 */
final class Changelogs {

    /** One changelog topic. */
    record Topic(String name, int partitions, long bytes, long records) {
    }

    private Changelogs() {
    }

    /** The changelog topics of {@code applicationId}, by name. */
    static List<Topic> of(Admin admin, String applicationId) {
        try {
            List<String> names = admin.listTopics().names().get(10, TimeUnit.SECONDS).stream()
                    .filter(name -> name.startsWith(applicationId + "-") && name.endsWith("-changelog"))
                    .sorted().toList();
            if (names.isEmpty()) {
                return List.of();
            }
            Map<String, TopicDescription> descriptions = admin.describeTopics(names).allTopicNames().get(10, TimeUnit.SECONDS);
            Map<TopicPartition, OffsetSpec> earliest = new HashMap<>();
            Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
            descriptions.values().forEach(topic -> topic.partitions().forEach(p -> {
                TopicPartition tp = new TopicPartition(topic.name(), p.partition());
                earliest.put(tp, OffsetSpec.earliest());
                latest.put(tp, OffsetSpec.latest());
            }));
            Map<String, Long> records = new HashMap<>();
            admin.listOffsets(latest).all().get(10, TimeUnit.SECONDS)
                    .forEach((tp, info) -> records.merge(tp.topic(), info.offset(), Long::sum));
            admin.listOffsets(earliest).all().get(10, TimeUnit.SECONDS)
                    .forEach((tp, info) -> records.merge(tp.topic(), -info.offset(), Long::sum));

            List<Integer> brokers = admin.describeCluster().nodes().get(10, TimeUnit.SECONDS).stream().map(Node::id).toList();
            Map<String, Long> bytes = new TreeMap<>();
            for (Map<String, LogDirDescription> dirs : admin.describeLogDirs(brokers).allDescriptions().get(10, TimeUnit.SECONDS).values()) {
                for (LogDirDescription dir : dirs.values()) {
                    for (Map.Entry<TopicPartition, ReplicaInfo> replica : dir.replicaInfos().entrySet()) {
                        if (descriptions.containsKey(replica.getKey().topic())) {
                            bytes.merge(replica.getKey().topic(), replica.getValue().size(), Long::sum);
                        }
                    }
                }
            }
            return names.stream().map(name -> new Topic(name, descriptions.get(name).partitions().size(),
                    bytes.getOrDefault(name, 0L), records.getOrDefault(name, 0L))).toList();
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("cannot describe the changelog topics of " + applicationId + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while describing the changelog topics of " + applicationId, e);
        }
    }
}
