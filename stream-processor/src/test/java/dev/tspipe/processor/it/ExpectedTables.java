package dev.tspipe.processor.it;

import dev.tspipe.model.keys.SeriesId;
import dev.tspipe.model.rows.Rollup;
import dev.tspipe.processor.store.RollupStep;
import dev.tspipe.schemas.serde.AvroSerdeConfig;
import dev.tspipe.schemas.serde.AvroSerializer;
import org.apache.kafka.streams.KafkaStreams;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Compares what a running pipeline stored (raw rows, every rollup, latest, dead letters with their
 * bytes) with what {@link GeneratedData} says it must hold, computed independently of the topology.
 */
final class ExpectedTables {

    private ExpectedTables() {
    }

    /** Waits until every table equals the expectation, then asserts it (with the differences on failure). */
    static long awaitTables(PipelineHarness harness, KafkaStreams streams, GeneratedData data, Duration timeout) {
        AvroSerializer<Object> avro = new AvroSerializer<>();
        avro.configure(Map.of(AvroSerdeConfig.SCHEMA_REGISTRY_URL, harness.registryUrl()), false);
        return awaitTables(harness, streams, data, timeout, input -> PipelineHarness.valueOf(input, avro));
    }

    /** As above, for inputs that were sent as {@code sentBytes} gives them (another writer schema, say). */
    static long awaitTables(PipelineHarness harness, KafkaStreams streams, GeneratedData data, Duration timeout,
                            Function<GeneratedData.Input, byte[]> sentBytes) {
        long deadline = System.nanoTime() + timeout.toNanos();
        List<String> differences = List.of("not checked yet");
        long start = System.nanoTime();
        while (System.nanoTime() < deadline) {
            if (streams.state() == KafkaStreams.State.RUNNING) {
                try {
                    differences = differences(harness, streams, data, sentBytes);
                } catch (org.apache.kafka.streams.errors.InvalidStateStoreException rebalancing) {
                    differences = List.of("stores not queryable: " + rebalancing.getMessage());
                }
                if (differences.isEmpty()) {
                    long millis = (System.nanoTime() - start) / 1_000_000;
                    System.out.printf("tables matched after %d ms%n", millis);
                    return millis;
                }
            }
            sleep(1_000);
        }
        assertThat(differences).as("differences between the stores and the expectation (seed %d)", data.seed).isEmpty();
        throw new AssertionError("unreachable");
    }

    static List<String> differences(PipelineHarness harness, KafkaStreams streams, GeneratedData data,
                                    Function<GeneratedData.Input, byte[]> sentBytes) {
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
            List<String> expectedBytes = data.inputs.stream().filter(GeneratedData.Input::bad)
                    .map(input -> HexFormat.of().formatHex(sentBytes.apply(input)) + " " + input.expectedReason())
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
}
