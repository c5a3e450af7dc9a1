package dev.tspipe.model.rows;

import org.junit.jupiter.api.Test;

import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The two byte layouts of {@link Rollup}: 16 bytes for a bucket of one reading, 48 for any other; both read back exactly. */
class RollupTest {

    @Test
    void aBucketOfOneReadingIsSixteenBytesAndReadsBackAsThatReading() {
        Rollup one = Rollup.of(21.5, 1_700_000_000_123L);
        byte[] bytes = one.toBytes();
        assertThat(bytes).hasSize(Rollup.SINGLE_SIZE);
        assertThat(Rollup.fromBytes(bytes)).isEqualTo(one);
    }

    @Test
    void anyOtherBucketKeepsAllSixCounters() {
        Rollup two = Rollup.of(1.0, 1_000).add(3.0, 2_000);
        assertThat(two.toBytes()).hasSize(Rollup.SIZE);
        assertThat(Rollup.fromBytes(two.toBytes())).isEqualTo(two);
        // One reading whose sum is not its value any more (a correction's rounding): all counters, not the short form.
        Rollup corrected = new Rollup(1, 0.30000000000000004, 0.3, 0.3, 0.3, 5);
        assertThat(corrected.toBytes()).hasSize(Rollup.SIZE);
        assertThat(Rollup.fromBytes(corrected.toBytes())).isEqualTo(corrected);
        // -0.0 and 0.0 are different bits: kept apart.
        Rollup signed = new Rollup(1, 0.0, -0.0, 0.0, 0.0, 5);
        assertThat(Rollup.fromBytes(signed.toBytes())).isEqualTo(signed);
    }

    @Test
    void randomBucketsReadBackBitForBit() {
        long seed = Long.getLong("tspipe.seed", System.nanoTime());
        Random random = new Random(seed);
        for (int i = 0; i < 10_000; i++) {
            Rollup bucket = Rollup.of(random.nextGaussian(), random.nextInt(1_000_000));
            int more = random.nextInt(3);
            for (int j = 0; j < more; j++) {
                bucket = bucket.add(random.nextBoolean() ? bucket.last() : random.nextGaussian(), random.nextInt(1_000_000));
            }
            Rollup read = Rollup.fromBytes(bucket.toBytes());
            assertThat(read).as("seed %d", seed).isEqualTo(bucket);
            assertThat(Double.doubleToRawLongBits(read.sum())).as("seed %d", seed).isEqualTo(Double.doubleToRawLongBits(bucket.sum()));
        }
    }

    @Test
    void otherLengthsAreRefused() {
        assertThatThrownBy(() -> Rollup.fromBytes(new byte[20])).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("20");
    }
}
