package dev.tspipe.bench.e2e;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** End offsets of whole topics and a group's committed offsets on them, through the admin client. */
final class Offsets {

    private Offsets() {
    }

    static Map<TopicPartition, Long> endOffsets(Admin admin, String topic) {
        try {
            TopicDescription description = admin.describeTopics(List.of(topic)).allTopicNames().get(10, TimeUnit.SECONDS).get(topic);
            Map<TopicPartition, OffsetSpec> request = new HashMap<>();
            description.partitions().forEach(p -> request.put(new TopicPartition(topic, p.partition()), OffsetSpec.latest()));
            Map<TopicPartition, Long> ends = new HashMap<>();
            admin.listOffsets(request).all().get(10, TimeUnit.SECONDS).forEach((tp, info) -> ends.put(tp, info.offset()));
            return ends;
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("cannot read the end offsets of " + topic + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while reading the end offsets of " + topic, e);
        }
    }

    /** The sum of the offsets in {@code committed} (a group's, as the admin client lists them) on {@code topic}'s partitions. */
    static long committedOn(Map<TopicPartition, OffsetAndMetadata> committed, String topic) {
        return committed.entrySet().stream()
                .filter(e -> e.getKey().topic().equals(topic) && e.getValue() != null)
                .mapToLong(e -> e.getValue().offset()).sum();
    }

    /** The sum of the offsets {@code groupId} has committed on {@code topic}'s partitions (0 for a partition without one). */
    static long committed(Admin admin, String groupId, String topic) {
        try {
            return committedOn(admin.listConsumerGroupOffsets(groupId).partitionsToOffsetAndMetadata().get(10, TimeUnit.SECONDS), topic);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("cannot read the committed offsets of " + groupId + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while reading offsets of " + groupId, e);
        }
    }
}
