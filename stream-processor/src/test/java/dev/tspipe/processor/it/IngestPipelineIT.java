package dev.tspipe.processor.it;

import dev.tspipe.embedded.EmbeddedSchemaRegistry;
import dev.tspipe.embedded.junit.EmbeddedKafkaExtension;
import dev.tspipe.processor.keys.SeriesId;
import dev.tspipe.processor.rows.Rollup;
import dev.tspipe.processor.topology.RollupStep;
import dev.tspipe.schemas.serde.AvroSerdeConfig;
import dev.tspipe.schemas.serde.AvroSerializer;
import org.apache.kafka.streams.KafkaStreams;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The topology on a real broker and registry: generated readings over 500 series and 3 days, with
 * duplicates, corrections, mis-keyed and bad records in shuffled order. What the stores hold must
 * equal what the test computes on its own from the generated data.
 */
class IngestPipelineIT {

    @RegisterExtension
    static final EmbeddedKafkaExtension KAFKA = new EmbeddedKafkaExtension();

    private static EmbeddedSchemaRegistry registry;

    @TempDir
    Path stateDir;

    @BeforeAll
    static void startRegistry() {
        registry = EmbeddedSchemaRegistry.builder().bootstrapServers(KAFKA.broker().bootstrapServers()).start();
    }

    @AfterAll
    static void stopRegistry() {
        registry.close();
    }

    @Test
    void aHundredThousandReadingsEndAsTheIndependentlyComputedTables() {
        GeneratedData data = GeneratedData.generate(seed(), 100_000, 100, 3);
        PipelineHarness harness = new PipelineHarness(KAFKA.broker(), registry.url(), "ingest-it");
        harness.produce(data.inputs);

        try (KafkaStreams streams = harness.start(stateDir.resolve("run"))) {
            awaitTables(harness, streams, data, Duration.ofMinutes(3));
        }
    }

    @Test
    void afterAWipedStateDirectoryTheTablesAreRestoredFromTheChangelogs() throws Exception {
        GeneratedData data = GeneratedData.generate(seed() + 1, 20_000, 100, 3);
        PipelineHarness harness = new PipelineHarness(KAFKA.broker(), registry.url(), "restart-it");
        int half = data.inputs.size() / 2;
        harness.produce(data.inputs.subList(0, half));

        Path state = stateDir.resolve("restart");
        try (KafkaStreams streams = harness.start(state)) {
            // Mid-stream: stop once the first half is partly stored.
            awaitAtLeastRows(harness, streams, 2_000, Duration.ofMinutes(2));
        }
        deleteRecursively(state);
        assertThat(state).doesNotExist();
        harness.produce(data.inputs.subList(half, data.inputs.size()));

        try (KafkaStreams streams = harness.start(state)) {
            awaitTables(harness, streams, data, Duration.ofMinutes(3));
        }
    }

    private static long seed() {
        long seed = Long.getLong("tspipe.seed", 20261130L);
        System.out.println("IngestPipelineIT seed " + seed + " (rerun with -Dtspipe.seed=" + seed + ")");
        return seed;
    }

