package dev.tspipe.app;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tspipe.model.analysis.KeyLayoutLinter;
import dev.tspipe.model.keys.KeyLayout;
import dev.tspipe.processor.topology.ReadingValidator;
import dev.tspipe.schemas.Reading;
import org.apache.kafka.clients.producer.internals.BuiltInPartitioner;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.LongStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;
import static org.assertj.core.api.Assertions.within;

/**
 * {@link KeyAnalysis} on generated readings whose answers the test computes itself: the busiest 1%, distinct
 * counts, partitions (by the Java producer's own partitioner), projected bytes (key and row lengths counted by
 * hand), and the finding each rule gives. Seeded; {@code -Dtspipe.seed=N} replays a run.
 */
class KeyAnalysisTest {

    /** 2026-11-30T10:00:00Z. */
    private static final long T0 = 1_796_032_800_000L;
    private static final int PARTITIONS = 6;
    private static final Duration WEEK = Duration.ofDays(7);
    /** Bytes of a raw row without tags: the value (8) and the tag count (4). */
    private static final int ROW_WITHOUT_TAGS = 12;

    private static KeyAnalysis analysis(KeyLayout layout) {
        return analysis(layout, PARTITIONS);
    }

    /** With one partition for samples of a few devices, whose partitions are bound to be uneven. */
    private static KeyAnalysis analysis(KeyLayout layout, int partitions) {
        return new KeyAnalysis(new KeyAnalysis.Settings(layout, partitions, WEEK, 10));
    }

    private static Reading reading(String tenant, String device, String metric, long epochMillis, Map<String, String> tags) {
        return Reading.newBuilder().setTenant(tenant).setDeviceId(device).setMetric(metric)
                .setTimestamp(Instant.ofEpochMilli(epochMillis)).setValue(1.5).setTags(tags).build();
    }

    /** The pipeline's verdict on a reading without tags, as the decoder and the file source give it. */
    private static ReadingValidator.Verdict verdict(KeyLayout layout, String device, String metric, long epochMillis) {
        return new ReadingValidator(layout).validate(reading(null, device, metric, epochMillis, Map.of()));
    }

    private static void add(KeyAnalysis analysis, String device, String metric, long epochMillis) {
        analysis.add(verdict(KeyLayout.DEFAULT, device, metric, epochMillis));
    }

    /** The partition the Java producer's default partitioner gives a key: the oracle for DevicePartitioner. */
    private static int producerPartition(String key) {
        return BuiltInPartitioner.partitionForKey(key.getBytes(StandardCharsets.UTF_8), PARTITIONS);
    }

    /** What the report should say, computed from the readings per device. */
    private record Expected(int devices, int busiest, double busiestShare, long[] perPartition, double skew) {

        static Expected of(Map<String, Long> readingsPerDevice) {
            long total = readingsPerDevice.values().stream().mapToLong(Long::longValue).sum();
            List<Long> counts = new ArrayList<>(readingsPerDevice.values());
            counts.sort(Comparator.reverseOrder());
            int busiest = Math.max(1, (counts.size() + 99) / 100);
            long busiestReadings = counts.stream().limit(busiest).mapToLong(Long::longValue).sum();
            long[] perPartition = new long[PARTITIONS];
            readingsPerDevice.forEach((device, n) -> perPartition[producerPartition(device)] += n);
            double skew = LongStream.of(perPartition).max().orElseThrow() / (total / (double) PARTITIONS);
            return new Expected(counts.size(), busiest, (double) busiestReadings / total, perPartition, skew);
        }
    }

    private static List<String> rules(KeyAnalysisReport report) {
        return report.findings().stream().map(KeyLayoutLinter.Finding::rule).toList();
    }

    private static KeyLayoutLinter.Finding finding(KeyAnalysisReport report, String rule) {
        return report.findings().stream().filter(f -> f.rule().equals(rule)).findFirst()
                .orElseThrow(() -> new AssertionError("no " + rule + " in " + report.findings()));
    }

