package dev.tspipe.bench.e2e;

import java.util.List;
import java.util.Map;

/** The markdown summary of a run's result map, as printed to stdout and pasted into docs/benchmarks.md. */
final class Report {

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
        md.append("| phase | readings/s | seconds | app CPU s | broker CPU s | peak RSS MiB | state bytes/reading | load avg (1/5/15 min) |\n");
        md.append("|---|---:|---:|---:|---:|---:|---:|---|\n");
        md.append(row("limit: plain producer", limit.get("produceReadingsPerSecond"), limit.get("produceSeconds"),
                "(" + limit.get("produceCpuSeconds") + " incl. broker)", "", "", "", limit.get("produceLoadAverage")));
        md.append(row("limit: plain consumer", limit.get("consumeReadingsPerSecond"), limit.get("consumeSeconds"),
                "(" + limit.get("consumeCpuSeconds") + " incl. broker)", "", "", "", limit.get("consumeLoadAverage")));
        for (String app : List.of("baseline", "baselineWithGrace", "tspipe")) {
            Map<String, Object> f = (Map<String, Object>) result.get(app);
            if (f != null) {
                String label = app.equals("baselineWithGrace") ? "baseline, grace " + f.get("graceSeconds") + " s" : app;
                String state = Boolean.TRUE.equals(f.get("caughtUp")) ? "" : ", NOT caught up: " + f.get("readingsCommitted") + " committed in the time limit";
                md.append(row(label + " catch-up (exactly-once; " + f.get("droppedRecords") + " dropped" + state + ")", f.get("catchUpReadingsPerSecond"), f.get("catchUpSeconds"),
                        f.get("cpuSeconds"), f.get("brokerCpuSeconds"), f.get("peakRssMiB"), f.get("stateBytesPerReading"),
                        f.get("loadAverageBefore") + " → " + f.get("loadAverageAfter")));
            }
        }
        Map<String, Object> tspipe = (Map<String, Object>) result.get("tspipe");
        Map<String, Object> restore = tspipe == null ? null : (Map<String, Object>) tspipe.get("restore");
        if (restore != null) {
            md.append(row("tspipe restore (changelog records)", restore.get("rowsPerSecond"), restore.get("secondsUntilRunning"),
                    "", "", restore.get("peakRssMiB"), "", restore.get("loadAverageBefore")));
        }
        md.append("\nRatios: ").append(result.get("ratios")).append("\n");

        Map<String, Object> queries = tspipe == null ? null : (Map<String, Object>) tspipe.get("queries");
        if (queries != null) {
            md.append("\n| endpoint | target | req/s | requests | errors | p50 ms | p99 ms | p99.9 ms | max ms | load avg |\n");
            md.append("|---|---|---:|---:|---:|---:|---:|---:|---:|---|\n");
            for (Map<String, Object> step : (List<Map<String, Object>>) queries.get("steps")) {
                md.append("| `").append(step.get("endpoint")).append("` | ").append(step.get("target")).append(" | ")
                        .append(step.get("ratePerSecond")).append(" | ").append(step.get("requests")).append(" | ")
                        .append(step.get("errors")).append(" | ").append(step.get("p50Ms")).append(" | ")
                        .append(step.get("p99Ms")).append(" | ").append(step.get("p999Ms")).append(" | ")
                        .append(step.get("maxMs")).append(" | ").append(step.get("loadAverage")).append(" |\n");
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
