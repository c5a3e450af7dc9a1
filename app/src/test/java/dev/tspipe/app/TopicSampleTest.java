package dev.tspipe.app;

import org.junit.jupiter.api.Test;

import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;
import static org.assertj.core.api.Assertions.within;

/** How many of the newest records a sample takes from each partition: in proportion to its records, N in all. */
class TopicSampleTest {

    @Test
    void theNewestAreTakenInProportionToEachPartitionsRecords() {
        assertThat(TopicSample.newest(Map.of(0, 600L, 1, 300L, 2, 100L), 100))
                .containsExactly(entry(0, 60L), entry(1, 30L), entry(2, 10L));
        // Two thirds each: the rounding goes to the largest remainders, equal ones to the lower partitions.
        assertThat(TopicSample.newest(Map.of(0, 1L, 1, 1L, 2, 1L), 2))
                .containsExactly(entry(0, 1L), entry(1, 1L), entry(2, 0L));
        assertThat(TopicSample.newest(Map.of(0, 5L, 1, 0L, 2, 7L), 100)).as("all of a topic that holds fewer")
                .containsExactly(entry(0, 5L), entry(1, 0L), entry(2, 7L));
    }

    @Test
    void randomTopicsGiveTheSampleSizeWithinOneRecordOfEachPartitionsShare() {
        long seed = Long.getLong("tspipe.seed", System.nanoTime());
        Random random = new Random(seed);
        for (int round = 0; round < 1_000; round++) {
            Map<Integer, Long> available = new TreeMap<>();
            int partitions = 1 + random.nextInt(24);
            for (int p = 0; p < partitions; p++) {
                available.put(p, random.nextInt(4) == 0 ? 0L : (long) random.nextInt(1_000_000));
            }
            long total = available.values().stream().mapToLong(Long::longValue).sum();
            long sample = 1 + random.nextInt(200_000);

            Map<Integer, Long> take = TopicSample.newest(available, sample);

            String where = "seed " + seed + ", round " + round + ", " + available + ", sample " + sample;
            assertThat(take.keySet()).as(where).isEqualTo(available.keySet());
            assertThat(take.values().stream().mapToLong(Long::longValue).sum()).as(where).isEqualTo(Math.min(sample, total));
            available.forEach((p, n) -> {
                assertThat(take.get(p)).as(where).isBetween(0L, n);
                if (total > sample) {
                    assertThat((double) take.get(p)).as(where).isCloseTo((double) sample * n / total,
                            within(1.0));
                }
            });
        }
    }
}