    @Test
    void oneDeviceWithHalfTheReadingsIsHotAndSkewsItsPartition() {
        long seed = Long.getLong("tspipe.seed", System.nanoTime());
        Random random = new Random(seed);
        KeyAnalysis analysis = analysis(KeyLayout.DEFAULT);
        Map<String, Long> perDevice = new HashMap<>();
        int readings = 50_000;
        for (int i = 0; i < readings; i++) {
            String device = random.nextBoolean() ? "press-0000" : String.format("press-%04d", 1 + random.nextInt(999));
            add(analysis, device, "vibration", T0 + i * 10L);
            perDevice.merge(device, 1L, Long::sum);
        }

        KeyAnalysisReport report = analysis.report();

        Expected expected = Expected.of(perDevice);
        assertThat(report.readings()).as("seed %d", seed).isEqualTo(readings);
        assertThat(report.devices()).as("seed %d", seed).isEqualTo(expected.devices());
        assertThat(report.series()).as("seed %d", seed).isEqualTo(expected.devices());
        assertThat(report.busiestDevices()).as("seed %d", seed).isEqualTo(expected.busiest()).isEqualTo(10);
        assertThat(report.busiestShare()).as("seed %d", seed).isCloseTo(expected.busiestShare(), within(1e-12));
        assertThat(report.partitionReadings()).as("seed %d", seed)
                .containsExactly(Arrays.stream(expected.perPartition()).boxed().toArray(Long[]::new));
        // Half the readings (within a few tenths of a percent) in one of six partitions, and that partition's part of
        // the rest: at least 3 times the mean.
        assertThat(report.skew()).as("seed %d", seed).isCloseTo(expected.skew(), within(1e-12)).isGreaterThan(3.0);
        assertThat(report.topDevices().get(0).device()).as("seed %d", seed).isEqualTo("press-0000");
        assertThat(report.topDevices().get(0).share()).as("seed %d", seed)
                .isCloseTo(perDevice.get("press-0000") / (double) readings, within(1e-12));
        assertThat(report.topDevices().get(0).partition()).isEqualTo(producerPartition("press-0000"));
        assertThat(rules(report)).as("seed %d", seed).containsExactly("partition-skew", "hot-devices");
        assertThat(finding(report, "partition-skew").severity()).isEqualTo(KeyLayoutLinter.Severity.ERROR);
        assertThat(finding(report, "partition-skew").message()).contains("'press-0000' alone has");
        assertThat(finding(report, "hot-devices").segment()).isEqualTo(1);
        assertThat(KeyLayoutLinter.exitCode(report.findings())).isEqualTo(2);
    }

    @Test
    void zipfDistributedDevicesGiveTheBusiestOnePercentTheTestCounted() {
        long seed = Long.getLong("tspipe.seed", System.nanoTime());
        Random random = new Random(seed);
        int devices = 2_000;
        double[] cumulative = new double[devices];
        double sum = 0;
        for (int rank = 1; rank <= devices; rank++) {
            sum += 1 / Math.pow(rank, 1.1);
            cumulative[rank - 1] = sum;
        }
        KeyAnalysis analysis = analysis(KeyLayout.DEFAULT);
        Map<String, Long> perDevice = new HashMap<>();
        int readings = 60_000;
        for (int i = 0; i < readings; i++) {
            int rank = Arrays.binarySearch(cumulative, random.nextDouble() * sum);
            String device = String.format("meter-%05d", rank < 0 ? -rank - 1 : rank);
            add(analysis, device, i % 2 == 0 ? "power" : "voltage", T0 + i * 60L);
            perDevice.merge(device, 1L, Long::sum);
        }

        KeyAnalysisReport report = analysis.report();

        Expected expected = Expected.of(perDevice);
        assertThat(report.devices()).as("seed %d", seed).isEqualTo(expected.devices());
        assertThat(report.busiestDevices()).as("seed %d", seed).isEqualTo(expected.busiest());
        assertThat(report.busiestShare()).as("seed %d", seed).isCloseTo(expected.busiestShare(), within(1e-12))
                .isGreaterThan(10 * (double) expected.busiest() / expected.devices());
        assertThat(report.skew()).as("seed %d", seed).isCloseTo(expected.skew(), within(1e-12));
        assertThat(rules(report)).as("seed %d", seed).contains("hot-devices");
    }