    private static void awaitAtLeastRows(PipelineHarness harness, KafkaStreams streams, int rows, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            if (streams.state() == KafkaStreams.State.RUNNING && harness.rawRows(streams).size() >= rows) {
                return;
            }
            Thread.sleep(200);
        }
        throw new AssertionError("fewer than " + rows + " rows stored within " + timeout);
    }

    /** Waits until every table equals the expectation, then asserts it (with the differences on failure). */
    private static void awaitTables(PipelineHarness harness, KafkaStreams streams, GeneratedData data, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        List<String> differences = List.of("not checked yet");
        long start = System.nanoTime();
        while (System.nanoTime() < deadline) {
            if (streams.state() == KafkaStreams.State.RUNNING) {
                try {
                    differences = differences(harness, streams, data);
                } catch (org.apache.kafka.streams.errors.InvalidStateStoreException rebalancing) {
                    differences = List.of("stores not queryable: " + rebalancing.getMessage());
                }
                if (differences.isEmpty()) {
                    System.out.printf("tables matched after %d ms%n", (System.nanoTime() - start) / 1_000_000);
                    return;
                }
            }
            sleep(1_000);
        }
        assertThat(differences).as("differences between the stores and the expectation (seed %d)", data.seed).isEmpty();
    }

    private static List<String> differences(PipelineHarness harness, KafkaStreams streams, GeneratedData data) {
        List<String> differences = new ArrayList<>();
        Map<GeneratedData.Point, Double> raw = harness.rawRows(streams);
        if (!raw.equals(data.finalValues)) {
            long missing = data.finalValues.keySet().stream().filter(p -> !raw.containsKey(p)).count();
            long extra = raw.keySet().stream().filter(p -> !data.finalValues.containsKey(p)).count();
            long wrong = raw.entrySet().stream().filter(e -> data.finalValues.containsKey(e.getKey())
                    && !Objects.equals(data.finalValues.get(e.getKey()), e.getValue())).count();
            differences.add("raw rows: " + raw.size() + " stored, " + data.finalValues.size() + " expected; "
                    + missing + " missing, " + extra + " extra, " + wrong + " with another value");
            return differences;
        }
        for (RollupStep step : RollupStep.values()) {
            Map<GeneratedData.Point, Rollup> expected = data.expectedRollups(step);
            Map<GeneratedData.Point, Rollup> actual = harness.rollups(streams, step);
            if (!actual.keySet().equals(expected.keySet())) {
                differences.add(step + ": " + actual.size() + " buckets stored, " + expected.size() + " expected");
                continue;
            }
            expected.forEach((bucket, want) -> {
                Rollup got = actual.get(bucket);
                if (got.count() != want.count() || Math.abs(got.sum() - want.sum()) > 1e-6 * Math.max(1, Math.abs(want.sum()))
                        || got.min() != want.min() || got.max() != want.max() || got.last() != want.last()
                        || got.lastEpochMillis() != want.lastEpochMillis()) {
                    differences.add(step + " bucket " + bucket + ": got " + got + ", expected " + want);
                }
            });
        }
        Map<SeriesId, Long> latest = harness.latest(streams);
        Map<SeriesId, Long> expectedLatest = data.expectedLatest().entrySet().stream()
                .collect(Collectors.toMap(Map.Entry::getKey, e -> e.getValue().epochMillis()));
        if (!latest.equals(expectedLatest)) {
            differences.add("latest: " + latest.size() + " series stored, " + expectedLatest.size() + " expected, or other timestamps");
        }
        Map<String, Long> reasons = new HashMap<>();
        List<Map.Entry<byte[], String>> letters = harness.deadLetters();
        letters.forEach(letter -> reasons.merge(letter.getValue(), 1L, Long::sum));
        if (!reasons.equals(data.expectedDeadLetters())) {
            differences.add("dead letters by reason: " + reasons + ", expected " + data.expectedDeadLetters());
        } else {
            AvroSerializer<Object> avro = new AvroSerializer<>();
            avro.configure(Map.of(AvroSerdeConfig.SCHEMA_REGISTRY_URL, registry.url()), false);
            List<String> expectedBytes = data.inputs.stream().filter(GeneratedData.Input::bad)
                    .map(input -> HexFormat.of().formatHex(PipelineHarness.valueOf(input, avro)) + " " + input.expectedReason())
                    .sorted().toList();
            List<String> actualBytes = letters.stream().map(l -> HexFormat.of().formatHex(l.getKey()) + " " + l.getValue())
                    .sorted().toList();
            if (!actualBytes.equals(expectedBytes)) {
                differences.add("dead letters hold other bytes than the bad records sent");
            }
        }
        return differences;
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    private static void deleteRecursively(Path dir) throws java.io.IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(path);
            }
        }
    }
}
