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
 * The query phase is skipped: with a second instance joining it would double the test's time
 * (about 20 s of 55); it runs in every default run of the harness.
 */
class EndToEndBenchmarkTest {

    @Test
    void aTinyRunWritesEveryFigure(@TempDir Path out) throws IOException {
        BenchOptions options = BenchOptions.parse("--readings", "2000", "--devices", "50", "--partitions", "2",
                "--baseline-grace-seconds", "0", "--skip-queries", "--out", out.toString(),
                // Short-lived child JVMs: C1 only and the serial collector start faster on 2 cores.
                "--node-jvm-opts", "-Xmx256m -XX:TieredStopAtLevel=1 -XX:+UseSerialGC");

        Path file = new EndToEndBenchmark(options).run("--readings 2000");
        JsonNode result = new ObjectMapper().readTree(file.toFile());

        assertThat(result.at("/machine/cores").asInt()).isPositive();
        assertThat(List.of("/limit/produceReadingsPerSecond", "/limit/consumeReadingsPerSecond",
                "/baseline/catchUpReadingsPerSecond", "/baseline/cpuSeconds", "/baseline/brokerCpuSeconds",
                "/baseline/peakRssMiB", "/baseline/stateBytesPerReading", "/baseline/droppedRecords", "/baseline/readingsCommitted",
                "/tspipe/catchUpReadingsPerSecond", "/tspipe/cpuSeconds", "/tspipe/brokerCpuSeconds",
                "/tspipe/peakRssMiB", "/tspipe/stateBytesPerReading", "/tspipe/droppedRecords",
                "/tspipe/restore/rowsPerSecond", "/tspipe/restore/changelogRecordsRestored",
                "/tspipe/profile/executionSamples",
                "/ratios/tspipeOverBaseline", "/ratios/tspipeOverConsumeLimit", "/ratios/tspipeOverProduceLimit"))
                .allSatisfy(pointer -> assertThat(result.at(pointer).isNumber()).as(pointer).isTrue());
        assertThat(result.at("/tspipe/catchUpReadingsPerSecond").asDouble()).isPositive();
        assertThat(result.at("/tspipe/restore/changelogRecordsRestored").asLong()).isGreaterThanOrEqualTo(2000);

        assertThat(Report.markdown(new ObjectMapper().readValue(file.toFile(), java.util.Map.class)))
                .contains("tspipe catch-up", "baseline catch-up", "tspipe restore");
    }
}