    @Test
    void uniformlyUsedDevicesAreCleanAndProjectedFromTheirOwnBytes() {
        long seed = Long.getLong("tspipe.seed", System.nanoTime());
        Random random = new Random(seed);
        KeyAnalysis analysis = analysis(KeyLayout.DEFAULT);
        Map<String, Long> perDevice = new HashMap<>();
        Map<String, Long> bytesPerDevice = new HashMap<>();
        long first = Long.MAX_VALUE;
        long last = Long.MIN_VALUE;
        int readings = 72_000;
        for (int i = 0; i < readings; i++) {
            String device = String.format("sensor-%05d", random.nextInt(1_200));
            String metric = random.nextBoolean() ? "temperature" : "humidity";
            long at = T0 + random.nextInt(3_600_000);
            add(analysis, device, metric, at);
            perDevice.merge(device, 1L, Long::sum);
            // device#metric#19 digits, then the row: value and tag count
            bytesPerDevice.merge(device, (long) device.length() + 1 + metric.length() + 1 + 19 + ROW_WITHOUT_TAGS, Long::sum);
            first = Math.min(first, at);
            last = Math.max(last, at);
        }

        KeyAnalysisReport report = analysis.report();

        Expected expected = Expected.of(perDevice);
        assertThat(report.devices()).as("seed %d", seed).isEqualTo(expected.devices());
        assertThat(report.series()).as("seed %d", seed).isEqualTo(2L * expected.devices());
        assertThat(report.busiestDevices()).isEqualTo(12);
        // 60 readings a device on average: the busiest 12 of 1,200 lie a few standard deviations above it, under 2%.
        assertThat(report.busiestShare()).as("seed %d", seed).isCloseTo(expected.busiestShare(), within(1e-12))
                .isLessThan(0.02);
        // 200 devices a partition on average, standard deviation 13: the busiest within 4 of them, under 1.3 times.
        assertThat(report.skew()).as("seed %d", seed).isCloseTo(expected.skew(), within(1e-12)).isLessThan(1.3);
        assertThat(report.fromMillis()).isEqualTo(first);
        assertThat(report.toMillis()).isEqualTo(last);
        KeyAnalysisReport.Device top = report.topDevices().get(0);
        assertThat(top.bytes()).as("seed %d", seed).isEqualTo(bytesPerDevice.get(top.device()));
        assertThat(top.projection()).as("seed %d", seed)
                .hasValue(Math.round(bytesPerDevice.get(top.device()) * (double) WEEK.toMillis() / (last - first)));
        assertThat(report.keyBytes().min()).isEqualTo(12 + 1 + 8 + 1 + 19);
        assertThat(report.keyBytes().max()).isEqualTo(12 + 1 + 11 + 1 + 19);
        assertThat(report.findings()).as("seed %d", seed).isEmpty();
        assertThat(KeyLayoutLinter.exitCode(report.findings())).isZero();
    }

    @Test
    void aDeviceProjectedOverTenGigabytesIsAnError() {
        KeyAnalysis analysis = analysis(KeyLayout.DEFAULT);
        Map<String, String> tags = Map.of("payload", "x".repeat(1_000));
        for (int i = 0; i < 6_000; i++) {
            analysis.add(new ReadingValidator(KeyLayout.DEFAULT).validate(reading(null, "press-01", "vibration", T0 + i * 10L,
                    tags)));
            if (i % 100 == 0) {
                analysis.add(new ReadingValidator(KeyLayout.DEFAULT).validate(reading(null, "press-02", "vibration",
                        T0 + i * 10L, tags)));
            }
        }

        KeyAnalysisReport report = analysis.report();

        // press-01#vibration#19 digits = 38 bytes; the row: 8 + 4, then the tag: 4 + 7 + 4 + 1,000 = 1,027 bytes.
        long bytes = 6_000L * (38 + 1_027);
        long span = 5_999 * 10L;
        long projected = Math.round(bytes * (double) WEEK.toMillis() / span);
        assertThat(projected).isGreaterThan(KeyAnalysis.DEVICE_BYTES_LIMIT);
        assertThat(Math.round(60L * (38 + 1_027) * (double) WEEK.toMillis() / span)).isLessThan(KeyAnalysis.DEVICE_BYTES_LIMIT);
        assertThat(report.topDevices().get(0).bytes()).isEqualTo(bytes);
        assertThat(report.topDevices().get(0).projection()).hasValue(projected);
        assertThat(report.largestProjection()).hasValue(projected);
        assertThat(report.devicesOverLimit()).isEqualTo(1);
        KeyLayoutLinter.Finding finding = finding(report, "device-too-large");
        assertThat(finding.severity()).isEqualTo(KeyLayoutLinter.Severity.ERROR);
        assertThat(finding.message()).startsWith("1 device(s) would hold more than 10 GB each over the 7d lifecycle "
                + "('press-01': ~" + KeyAnalysisReport.bytes(projected));
    }

    @Test
    void aSampleOfOneInstantIsNotProjected() {
        KeyAnalysis analysis = analysis(KeyLayout.DEFAULT);
        Map<String, String> tags = Map.of("payload", "x".repeat(10_000));
        for (int i = 0; i < 100; i++) {
            analysis.add(new ReadingValidator(KeyLayout.DEFAULT).validate(reading(null, "d" + i, "m", T0, tags)));
        }

        KeyAnalysisReport report = analysis.report();

        assertThat(report.largestProjection()).isEmpty();
        assertThat(report.topDevices()).allSatisfy(device -> assertThat(device.projection()).isEmpty());
        assertThat(rules(report)).doesNotContain("device-too-large");
    }

