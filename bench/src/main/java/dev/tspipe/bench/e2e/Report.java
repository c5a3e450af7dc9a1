package dev.tspipe.bench.e2e;

import java.util.List;
import java.util.Map;

/** The markdown summary of a run's result map, as printed to stdout and pasted into docs/benchmarks.md. */
final class Report {

    /** The applications' sections of the result, in the order they run. */
    private static final List<String> APPLICATIONS = List.of("baseline", "baselineWithGrace", "ceiling", "ceilingBatched",
            "tspipeBatched", "tspipe");

    private Report() {
    }

    @SuppressWarnings("unchecked")
    static String markdown(Map<String, Object> result) {
        StringBuilder md = new StringBuilder();
        Map<String, Object> machine = (Map<String, Object>) result.get("machine");
        md.append("Run ").append(result.get("run")).append(": ").append(machine.get("cores")).append(" cores, ")
                .append(machine.get("memoryGiB")).append(" GiB, ").append(machine.get("jvm")).append(", load average at start ")
                .append(machine.get("loadAverageAtStart")).append("; wall ").append(result.get("wallSeconds")).append(" s\n");
        md.append("`").append(result.get("command")).append("`\n\n");

        Map<String, Object> limit = (Map<String, Object>) result.get("limit");
        md.append("| phase | readings/s | seconds | app CPU s | app CPU µs/reading | broker CPU s | peak RSS MiB | state bytes/reading"
                + " | changelog bytes/reading | changelog records/reading | load avg (1/5/15 min) |\n");
        md.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n");
        md.append(row("limit: plain producer", limit.get("produceReadingsPerSecond"), limit.get("produceSeconds"),
                "(" + limit.get("produceCpuSeconds") + " incl. broker)", "", "", "", "", "", "", limit.get("produceLoadAverage")));
        md.append(row("limit: plain consumer", limit.get("consumeReadingsPerSecond"), limit.get("consumeSeconds"),
                "(" + limit.get("consumeCpuSeconds") + " incl. broker)", "", "", "", "", "", "", limit.get("consumeLoadAverage")));
        Map<String, Object> batched = (Map<String, Object>) result.get("limitBatched");
        if (batched != null) {
            md.append(row("limit: plain producer, batched input (" + batched.get("records") + " records of up to "
                    + batched.get("readingsPerBatch") + " readings, " + batched.get("meanValueBytesPerReading") + " value bytes/reading)",
                    batched.get("produceReadingsPerSecond"), batched.get("produceSeconds"), "", "", "", "", "", "", "", ""));
            md.append(row("limit: plain consumer, batched input", batched.get("consumeReadingsPerSecond"), batched.get("consumeSeconds"),
                    "", "", "", "", "", "", "", ""));
        }
        for (String app : APPLICATIONS) {
            Map<String, Object> f = (Map<String, Object>) result.get(app);
            if (f != null) {
                String label = switch (app) {
                    case "baselineWithGrace" -> "baseline, grace " + f.get("graceSeconds") + " s";
                    case "ceiling" -> "ceiling (decode + validate, nothing stored)";
                    case "ceilingBatched" -> "ceiling, batched input (" + f.get("catchUpRecordsPerSecond") + " records/s)";
                    case "tspipeBatched" -> "tspipe, batched input (" + f.get("catchUpRecordsPerSecond") + " records/s)";
                    default -> app;
                };
                String state = Boolean.TRUE.equals(f.get("caughtUp")) ? "" : ", NOT caught up: " + f.get("readingsCommitted") + " committed in the time limit";
                Object rss = f.containsKey("peakRssWithQueriesMiB")
                        ? f.get("peakRssMiB") + " (" + f.get("peakRssWithQueriesMiB") + " after the queries)" : f.get("peakRssMiB");
                Map<String, Object> changelogs = (Map<String, Object>) f.get("changelogs");
                md.append(row(label + " catch-up (exactly-once; " + f.get("droppedRecords") + " dropped" + state + "; from RUNNING, "
                                + f.get("secondsToRunning") + " s after start: " + f.get("catchUpFromRunningReadingsPerSecond") + " readings/s in "
                                + f.get("catchUpFromRunningSeconds") + " s)", f.get("catchUpReadingsPerSecond"), f.get("catchUpSeconds"),
                        f.get("cpuSeconds"), f.get("cpuMicrosPerReading"), f.get("brokerCpuSeconds"), rss,
                        f.get("stateBytesPerReading") + " (" + f.get("readingsInState") + " readings)",
                        changelogs.get("bytesPerReading"), changelogs.get("recordsPerReading"),
                        f.get("loadAverageBefore") + " → " + f.get("loadAverageAfter")));
            }
        }
        Map<String, Object> questdb = (Map<String, Object>) result.get("questdb");
        if (questdb != null) {
            String state = Boolean.TRUE.equals(questdb.get("queryable")) ? ""
                    : ", NOT queryable: " + questdb.get("rowsCounted") + " of " + questdb.get("distinctKeys") + " rows counted in the time limit";
            md.append(row("QuestDB until queryable (ILP/HTTP, one sender, DEDUP UPSERT KEYS; " + questdb.get("rowsSent") + " rows sent"
                            + state + "; rows/s)", questdb.get("rowsPerSecondUntilQueryable"), questdb.get("secondsUntilQueryable"),
                    questdb.get("cpuSeconds"), questdb.get("cpuMicrosPerRow"), questdb.get("senderCpuSeconds") + " (sender, idle broker)",
                    questdb.get("peakRssMiB"), questdb.get("bytesPerRow") + " (" + questdb.get("bytesPerRowWithoutWal") + " without the WAL)",
                    "", "", questdb.get("loadAverageBefore") + " → " + questdb.get("loadAverageAfter")));
        }
        Map<String, Object> tspipe = (Map<String, Object>) result.get("tspipe");
        Map<String, Object> afterCatchUp = tspipe == null ? null : (Map<String, Object>) tspipe.get("stateAfterCatchUp");
        if (afterCatchUp != null) {
            md.append(row("tspipe state of the input alone, stopped cleanly (per table: " + afterCatchUp.get("tables") + ")", "", "", "", "",
                    "", "", afterCatchUp.get("bytesPerReading") + " (" + afterCatchUp.get("readings") + " readings)", "", "", ""));
        }
        Map<String, Object> restore = tspipe == null ? null : (Map<String, Object>) tspipe.get("restore");
        if (restore != null) {
            md.append(row("tspipe restore (" + restore.get("rowsRestored") + " rows from " + restore.get("changelogRecordsRestored")
                            + " changelog records; rows/s until RUNNING, and " + restore.get("rowsPerSecondOfRestore")
                            + " rows/s over the restore's own " + restore.get("restoreSeconds") + " s)", restore.get("rowsPerSecond"),
                    restore.get("secondsUntilRunning"), "", "", "", restore.get("peakRssMiB"), "", "", "", restore.get("loadAverageBefore")));
            Map<String, Object> afterKill = (Map<String, Object>) restore.get("afterKill");
            if (afterKill != null) {
                md.append(row("tspipe restart after kill -9 of the restored node (" + afterKill.get("rowsRestored") + " rows from "
                                + afterKill.get("changelogRecordsRestored") + " changelog records restored)", "",
                        afterKill.get("secondsUntilRunning"), "", "", "", "", "", "", "", ""));
            }
        }
        md.append("\nRatios: ").append(result.get("ratios")).append("\n");

        md.append("\nChangelogs right after each catch-up (bytes the broker holds; records = end - start offsets, commit markers included):\n\n");
        md.append("| application | changelog topic | partitions | bytes | bytes/reading | records | records/reading |\n");
        md.append("|---|---|---:|---:|---:|---:|---:|\n");
        for (String app : APPLICATIONS) {
            Map<String, Object> f = (Map<String, Object>) result.get(app);
            if (f != null) {
                Map<String, Object> changelogs = (Map<String, Object>) f.get("changelogs");
                for (Map<String, Object> topic : (List<Map<String, Object>>) changelogs.get("topics")) {
                    md.append(row(app, "`" + topic.get("topic") + "`", topic.get("partitions"), topic.get("bytes"), topic.get("bytesPerReading"),
                            topic.get("records"), topic.get("recordsPerReading")));
                }
                md.append(row(app, "**total** (" + f.get("readingsCommitted") + " readings)", "", changelogs.get("bytes"),
                        changelogs.get("bytesPerReading"), changelogs.get("records"), changelogs.get("recordsPerReading")));
            }
        }

        Map<String, Object> queries = tspipe == null ? null : (Map<String, Object>) tspipe.get("queries");
        if (queries != null) {
            Map<String, Object> ingest = (Map<String, Object>) queries.get("ingest");
            if (ingest == null) {
                md.append("\nQueries with both instances idle (no ingest):\n");
            } else {
                Object caughtUp = ingest.get("caughtUpAfterSeconds");
                md.append("\nQueries under ingest: ").append(ingest.get("ratePerSecond")).append(" fresh readings/s asked, ")
                        .append(ingest.get("achievedReadingsPerSecond")).append("/s acknowledged over ").append(ingest.get("seconds"))
                        .append(" s (").append(ingest.get("sent")).append(" readings sent, ").append(ingest.get("acknowledged"))
                        .append(" acknowledged, ").append(ingest.get("failed")).append(" failed")
                        .append(ingest.containsKey("firstFailure") ? ", first failure: " + ingest.get("firstFailure") : "")
                        .append("); when it stopped the group was ").append(ingest.get("readingsBehindAtEnd"))
                        .append(" readings (").append(ingest.get("secondsBehindAtEnd")).append(" s) behind, ")
                        .append(caughtUp == null ? "and had not caught up " + EndToEndBenchmark.CATCH_UP_AFTER_INGEST.toSeconds() + " s later" : "caught up after " + caughtUp + " s")
                        .append(": **").append(Boolean.TRUE.equals(ingest.get("keptUp")) ? "kept up" : "did not keep up").append("**\n");
            }
            md.append("\n| endpoint | target | req/s | requests | errors | p50 ms | p99 ms | p99.9 ms | max ms | floor p99 ms (same step) | p99 ÷ floor p99 | ingest readings/s | load avg |\n");
            md.append("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n");
            for (Map<String, Object> step : (List<Map<String, Object>>) queries.get("steps")) {
                md.append(row("`" + step.get("endpoint") + "`", step.get("target"), step.get("ratePerSecond"), step.get("requests"),
                        step.get("errors"), step.get("p50Ms"), step.get("p99Ms"), step.get("p999Ms"), step.get("maxMs"),
                        step.getOrDefault("floorP99Ms", ""), step.getOrDefault("p99OverFloorP99", ""),
                        step.get("ingestReadingsPerSecond"), step.get("loadAverage")));
            }
        }
        Map<String, Object> profile = tspipe == null ? null : (Map<String, Object>) tspipe.get("profile");
        if (profile != null) {
            md.append("\ntspipe catch-up profile: ").append(profile.get("executionSamples")).append(" execution samples, ")
                    .append(profile.get("nativeSamples")).append(" native samples\n\n| top frame (self) | samples |\n|---|---:|\n");
            ((Map<String, Object>) profile.get("topSelf")).forEach((method, count) ->
                    md.append("| `").append(method).append("` | ").append(count).append(" |\n"));
        }
        return md.toString();
    }

    private static String row(Object... cells) {
        StringBuilder row = new StringBuilder("|");
        for (Object cell : cells) {
            row.append(' ').append(cell == null ? "" : cell).append(" |");
        }
        return row.append('\n').toString();
    }
}
