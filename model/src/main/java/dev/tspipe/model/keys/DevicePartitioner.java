package dev.tspipe.model.keys;

import org.apache.kafka.common.utils.Utils;

/**
 * The partition of a device: {@code murmur2(distribution key) mod partitions}, exactly as the Java
 * client's default partitioner places a keyed record ({@code BuiltInPartitioner.partitionForKey}) and
 * as Kafka Streams' {@code queryMetadataForKey} finds it (docs/row-keys.md). Producers that place keys
 * otherwise (librdkafka's default {@code consistent_random} is CRC32) put records in other partitions;
 * the topology re-routes those, and queries look here.
 */
public final class DevicePartitioner {

    private DevicePartitioner() {
    }

    /** The partition of {@code distributionKey} (its UTF-8 bytes) among {@code partitions}. */
    public static int partitionOf(byte[] distributionKey, int partitions) {
        if (partitions <= 0) {
            throw new IllegalArgumentException("partitions must be > 0, was " + partitions);
        }
        return Utils.toPositive(Utils.murmur2(distributionKey)) % partitions;
    }
}
