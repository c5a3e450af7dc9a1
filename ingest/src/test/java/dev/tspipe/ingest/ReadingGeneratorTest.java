package dev.tspipe.ingest;

import dev.tspipe.schemas.Reading;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ReadingGeneratorTest {

    private static final Instant START = Instant.parse("2026-11-30T00:00:00Z");
    private static final int N = 10_000;

    private static List<Reading> take(ReadingGenerator.Options options, int n) {
        return Stream.generate(new ReadingGenerator(options)::next).limit(n).toList();
    }

    @Test
    void theSameSeedGivesTheSameSequenceAndAnotherSeedAnother() {
        ReadingGenerator.Options options = ReadingGenerator.Options.of(50, 4, 100, START)
                .withOutOfOrder(0.1).withDuplicates(0.05).withHotDevices(3, 0.5).withSeed(42);

        assertThat(take(options, N)).isEqualTo(take(options, N));
        assertThat(take(options.withSeed(43), N)).isNotEqualTo(take(options, N));
    }

    @Test
    void devicesThatReportOnAScheduleSendAllTheirMetricsAtOneMomentEveryInterval() {
        // 20 devices x 5 metrics at 100 readings/s: each device reports every second, moved later by up to 50 ms.
        ReadingGenerator.Options options = ReadingGenerator.Options.of(20, 5, 100, START).withReports(Duration.ofMillis(50)).withSeed(9);
        List<Reading> readings = take(options, N);

        for (int report = 0; report < N / 5; report++) {
            List<Reading> moment = readings.subList(report * 5, report * 5 + 5);
            assertThat(moment).extracting(Reading::getDeviceId).containsOnly(moment.get(0).getDeviceId());
            assertThat(moment).extracting(Reading::getMetric).containsExactly("temperature", "humidity", "pressure", "voltage", "rssi");
            assertThat(moment).extracting(Reading::getTimestamp).containsOnly(moment.get(0).getTimestamp());
            long scheduled = START.toEpochMilli() + report * 50L;
            assertThat(moment.get(0).getTimestamp().toEpochMilli()).isBetween(scheduled, scheduled + 50);
            assertThat(moment.get(0).getDeviceId()).isEqualTo(String.format("device-%05d", report % 20));
        }
        Map<String, Long> last = new HashMap<>();
        Set<Long> jitters = new HashSet<>();
        for (Reading r : readings) {
            Long before = last.put(r.getDeviceId() + "/" + r.getMetric(), r.getTimestamp().toEpochMilli());
            if (before != null) {
                assertThat(r.getTimestamp().toEpochMilli() - before).isBetween(950L, 1_050L);
                jitters.add(r.getTimestamp().toEpochMilli() - before);
            }
        }
        assertThat(jitters).hasSizeGreaterThan(50);
        assertThat(take(options.withReports(Duration.ZERO), N)).extracting(r -> r.getTimestamp().toEpochMilli() % 50).containsOnly(0L);
        assertThat(take(options, N)).isEqualTo(readings);
    }

    @Test
    void seriesAreDevicesTimesMetricsWithPlausibleNamesUnitsAndValues() {
        List<Reading> readings = take(ReadingGenerator.Options.of(20, 5, 100, START).withSeed(7), N);

        Set<String> series = new HashSet<>();
        readings.forEach(r -> series.add(r.getDeviceId() + "/" + r.getMetric()));
        assertThat(series).hasSize(100);
        assertThat(readings).extracting(Reading::getMetric).containsOnly("temperature", "humidity", "pressure", "voltage", "rssi");
        for (Reading r : readings) {
            ReadingGenerator.MetricKind kind = ReadingGenerator.METRICS.stream().filter(k -> k.name().equals(r.getMetric())).findFirst().orElseThrow();
            assertThat(r.getTags()).containsEntry("unit", kind.unit());
            assertThat(r.getValue()).isBetween(kind.min(), kind.max());
        }
        // A random walk: consecutive values of a series are close.
        Map<String, Double> previous = new HashMap<>();
        for (Reading r : readings) {
            if (r.getMetric().equals("temperature")) {
                Double last = previous.put(r.getDeviceId(), r.getValue());
                if (last != null) {
                    assertThat(Math.abs(r.getValue() - last)).isLessThan(1.0);
                }
            }
        }
    }

    @Test
    void timeAdvancesAtTheRateFromTheStart() {
        List<Reading> readings = take(ReadingGenerator.Options.of(10, 2, 200, START), 1_001);

        assertThat(readings.get(0).getTimestamp()).isEqualTo(START);
        assertThat(readings.get(1_000).getTimestamp()).isEqualTo(START.plusSeconds(5));
        for (int i = 1; i < readings.size(); i++) {
            assertThat(readings.get(i).getTimestamp()).isAfterOrEqualTo(readings.get(i - 1).getTimestamp());
        }
    }

    @Test
    void duplicatesComeAtAboutTheAskedRate() {
        List<Reading> readings = take(ReadingGenerator.Options.of(100, 5, 100, START).withDuplicates(0.05).withSeed(3), N);

        long duplicates = 0;
        for (int i = 1; i < readings.size(); i++) {
            if (readings.get(i).equals(readings.get(i - 1))) {
                duplicates++;
            }
        }
        // Each original is followed by its copy with p = 0.05: copies / all = p / (1 + p) ≈ 4.8%.
        assertThat(duplicates).isBetween(400L, 560L);
    }

    @Test
    void outOfOrderReadingsAreAtAboutTheAskedRateAndAtMostAMinuteLate() {
        ReadingGenerator.Options options = ReadingGenerator.Options.of(100, 5, 10, START).withOutOfOrder(0.1).withSeed(5);
        List<Reading> readings = take(options, N);

        long late = 0;
        for (int i = 0; i < readings.size(); i++) {
            long nominal = START.toEpochMilli() + i * 100L;
            long lateness = nominal - readings.get(i).getTimestamp().toEpochMilli();
            assertThat(lateness).isBetween(0L, ReadingGenerator.MAX_LATENESS.toMillis());
            if (lateness > 0) {
                late++;
            }
        }
        assertThat(late).isBetween(850L, 1_150L);
    }

    @Test
    void hotDevicesCarryTheirShareOfTheLoad() {
        List<Reading> readings = take(ReadingGenerator.Options.of(1_000, 1, 100, START).withHotDevices(5, 0.6).withSeed(11), N);

        Set<String> hot = Set.of("device-00000", "device-00001", "device-00002", "device-00003", "device-00004");
        long onHot = readings.stream().filter(r -> hot.contains(r.getDeviceId())).count();
        assertThat(onHot).isBetween(5_700L, 6_300L);
    }

    @Test
    void moreMetricsThanKindsGetNumberedNames() {
        List<Reading> readings = take(ReadingGenerator.Options.of(1, 12, 100, START), 2_000);

        assertThat(readings).extracting(Reading::getMetric).contains("temperature-2", "humidity-2").doesNotContain("pressure-2");
    }

    @Test
    void nonsenseOptionsAreRefusedWithTheReason() {
        assertThatThrownBy(() -> ReadingGenerator.Options.of(0, 1, 1, START)).hasMessageContaining("devices must be at least 1");
        assertThatThrownBy(() -> ReadingGenerator.Options.of(1, 1, 0, START)).hasMessageContaining("rate must be a positive");
        assertThatThrownBy(() -> ReadingGenerator.Options.of(1, 1, 1, START).withDuplicates(1.5)).hasMessageContaining("between 0 and 1");
        assertThatThrownBy(() -> ReadingGenerator.Options.of(2, 1, 1, START).withHotDevices(3, 0.5)).hasMessageContaining("hot devices");
    }
}
