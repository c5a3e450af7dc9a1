package dev.tspipe.bench.faults;

import org.apache.kafka.clients.producer.Partitioner;
import org.apache.kafka.common.Cluster;

import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.zip.CRC32;

/**
 * librdkafka's default partitioner, {@code consistent_random}, as a Java producer partitioner:
 * {@code crc32(key) mod partitions}, and a random partition for a null key. Producers written with
 * librdkafka (C, Python, Go, .NET) place a device's readings this way, not with the Java client's
 * murmur2, so tspipe cannot assume that a record keyed by its device is in the device's partition.
 */
public final class Crc32Partitioner implements Partitioner {

    /** The partition librdkafka's {@code consistent_random} picks for a non-null key. */
    static int partitionOf(byte[] key, int partitions) {
        CRC32 crc = new CRC32();
        crc.update(key);
        return (int) (crc.getValue() % partitions);
    }

    @Override
    public int partition(String topic, Object key, byte[] keyBytes, Object value, byte[] valueBytes, Cluster cluster) {
        int partitions = cluster.partitionsForTopic(topic).size();
        return keyBytes == null ? ThreadLocalRandom.current().nextInt(partitions) : partitionOf(keyBytes, partitions);
    }

    @Override
    public void configure(Map<String, ?> configs) {
    }

    @Override
    public void close() {
    }
}