    @Test
    void idsThatBreakTheRulesGiveOneFindingPerRuleWithCountsAndExamples() {
        KeyAnalysis analysis = analysis(KeyLayout.DEFAULT, 1);
        List<String> devices = List.of("alice@example.com", "+49 170 1234567", "DE89370400440532013000", "10.1.2.3",
                "line#4", "Zürich 1", "pump-9", "pump-10", "pump-11", "3f0c1d9e-8a43-4b8e-9d7c-2f7b1a6e5c10",
                "sensor-00001", "sensor-00002", "DE89370400440532013001");
        for (int round = 0; round < 2; round++) {
            for (int i = 0; i < devices.size(); i++) {
                add(analysis, devices.get(i), i == 0 ? "rel humidity" : "temp", T0 + round * 1_000L + i);
            }
        }

        KeyAnalysisReport report = analysis.report();

        assertThat(report.devices()).isEqualTo(13);
        assertThat(rules(report)).containsExactlyInAnyOrder("personal-data", "delimiter-in-id", "escaped-characters",
                "number-without-width", "escaped-characters");
        KeyLayoutLinter.Finding personal = finding(report, "personal-data");
        assertThat(personal.segment()).isEqualTo(1);
        assertThat(personal.message()).startsWith("4 of 13 device ids look like personal data (e-mail addresses: 1, "
                + "phone numbers: 1, bank accounts (IBAN): 1, IP addresses: 1; e.g. 'a****@example.com')")
                .doesNotContain("alice");
        assertThat(finding(report, "delimiter-in-id").message()).startsWith("1 of 13 device ids hold the delimiter '#' "
                + "(e.g. 'line#4')");
        assertThat(report.findings().stream().filter(f -> f.rule().equals("escaped-characters")))
                .extracting(KeyLayoutLinter.Finding::segment, f -> f.message().substring(0, f.message().indexOf(" hold")))
                .containsExactly(tuple(1, "2 of 13 device ids"), tuple(2, "1 of 2 metric ids"));
        assertThat(finding(report, "escaped-characters").message()).as("personal data is masked in every example")
                .contains("e.g. '+4* *** *******'").doesNotContain("1234567");
        KeyLayoutLinter.Finding widths = finding(report, "number-without-width");
        assertThat(widths.message()).startsWith("3 of 13 device ids end in numbers of different widths after the same "
                + "prefix (e.g. 'pump-9' and 'pump-10'): keys compare as text, so 'pump-10' sorts before 'pump-9'");
        assertThat(widths.fix()).contains("'pump-09'");
        assertThat(KeyLayoutLinter.exitCode(report.findings())).isEqualTo(1);
    }

    @Test
    void findingsNameTheSegmentOfTheLayoutInUse() {
        KeyLayout layout = new KeyLayout(true, true);
        KeyAnalysis analysis = analysis(layout);
        analysis.add(new ReadingValidator(layout).validate(reading("acme corp", "bob@example.org", "temp", T0, Map.of())));

        KeyAnalysisReport report = analysis.report();

        assertThat(report.findings()).filteredOn(f -> !f.rule().equals("partition-skew"))
                .extracting(KeyLayoutLinter.Finding::rule, KeyLayoutLinter.Finding::segment)
                .containsExactly(tuple("escaped-characters", 2), tuple("personal-data", 3));
        assertThat(report.topDevices().get(0).partition()).isEqualTo(producerPartition("acme corp/bob@example.org"));
    }

    @Test
    void numberedIdsThatKeepArrivingAreMonotonicButAFixedFleetIsNot() {
        KeyAnalysis orders = analysis(KeyLayout.DEFAULT);
        KeyAnalysis salted = analysis(KeyLayout.DEFAULT.withSalt());
        KeyAnalysis fleet = analysis(KeyLayout.DEFAULT);
        for (int i = 0; i < 300; i++) {
            for (int j = 0; j < 5; j++) {
                long at = T0 + i * 10_000L + j * 2_000L;
                orders.add(verdict(KeyLayout.DEFAULT, "order-" + (1_000 + i), "amount", at));
                salted.add(verdict(KeyLayout.DEFAULT.withSalt(), "order-" + (1_000 + i), "amount", at));
            }
        }
        for (int round = 0; round < 100; round++) {
            for (int i = 0; i < 300; i++) {
                fleet.add(verdict(KeyLayout.DEFAULT, String.format("sensor-%03d", i + 1), "temp", T0 + round * 300L + i));
            }
        }

        KeyLayoutLinter.Finding monotonic = finding(orders.report(), "monotonic-ids");
        assertThat(monotonic.severity()).isEqualTo(KeyLayoutLinter.Severity.WARNING);
        assertThat(monotonic.message()).startsWith("300 of 300 device ids are numbers that grow with time (rank "
                + "correlation 1.00");
        assertThat(rules(orders.report())).containsExactly("monotonic-ids");
        assertThat(rules(salted.report())).isEmpty();
        assertThat(rules(fleet.report())).isEmpty();
    }

