package dev.tspipe.bench.e2e;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The harness runs end to end on tiny sizes and its result holds every figure. Nothing is timed
 * or compared here: the figures of a tiny run mean nothing; docs/benchmarks.md has a real run.
 */
class EndToEndBenchmarkTest {

    @Test
    void aTinyRunWritesEveryFigure(@TempDir Path out) throws IOException {
        BenchOptions options = BenchOptions.parse("--readings", "2000", "--devices", "50", "--partitions", "2",
                "--baseline-grace-seconds", "0", "--query-rates", "20", "--query-seconds", "1", "--settle-seconds", "1", "--out", out.toString(),
                // Short-lived child JVMs: C1 only and the serial collector start faster on 2 cores.
                "--node-jvm-opts", "-Xmx256m -XX:TieredStopAtLevel=1 -XX:+UseSerialGC");

        Path file = new EndToEndBenchmark(options).run("--readings 2000");
        JsonNode result = new ObjectMapper().readTree(file.toFile());

        assertThat(result.at("/machine/cores").asInt()).isPositive();
        assertThat(List.of("/limit/produceReadingsPerSecond", "/limit/consumeReadingsPerSecond",
                "/baseline/catchUpReadingsPerSecond", "/baseline/cpuSeconds", "/baseline/brokerCpuSeconds",
                "/baseline/peakRssMiB", "/baseline/stateBytesPerReading", "/baseline/droppedRecords", "/baseline/readingsCommitted",
                "/tspipe/catchUpReadingsPerSecond", "/tspipe/cpuSeconds", "/tspipe/brokerCpuSeconds",
                "/tspipe/peakRssMiB", "/tspipe/stateBytesPerReading", "/tspipe/droppedRecords", "/tspipe/peakRssWithQueriesMiB",
                "/tspipe/restore/rowsPerSecond", "/tspipe/restore/changelogRecordsRestored",
                "/tspipe/profile/executionSamples",
                "/ratios/tspipeOverBaseline", "/ratios/tspipeOverConsumeLimit", "/ratios/tspipeOverProduceLimit"))
                .allSatisfy(pointer -> assertThat(result.at(pointer).isNumber()).as(pointer).isTrue());
        assertThat(result.at("/tspipe/catchUpReadingsPerSecond").asDouble()).isPositive();
        assertThat(result.at("/tspipe/restore/changelogRecordsRestored").asLong()).isGreaterThanOrEqualTo(2000);

        JsonNode steps = result.at("/tspipe/queries/steps");
        assertThat(steps).hasSize(6);
        for (JsonNode step : steps) {
            assertThat(step.path("requests").asLong()).as(step.toString()).isEqualTo(20);
            assertThat(step.path("errors").asLong()).as(step.toString()).isZero();
            assertThat(step.path("p99Ms").isNumber()).isTrue();
        }
        assertThat(Report.markdown(new ObjectMapper().readValue(file.toFile(), java.util.Map.class)))
                .contains("tspipe catch-up", "baseline catch-up", "`latest` | forwarded");
    }
}
