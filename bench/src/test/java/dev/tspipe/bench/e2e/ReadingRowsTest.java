package dev.tspipe.bench.e2e;

import dev.tspipe.ingest.ReadingGenerator;
import dev.tspipe.schemas.Reading;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The columns the QuestDB column is fed from hold the generator's readings as they were, and count the distinct
 * (device, metric, timestamp) keys as a set of those triples does, duplicates and out-of-order readings included.
 */
class ReadingRowsTest {

    @Test
    void holdsEveryReadingAndCountsItsDistinctKeysAsASetDoes() {
        // 20 series at 5,000 readings/s: many share a millisecond; a tenth sent twice, a tenth up to a minute late.
        ReadingGenerator generator = new ReadingGenerator(ReadingGenerator.Options.of(4, 5, 5_000, Instant.parse("2026-12-01T10:00:00Z"))
                .withDuplicates(0.1).withOutOfOrder(0.1).withSeed(20261204));
        int count = 50_000;
        ReadingRows rows = new ReadingRows(count);
        List<Reading> readings = new ArrayList<>();
        Set<String> keys = new HashSet<>();
        for (int i = 0; i < count; i++) {
            Reading reading = generator.next();
            readings.add(reading);
            rows.add(reading);
            keys.add(reading.getDeviceId() + "\n" + reading.getMetric() + "\n" + reading.getTimestamp().toEpochMilli());
        }

        assertThat(rows.size()).isEqualTo(count);
        for (int row = 0; row < count; row++) {
            Reading reading = readings.get(row);
            assertThat(rows.device(row)).isEqualTo(reading.getDeviceId());
            assertThat(rows.metric(row)).isEqualTo(reading.getMetric());
            assertThat(rows.timestampMillis(row)).isEqualTo(reading.getTimestamp().toEpochMilli());
            assertThat(rows.value(row)).isEqualTo(reading.getValue());
            assertThat(rows.tags(row)).isEqualTo(reading.getTags());
        }
        assertThat(keys.size()).isLessThan(count * 95 / 100);
        assertThat(rows.distinctKeys()).isEqualTo(keys.size());
        assertThat(rows.tagKeys()).containsExactly("unit");
    }

    @Test
    void tagKeysAreEveryKeyOfEveryReadingSorted() {
        ReadingRows rows = new ReadingRows(2);
        Instant at = Instant.parse("2026-12-01T10:00:00Z");
        rows.add(Reading.newBuilder().setDeviceId("d").setMetric("m").setTimestamp(at).setValue(1).setTags(Map.of("unit", "V")).build());
        rows.add(Reading.newBuilder().setDeviceId("d").setMetric("m").setTimestamp(at).setValue(2)
                .setTags(Map.of("site", "north", "firmware", "1.2")).build());

        assertThat(rows.tagKeys()).containsExactly("firmware", "site", "unit");
        assertThat(rows.distinctKeys()).isEqualTo(1);
    }
}
