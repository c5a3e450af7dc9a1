package dev.tspipe.bench.faults;

import org.apache.kafka.common.utils.Utils;

import java.nio.charset.StandardCharsets;

/**
 * How the harness's producer places a device's readings. Fixed per device, so that every write of
 * a reading goes to the same partition, in order: then the last acknowledged write is the truth
 * even for corrections (writes in two partitions could be processed in either order).
 */
public enum Placement {
    /** Keyed by device, murmur2 partition: what the Java client's default partitioner does, and where tspipe looks. */
    MURMUR2,
    /** Keyed by device, {@code crc32(key) mod partitions} ({@link Crc32Partitioner}): a librdkafka producer. */
    CRC32,
    /** No key, written to a fixed partition per device (a gateway's): tspipe re-keys it by device. */
    NULL_KEY;

    /** Every tenth device is CRC32-placed and every tenth has no key; the rest use murmur2. */
    static Placement ofDevice(int deviceIndex) {
        return switch (deviceIndex % 10) {
            case 3 -> CRC32;
            case 7 -> NULL_KEY;
            default -> MURMUR2;
        };
    }

    /** The Kafka key of a record of {@code device}: the device, or null. */
    byte[] key(String device) {
        return this == NULL_KEY ? null : device.getBytes(StandardCharsets.UTF_8);
    }

    /**
     * The partition to set on the record, or null to let the producer's partitioner
     * ({@link Crc32Partitioner}) choose.
     */
    Integer partition(String device, int partitions) {
        byte[] bytes = device.getBytes(StandardCharsets.UTF_8);
        return switch (this) {
            case MURMUR2 -> Utils.toPositive(Utils.murmur2(bytes)) % partitions;
            case CRC32 -> null;
            // Another partition than the device's (when there is another), as a gateway would choose it.
            case NULL_KEY -> (Utils.toPositive(Utils.murmur2(bytes)) + 1) % partitions;
        };
    }
}
