package dev.tspipe.ingest;

import dev.tspipe.schemas.Reading;
import dev.tspipe.schemas.ReadingBatch;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ReadingBatchesTest {

    private static final Instant AT = Instant.parse("2026-12-07T00:00:00Z");

    /** What readings leave in a table: per series and time, the last reading sent (its value and tags). */
    private static Map<String, Reading> lastWrites(List<Reading> readings) {
        Map<String, Reading> last = new HashMap<>();
        for (Reading reading : readings) {
            last.put(reading.getTenant() + "/" + reading.getDeviceId() + "/" + reading.getMetric() + "/" + reading.getTimestamp(), reading);
        }
        return last;
    }

    @Test
    void batchesByDeviceLeaveTheSameLastWritesAsTheReadingsInTheirOrder() {
        long seed = System.nanoTime();
        Random random = new Random(seed);
        for (int round = 0; round < 200; round++) {
            List<Reading> readings = new ArrayList<>();
            int count = 1 + random.nextInt(60);
            for (int i = 0; i < count; i++) {
                // Few devices, metrics, times and tag sets: the same series and time comes back, with other tags too.
                readings.add(Reading.newBuilder().setDeviceId("d" + random.nextInt(3)).setTenant(random.nextInt(4) == 0 ? "t" : null)
                        .setMetric("m" + random.nextInt(3)).setTimestamp(AT.plusSeconds(random.nextInt(4)))
                        .setTags(random.nextBoolean() ? Map.of() : Map.of("unit", "u" + random.nextInt(2)))
                        .setValue(random.nextInt(5)).build());
            }
            int max = 1 + random.nextInt(10);
            List<ReadingBatch> batches = ReadingBatches.byDevice(readings, max);

            List<Reading> flattened = new ArrayList<>();
            for (ReadingBatch batch : batches) {
                assertThat(ReadingBatches.size(batch)).as("seed %d", seed).isBetween(1, max);
                flattened.addAll(ReadingBatches.readingsOf(batch));
            }
            assertThat(flattened).as("seed %d: every reading once", seed).containsExactlyInAnyOrderElementsOf(readings);
            assertThat(lastWrites(flattened)).as("seed %d: the same tables", seed).isEqualTo(lastWrites(readings));
        }
    }

    @Test
    void aMetricWhoseTagsChangeStartsANewEntryAfterTheOld() {
        Reading a = reading("temp", 0, Map.of("unit", "C"));
        Reading b = reading("temp", 1, Map.of("unit", "F"));
        Reading c = reading("temp", 1, Map.of("unit", "C"));

        ReadingBatch batch = ReadingBatches.of(List.of(a, b, c));

        assertThat(batch.getSeries()).hasSize(3);
        assertThat(ReadingBatches.readingsOf(batch)).containsExactly(a, b, c);
    }

    @Test
    void readingsOfTwoDevicesAreNotOneBatch() {
        Reading other = Reading.newBuilder(reading("temp", 0, Map.of())).setDeviceId("d-2").build();
        assertThatThrownBy(() -> ReadingBatches.of(List.of(reading("temp", 0, Map.of()), other)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("d-1").hasMessageContaining("d-2");
    }

    private static Reading reading(String metric, int second, Map<String, String> tags) {
        return Reading.newBuilder().setDeviceId("d-1").setMetric(metric).setTimestamp(AT.plusSeconds(second)).setTags(tags)
                .setValue(second).build();
    }
}
