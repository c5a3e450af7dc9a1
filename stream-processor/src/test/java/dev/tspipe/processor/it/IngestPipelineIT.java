package dev.tspipe.processor.it;

import dev.tspipe.embedded.EmbeddedSchemaRegistry;
import dev.tspipe.embedded.junit.EmbeddedKafkaExtension;
import org.apache.kafka.streams.KafkaStreams;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
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
            ExpectedTables.awaitTables(harness, streams, data, Duration.ofMinutes(3));
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
            ExpectedTables.awaitTables(harness, streams, data, Duration.ofMinutes(3));
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
