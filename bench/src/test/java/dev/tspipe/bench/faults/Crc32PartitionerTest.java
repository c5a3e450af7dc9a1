package dev.tspipe.bench.faults;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;

/** The partitioner is librdkafka's consistent_random: CRC-32 (IEEE) of the key, modulo the partitions. */
class Crc32PartitionerTest {

    @Test
    void placesAKeyByItsCrc32() {
        // The CRC-32 check value: crc32("123456789") = 0xCBF43926 = 3421780262.
        byte[] key = "123456789".getBytes(StandardCharsets.UTF_8);

        assertThat(Crc32Partitioner.partitionOf(key, 12)).isEqualTo((int) (3_421_780_262L % 12));
        assertThat(Crc32Partitioner.partitionOf(key, 7)).isEqualTo((int) (3_421_780_262L % 7));
    }

    @Test
    void someDevicesOfTheLoadLandElsewhereThanMurmur2PlacesThem() {
        long misplaced = Series.all(25, 4).stream().map(Series::device).distinct()
                .filter(d -> Placement.ofDevice(Integer.parseInt(d.substring("fault-".length()))) == Placement.CRC32)
                .filter(d -> Crc32Partitioner.partitionOf(d.getBytes(StandardCharsets.UTF_8), 4) != Placement.MURMUR2.partition(d, 4))
                .count();

        assertThat(misplaced).as("CRC32-placed devices not in their murmur2 partition").isPositive();
    }
}
