package dev.tspipe.bench.e2e;

import dev.tspipe.ingest.ReadingGenerator;
import dev.tspipe.schemas.Reading;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.HashMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The fresh readings of the query phase at the default load (20,000/s over 2,000 devices x 5
 * metrics): every series strictly in time order, so that tspipe stores each as a new row, and event
 * time advancing with the wall clock, not ahead of it.
 */
class FreshReadingsTest {

    private static final int RATE = 20_000;
    private static final int COUNT = 200_000;
    private static final Instant START = Instant.parse("2026-12-01T10:00:00Z");

    @Test
    void everySeriesIsStrictlyInTimeOrderAndEventTimeKeepsPaceWithTheLoad() {
        ReadingGenerator.Options options = ReadingGenerator.Options.of(2_000, 5, RATE, START);
        FreshReadings fresh = new FreshReadings(options);
        ReadingGenerator plain = new ReadingGenerator(options);
        Map<String, Long> latest = new HashMap<>();
        long moved = 0;
        long last = 0;
        for (int i = 0; i < COUNT; i++) {
            Reading reading = fresh.next();
            Reading generated = plain.next();
            assertThat(reading.getDeviceId()).isEqualTo(generated.getDeviceId());
            assertThat(reading.getMetric()).isEqualTo(generated.getMetric());
            assertThat(reading.getValue()).isEqualTo(generated.getValue());
            long timestamp = reading.getTimestamp().toEpochMilli();
            long shift = timestamp - generated.getTimestamp().toEpochMilli();
            assertThat(shift).as("reading %d", i).isBetween(0L, 10L);
            moved += shift > 0 ? 1 : 0;
            Long previous = latest.put(reading.getDeviceId() + "/" + reading.getMetric(), timestamp);
            if (previous != null) {
                assertThat(timestamp).as("reading %d after its series' previous one", i).isGreaterThan(previous);
            }
            last = Math.max(last, timestamp);
        }
        // At this rate two readings of a series in one millisecond happen (about 0.1%): the path above was taken.
        assertThat(moved).isPositive().isLessThan(COUNT / 100);
        assertThat(last - START.toEpochMilli()).isLessThanOrEqualTo(COUNT * 1000L / RATE + 10);
    }
}
