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
 * Every phase runs, the query phase with one 1-second step per endpoint and target while fresh
 * readings are written (a second instance joins), and QuestDB takes the same readings (its column adds a few seconds:
 * its JVM's start and a catch-up of 2,000 rows); the whole test takes about a minute.
 */
class EndToEndBenchmarkTest {

    private static final int READINGS = 2000;

    @Test
    void aTinyRunWritesEveryFigure(@TempDir Path out) throws IOException {
        BenchOptions options = BenchOptions.parse("--readings", Integer.toString(READINGS), "--devices", "50", "--partitions", "2",
                "--baseline-grace-seconds", "0", "--query-rates", "50", "--query-seconds", "1", "--settle-seconds", "2",
                "--ingest-rate", "200", "--out", out.toString(),
                // Short-lived child JVMs: C1 only and the serial collector start faster on 2 cores.
                "--node-jvm-opts", "-Xmx256m -XX:TieredStopAtLevel=1 -XX:+UseSerialGC");

        Path file = new EndToEndBenchmark(options).run("--readings " + READINGS);
        JsonNode result = new ObjectMapper().readTree(file.toFile());

        assertThat(result.at("/machine/cores").asInt()).isPositive();
        assertThat(List.of("/limit/produceReadingsPerSecond", "/limit/consumeReadingsPerSecond",
                "/baseline/catchUpReadingsPerSecond", "/baseline/cpuSeconds", "/baseline/brokerCpuSeconds",
                "/baseline/peakRssMiB", "/baseline/stateBytesPerReading", "/baseline/droppedRecords", "/baseline/readingsCommitted",
                "/ceiling/catchUpReadingsPerSecond", "/ceiling/cpuSeconds", "/ceiling/cpuMicrosPerReading", "/ceiling/brokerCpuSeconds",
                "/ceiling/peakRssMiB", "/ceiling/changelogs/bytes",
                "/tspipe/catchUpReadingsPerSecond", "/tspipe/cpuSeconds", "/tspipe/brokerCpuSeconds",
                "/tspipe/peakRssMiB", "/tspipe/peakRssWithQueriesMiB", "/tspipe/stateBytesPerReading", "/tspipe/droppedRecords",
                "/tspipe/changelogs/bytesPerReading", "/tspipe/changelogs/recordsPerReading",
                "/tspipe/restore/rowsPerSecond", "/tspipe/restore/changelogRecordsRestored", "/tspipe/restore/restoreSeconds",
                "/tspipe/stateAfterCatchUp/bytesPerReading", "/tspipe/stateAfterCatchUp/tables/raw-rows/sstBytes",
                "/tspipe/stateAfterCatchUp/tables/latest/bytesPerReading", "/tspipe/stateTables/raw-rows/sstBytes",
                "/tspipe/profile/executionSamples",
                "/questdb/rowsPerSecondUntilQueryable", "/questdb/secondsUntilQueryable", "/questdb/cpuSeconds",
                "/questdb/cpuMicrosPerRow", "/questdb/senderCpuSeconds", "/questdb/peakRssMiB", "/questdb/bytesPerRow",
                "/questdb/bytesPerRowWithoutWal",
                "/ratios/tspipeOverBaseline", "/ratios/tspipeOverCeiling", "/ratios/tspipeOverQuestDb", "/ratios/tspipeOverConsumeLimit",
                "/ratios/tspipeOverProduceLimit"))
                .allSatisfy(pointer -> assertThat(result.at(pointer).isNumber()).as(pointer).isTrue());
        assertThat(result.at("/tspipe/catchUpReadingsPerSecond").asDouble()).isPositive();
        assertThat(result.at("/tspipe/restore/changelogRecordsRestored").asLong()).isPositive();
        // Every reading's raw row, its buckets and its series' latest value come back.
        assertThat(result.at("/tspipe/restore/rowsRestored").asLong()).isGreaterThanOrEqualTo(READINGS);
        // The state of the input alone holds its readings, and a node started again on it after a clean stop restores nothing.
        assertThat(result.at("/tspipe/stateAfterCatchUp/tables/raw-rows/sstBytes").asLong()).isPositive();
        assertThat(result.at("/tspipe/restartAfterCleanStop/changelogRecordsRestored").isNumber()).isTrue();
        assertThat(result.at("/tspipe/restartAfterCleanStop/changelogRecordsRestored").asLong()).isZero();
        // A kill -9 of the restored node does not make its restart restore everything again.
        assertThat(result.at("/tspipe/restore/afterKill/secondsUntilRunning").isNumber()).isTrue();
        assertThat(result.at("/tspipe/restore/afterKill/rowsRestored").asLong())
                .isLessThan(result.at("/tspipe/restore/rowsRestored").asLong());

        // The ceiling reads everything and stores nothing.
        assertThat(result.at("/ceiling/caughtUp").asBoolean()).isTrue();
        assertThat(result.at("/ceiling/readingsCommitted").asLong()).isEqualTo(READINGS);
        assertThat(result.at("/ceiling/catchUpReadingsPerSecond").asDouble()).isPositive();
        assertThat(result.at("/ceiling/changelogs/records").asLong()).isZero();
        assertThat(result.at("/ratios/tspipeOverCeiling").asDouble()).isPositive();

        // The batched input holds the same readings in fewer records; the ceiling and tspipe catch up on all of them.
        assertThat(result.at("/limitBatched/records").asLong()).isPositive().isLessThan(READINGS);
        for (String phase : List.of("/ceilingBatched", "/tspipeBatched")) {
            assertThat(result.at(phase + "/caughtUp").asBoolean()).as(phase).isTrue();
            assertThat(result.at(phase + "/readingsCommitted").asLong()).as(phase).isEqualTo(READINGS);
            assertThat(result.at(phase + "/recordsCommitted").asLong()).as(phase).isEqualTo(result.at("/limitBatched/records").asLong());
            assertThat(result.at(phase + "/catchUpReadingsPerSecond").asDouble()).as(phase).isPositive();
            // The processing alone is no slower than the whole catch-up, start-up included.
            assertThat(result.at(phase + "/catchUpFromRunningReadingsPerSecond").asDouble()).as(phase)
                    .isGreaterThanOrEqualTo(result.at(phase + "/catchUpReadingsPerSecond").asDouble());
            assertThat(result.at(phase + "/secondsToRunning").asDouble()).as(phase).isPositive();
        }
        assertThat(result.at("/tspipeBatched/readingsInState").asLong()).isEqualTo(READINGS);
        assertThat(List.of("/ratios/batchedOverSingle", "/ratios/batchedOverBatchedCeiling", "/ratios/batchedOverQuestDb",
                        "/ratios/batchedFromRunningOverBatchedCeiling", "/ratios/batchedFromRunningOverQuestDb"))
                .allSatisfy(pointer -> assertThat(result.at(pointer).isNumber()).as(pointer).isTrue());

        // QuestDB was given every reading, and a count over HTTP saw each as a row of its own (this input has no two
        // readings of a series in one millisecond): its WAL applied, nothing suspended, the table on disk.
        JsonNode questdb = result.at("/questdb");
        assertThat(questdb.path("version").asText()).isEqualTo("9.2.2");
        assertThat(questdb.path("rowsSent").asLong()).isEqualTo(READINGS);
        assertThat(questdb.path("distinctKeys").asLong()).isEqualTo(READINGS);
        assertThat(questdb.path("rowsCounted").asLong()).isEqualTo(READINGS);
        assertThat(questdb.path("queryable").asBoolean()).isTrue();
        assertThat(questdb.path("walSuspended").asBoolean()).isFalse();
        assertThat(questdb.path("walWriterTxn").asLong()).isPositive().isEqualTo(questdb.path("walSequencerTxn").asLong());
        assertThat(questdb.path("rowsPerSecondUntilQueryable").asDouble()).isPositive();
        assertThat(questdb.path("secondsUntilQueryable").asDouble()).isGreaterThanOrEqualTo(questdb.path("sendSeconds").asDouble());
        assertThat(questdb.path("tableBytes").asLong()).isGreaterThan(questdb.path("walBytes").asLong());
        // A row is at least its timestamp and value (8 bytes each) and three 4-byte symbol keys.
        assertThat(questdb.path("bytesPerRowWithoutWal").asDouble()).isGreaterThanOrEqualTo(28);
        assertThat(result.at("/ratios/tspipeOverQuestDb").asDouble()).isPositive();

        // tspipe's changelogs: every topic is one of its own and the total is their sum. (Since the series store, a
        // changelog record holds all of a series' new rows of one commit, so there is no fixed ratio to readings.)
        JsonNode changelogs = result.at("/tspipe/changelogs");
        assertThat(changelogs.path("topics")).isNotEmpty().allSatisfy(topic -> {
            assertThat(topic.path("topic").asText()).endsWith("-changelog");
            assertThat(topic.path("bytes").asLong()).isNotNegative();
        });
        long topicBytes = 0;
        for (JsonNode topic : changelogs.path("topics")) {
            topicBytes += topic.path("bytes").asLong();
        }
        assertThat(changelogs.path("bytes").asLong()).isPositive().isEqualTo(topicBytes);
        assertThat(changelogs.path("records").asLong()).isPositive();
        assertThat(changelogs.path("recordsPerReading").asDouble()).isPositive();

        // Queries while fresh readings arrive: every step measured some ingest, and the node stored what was written.
        JsonNode queries = result.at("/tspipe/queries");
        // Three endpoints on the owner and forwarded, and the floor (/health) on the owner.
        assertThat(queries.path("steps")).hasSize(7).allSatisfy(step -> {
            assertThat(step.path("requests").asLong()).isPositive();
            assertThat(step.path("ingestReadingsPerSecond").asLong()).isPositive();
        });
        assertThat(queries.path("steps")).filteredOn(step -> step.path("endpoint").asText().startsWith("/health"))
                .singleElement().satisfies(floor -> {
                    assertThat(floor.path("target").asText()).isEqualTo("owner");
                    assertThat(floor.path("errors").asLong()).isZero();
                });
        // Every endpoint's step measured its own floor at the same time.
        assertThat(queries.path("steps")).filteredOn(step -> !step.path("endpoint").asText().startsWith("/health"))
                .hasSize(6).allSatisfy(step -> {
                    assertThat(step.path("floorRequests").asLong()).isPositive();
                    assertThat(step.path("floorErrors").asLong()).isZero();
                    assertThat(step.path("p99OverFloorP99").asDouble()).isPositive();
                });
        JsonNode ingest = queries.path("ingest");
        assertThat(ingest.path("acknowledged").asLong()).isPositive();
        assertThat(ingest.path("failed").asLong()).isZero();
        assertThat(ingest.path("achievedReadingsPerSecond").asLong()).isPositive();
        assertThat(ingest.path("keptUp").isBoolean()).isTrue();
        assertThat(ingest.path("readingsBehindAtEnd").isNumber()).isTrue();
        assertThat(result.at("/tspipe/readingsInState").asLong()).isEqualTo(READINGS + ingest.path("acknowledged").asLong());

        assertThat(Report.markdown(new ObjectMapper().readValue(file.toFile(), java.util.Map.class)))
                .contains("tspipe catch-up", "tspipe, batched input", "ceiling, batched input", "baseline catch-up", "ceiling", "QuestDB until queryable", "tspipeOverQuestDb", "tspipe restore",
                        "changelog topic",
                        "Queries under ingest", "ingest readings/s");
    }
}