    @Test
    void longKeysAreAWarningAndKeysOverTheLimitAnError() {
        KeyAnalysis analysis = analysis(KeyLayout.DEFAULT, 1);
        String longDevice = "d".repeat(300);
        for (int i = 0; i < 3; i++) {
            add(analysis, longDevice, "m", T0 + i);
            add(analysis, "y".repeat(1_100), "m", T0 + i);
        }
        add(analysis, "short", "m", T0);

        KeyAnalysisReport report = analysis.report();

        assertThat(report.readings()).isEqualTo(4);
        assertThat(report.rejected()).containsExactly(Map.entry("key-too-long", 3L));
        assertThat(rules(report)).containsExactly("key-too-long", "long-key");
        assertThat(finding(report, "key-too-long").message()).startsWith("3 readings have a row key over 1,024 bytes");
        assertThat(finding(report, "long-key").message()).startsWith("3 readings have row keys over 256 bytes (the longest "
                + (300 + 1 + 1 + 1 + 19) + ":");
        assertThat(report.keyBytes().max()).isEqualTo(322);
        assertThat(report.keyBytes().min()).isEqualTo(5 + 1 + 1 + 1 + 19);
    }

    @Test
    void rankCorrelationIsOneForTheSameOrderMinusOneForTheReverseAndTiesShareARank() {
        double[] x = {1, 2, 3, 4, 5};
        assertThat(KeyAnalysis.rankCorrelation(x, new double[]{10, 20, 30, 40, 50})).isCloseTo(1, within(1e-12));
        assertThat(KeyAnalysis.rankCorrelation(x, new double[]{9, 7, 5, 3, 1})).isCloseTo(-1, within(1e-12));
        // Ranks of y with ties: 1.5, 1.5, 3, 4, 5 (0-based: 0.5, 0.5, 2, 3, 4); Pearson's over them by hand: 0.9746794.
        assertThat(KeyAnalysis.rankCorrelation(x, new double[]{1, 1, 2, 3, 4})).isCloseTo(0.9746794, within(1e-6));
        assertThat(KeyAnalysis.rankCorrelation(x, new double[]{7, 7, 7, 7, 7})).isNaN();
    }

    @Test
    void theTextAndJsonFormsCarryTheFigures() {
        KeyAnalysis analysis = analysis(KeyLayout.DEFAULT, 1);
        for (int i = 0; i < 200; i++) {
            add(analysis, String.format("sensor-%03d", i % 100), "temp", T0 + i * 30_000L);
        }
        analysis.reject("invalid-line", "line 3: value is empty");
        KeyAnalysisReport.Source source = new KeyAnalysisReport.Source("file", "history.csv", "all");

        KeyAnalysisReport report = analysis.report();
        String text = report.text(source);
        JsonNode json = report.json(source);

        assertThat(text).startsWith("sample       200 readings: all of history.csv; not stored: 1 (invalid-line 1)\n"
                + "time span    2026-11-30T10:00:00Z to 2026-11-30T11:39:30Z (1h 39m)\n"
                + "devices      100, 100 series (1.0 per device)\n"
                + "busiest 1%   1 device holds 1.0% of the readings (1.0% if all were alike)\n");
        assertThat(text).contains("top devices", "sensor-000", "\nclean: the sampled keys keep every rule checked");
        assertThat(json.get("verdict").asText()).isEqualTo("clean");
        assertThat(json.fieldNames()).toIterable().containsExactly("verdict", "source", "readings", "rejected", "timeSpan",
                "devices", "series", "busiest", "topDevices", "volume", "partitions", "keyBytes", "findings");
        assertThat(json.at("/rejected/invalid-line").asLong()).isEqualTo(1);
        assertThat(json.at("/timeSpan/millis").asLong()).isEqualTo(199 * 30_000L);
        assertThat(json.at("/partitions/readings").size()).isEqualTo(1);
        assertThat(json.at("/topDevices/0").fieldNames()).toIterable().containsExactly("tenant", "device", "readings",
                "share", "partition", "bytes", "projectedBytes");
        assertThat(json.at("/volume/lifecycleMillis").asLong()).isEqualTo(WEEK.toMillis());
    }
}
