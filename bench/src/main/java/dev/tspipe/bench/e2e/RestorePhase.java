package dev.tspipe.bench.e2e;

import static dev.tspipe.bench.e2e.EndToEndBenchmark.DLQ_TOPIC;
import static dev.tspipe.bench.e2e.EndToEndBenchmark.INPUT_TOPIC;
import static dev.tspipe.bench.e2e.EndToEndBenchmark.deleteRecursively;
import static dev.tspipe.bench.e2e.EndToEndBenchmark.loadAverage;
import static dev.tspipe.bench.e2e.EndToEndBenchmark.perSecond;
import static dev.tspipe.bench.e2e.EndToEndBenchmark.round;
import static dev.tspipe.bench.e2e.EndToEndBenchmark.seconds;

import dev.tspipe.embedded.FreePorts;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The harness's restore phase (docs/benchmarks.md, "What each phase measures"): a node started on a wiped state
 * directory restores the application's tables from their changelogs (time to {@code RUNNING}, rows and records, the
 * restore's own time as Kafka Streams' restore listener saw it); then it is killed (SIGKILL), and a node started on
 * the state it left must restore nothing.
 */
final class RestorePhase {

    private final BenchOptions options;
    private final String runId;
    private final String bootstrap;
    private final String registryUrl;

    RestorePhase(BenchOptions options, String runId, String bootstrap, String registryUrl) {
        this.options = options;
        this.runId = runId;
        this.bootstrap = bootstrap;
        this.registryUrl = registryUrl;
    }

    Map<String, Object> run(String applicationId, Path stateDir) {
        deleteRecursively(stateDir);
        Map<String, Object> figures = new LinkedHashMap<>();
        String load = loadAverage();
        long phaseStart = System.nanoTime();
        // Profiled as the catch-up is: the recording is dumped once RUNNING, before the kill below.
        Path jfr = options.profile() ? options.out().resolve("e2e-" + runId + "-tspipe-restore.jfr").toAbsolutePath() : null;
        try (NodeProcess node = NodeProcess.start("tspipe-restore", options.nodeJvmOptions(),
                options.out().resolve("e2e-" + runId + "-tspipe-restore.log"), "tspipe", bootstrap,
                registryUrl, applicationId, stateDir, INPUT_TOPIC, DLQ_TOPIC, options.threads(), FreePorts.next(), jfr, Duration.ZERO)) {
            long start = System.nanoTime();
            String[] restored = node.await("STATE RUNNING", Duration.ofMinutes(10)).trim().split(" ");
            long elapsed = System.nanoTime() - start;
            long records = Long.parseLong(restored[0]);
            long rows = Long.parseLong(restored[1]);
            figures.put("secondsUntilRunning", seconds(elapsed));
            figures.put("changelogRecordsRestored", records);
            // A changelog record of raw rows or 1-minute buckets holds all of a series' new rows of one commit: the
            // restore's cost is in rows written (every table), the unit of its target (docs/benchmarks.md).
            figures.put("rowsRestored", rows);
            figures.put("rowsPerSecond", perSecond(rows, elapsed));
            figures.put("changelogRecordsPerSecond", perSecond(records, elapsed));
            // The restore alone, as Kafka Streams' restore listener saw it: the first partition's start to the last one's
            // end, without the JVM's start, the group's join and the rebalance (the restart after kill -9 below takes
            // those with nothing to restore).
            long restoreNanos = Long.parseLong(restored[2]);
            figures.put("restoreSeconds", seconds(restoreNanos));
            figures.put("rowsPerSecondOfRestore", restoreNanos == 0 ? null : perSecond(rows, restoreNanos));
            // Whether the restore waits or works: the node's CPU over that time, and the restoring thread's own.
            figures.put("cpuSecondsOfRestore", seconds(Long.parseLong(restored[3])));
            figures.put("restoringThreadCpuSeconds", seconds(Long.parseLong(restored[4])));
            figures.put("peakRssMiB", round(node.peakRssKb() / 1024.0, 1));
            figures.put("loadAverageBefore", load);
            if (jfr != null) {
                node.stopProfile();
                figures.put("profile", ProfileSummary.of(jfr, 10).figures(jfr));
            }
            // A crash of the restored node (SIGKILL, nothing closed): its restart must not restore everything again.
            node.kill();
        }
        figures.put("afterKill", restartAfterKill(applicationId, stateDir));
        figures.put("phaseWallSeconds", seconds(System.nanoTime() - phaseStart));
        return figures;
    }

    /** Starts a node on the state a killed one left: time to RUNNING and what it restored. */
    private Map<String, Object> restartAfterKill(String applicationId, Path stateDir) {
        Map<String, Object> figures = new LinkedHashMap<>();
        try (NodeProcess node = NodeProcess.start("tspipe-restart", options.nodeJvmOptions(),
                options.out().resolve("e2e-" + runId + "-tspipe-restart.log"), "tspipe", bootstrap,
                registryUrl, applicationId, stateDir, INPUT_TOPIC, DLQ_TOPIC, options.threads(), FreePorts.next(), null, Duration.ZERO)) {
            long start = System.nanoTime();
            String[] restored = node.await("STATE RUNNING", Duration.ofMinutes(10)).trim().split(" ");
            figures.put("secondsUntilRunning", seconds(System.nanoTime() - start));
            figures.put("changelogRecordsRestored", Long.parseLong(restored[0]));
            figures.put("rowsRestored", Long.parseLong(restored[1]));
            node.stop();
        }
        return figures;
    }
}
