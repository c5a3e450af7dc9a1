package dev.tspipe.model.keys;

import org.apache.kafka.common.utils.Utils;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/** The model's murmur2 is kafka-clients' byte for byte: a device's partition is where the Java client puts it. */
class DevicePartitionerTest {

    private static final long SEED = Long.getLong("tspipe.seed", System.nanoTime());

    @Test
    void hashesAsKafkaClientsOnRandomKeysOfEveryLength() {
        Random random = new Random(SEED);
        for (int i = 0; i < 20_000; i++) {
            byte[] key = new byte[random.nextInt(70)];
            random.nextBytes(key);
            assertThat(DevicePartitioner.murmur2(key)).as("seed %d (-Dtspipe.seed=%d), key of %d bytes", SEED, SEED,
                    key.length).isEqualTo(Utils.murmur2(key));
            int partitions = 1 + random.nextInt(64);
            assertThat(DevicePartitioner.partitionOf(key, partitions)).as("seed %d", SEED)
                    .isEqualTo(Utils.toPositive(Utils.murmur2(key)) % partitions);
        }
    }

    @Test
    void placesKnownDistributionKeysAsTheJavaClient() {
        for (String key : new String[] {"", "a", "device-00001", "acme/device-00001", "Zürich Süd °C €1"}) {
            byte[] bytes = key.getBytes(StandardCharsets.UTF_8);
            assertThat(DevicePartitioner.partitionOf(bytes, 6)).as(key).isEqualTo(Utils.toPositive(Utils.murmur2(bytes)) % 6);
        }
    }
}
