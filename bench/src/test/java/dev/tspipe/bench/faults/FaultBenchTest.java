package dev.tspipe.bench.faults;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.util.stream.StreamSupport;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The short version of the fault harness (docs/reliability.md): two tspipe nodes, at least 20,000
 * readings with duplicates and corrections in three placements, while two nodes are killed with
 * SIGKILL and restarted, the broker is killed with the registry and both restarted, and the registry
 * is killed alone. Every raw row and every 1m/1h/1d bucket read through the query API must equal the
 * oracle of what was acknowledged. A test of correctness: nothing here is timed.
 */
class FaultBenchTest {

    @Test
    void nothingIsLostCountedTwiceOrWrongWhenNodesTheBrokerAndTheRegistryAreKilled(@TempDir Path out) throws IOException {
        FaultOptions options = FaultOptions.parse("--short", "--seed", "20261201", "--out", out.toString(),
                // Child JVMs that start fast on 2 cores: C1 only, the serial collector.
                "--node-jvm-opts", "-Xmx384m -XX:TieredStopAtLevel=1 -XX:+UseSerialGC",
                "--server-jvm-opts", "-Xmx384m -XX:TieredStopAtLevel=1 -XX:+UseSerialGC");

        JsonNode result = new ObjectMapper().readTree(new FaultBench(options).run("--short --seed 20261201").toFile());

        assertThat(result.at("/readingsWritten").asLong()).isGreaterThanOrEqualTo(20_000);
        assertThat(result.at("/load/duplicates").asLong()).isPositive();
        assertThat(result.at("/load/corrections").asLong()).isPositive();
        assertThat(faults(result, "node")).isGreaterThanOrEqualTo(2);
        assertThat(faults(result, "broker+registry")).isGreaterThanOrEqualTo(1);
        assertThat(result.at("/allAcknowledged").asBoolean()).isTrue();
        assertThat(result.at("/lost").asLong()).as("raw rows lost").isZero();
        assertThat(result.at("/bucketCountLost").asLong()).as("readings missing from bucket counts").isZero();
        assertThat(result.at("/countedTwice").asLong()).as("readings counted twice").isZero();
        assertThat(result.at("/wrong").asLong()).as("rows and buckets with a wrong value").isZero();
        assertThat(result.at("/deadLetters").size()).as("valid readings dead-lettered: " + result.at("/deadLetters")).isZero();
    }

    private static long faults(JsonNode result, String kind) {
        return StreamSupport.stream(result.at("/faults").spliterator(), false)
                .filter(f -> f.path("kind").asText().equals(kind) && f.path("recovered").asBoolean())
                .count();
    }
}
