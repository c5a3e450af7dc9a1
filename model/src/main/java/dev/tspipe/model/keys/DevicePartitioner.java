package dev.tspipe.model.keys;

/**
 * The partition of a device: {@code murmur2(distribution key) mod partitions}, exactly as the Java
 * client's default partitioner places a keyed record ({@code BuiltInPartitioner.partitionForKey}) and
 * as Kafka Streams' {@code queryMetadataForKey} finds it (docs/row-keys.md). Producers that place keys
 * otherwise (librdkafka's default {@code consistent_random} is CRC32) put records in other partitions;
 * the topology re-routes those, and queries look here.
 *
 * <p>The hash is kafka-clients' {@code Utils.murmur2}, written out here so that the model needs no Kafka
 * library; {@code DevicePartitionerTest} checks it against kafka-clients' on seeded random keys.
 */
public final class DevicePartitioner {

    private static final int SEED = 0x9747b28c;
    private static final int M = 0x5bd1e995;
    private static final int R = 24;

    private DevicePartitioner() {
    }

    /** The partition of {@code distributionKey} (its UTF-8 bytes) among {@code partitions}. */
    public static int partitionOf(byte[] distributionKey, int partitions) {
        if (partitions <= 0) {
            throw new IllegalArgumentException("partitions must be > 0, was " + partitions);
        }
        return (murmur2(distributionKey) & 0x7fffffff) % partitions;
    }

    /** The 32-bit MurmurHash2 of {@code data} with Kafka's seed, as kafka-clients' {@code Utils.murmur2}. */
    static int murmur2(byte[] data) {
        int length = data.length;
        int h = SEED ^ length;
        int whole = length / 4;
        for (int i = 0; i < whole; i++) {
            int i4 = i * 4;
            int k = (data[i4] & 0xff) + ((data[i4 + 1] & 0xff) << 8) + ((data[i4 + 2] & 0xff) << 16)
                    + ((data[i4 + 3] & 0xff) << 24);
            k *= M;
            k ^= k >>> R;
            k *= M;
            h *= M;
            h ^= k;
        }
        int tail = length & ~3;
        switch (length % 4) {
            case 3:
                h ^= (data[tail + 2] & 0xff) << 16;
                // fall through
            case 2:
                h ^= (data[tail + 1] & 0xff) << 8;
                // fall through
            case 1:
                h ^= data[tail] & 0xff;
                h *= M;
                break;
            default:
                break;
        }
        h ^= h >>> 13;
        h *= M;
        h ^= h >>> 15;
        return h;
    }
}
