package dev.tspipe.bench.e2e;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * What one run of the end-to-end harness does; every option with its default. Parsed from
 * {@code --name value} pairs; a bad value fails fast with a message that names the option.
 *
 * @param readings      readings preloaded into the input topic
 * @param devices       distinct devices (the message key)
 * @param metrics       metrics per device
 * @param partitions    partitions of the input topic
 * @param spanHours     event time the readings cover, ending 5 minutes before the run
 * @param threads       stream threads of the baseline and of tspipe
 * @param catchUpTimeoutSeconds longest catch-up of one application; then its throughput is what it committed so far
 * @param out           folder of the JSON result
 * @param skipBaseline  skip the naive baseline
 * @param baselineGraceSeconds grace of the baseline's second run (0: no second run)
 * @param skipCeiling   skip the ceiling run (decode and validate only, nothing stored)
 * @param skipQuestDb   skip the peer column: QuestDB given the same readings over ILP/HTTP
 * @param skipQueries   skip the query-latency phase
 * @param skipRestore   skip the restore phase
 * @param queryRates    request rates of the query phase, per second
 * @param querySeconds  duration of each (endpoint, target, rate) step
 * @param settleSeconds longest wait, before the query phase, for both instances to go idle (standby restoration)
 * @param ingestRate    fresh readings per second written during the query phase (0: the instances are idle)
 * @param profile       record a JFR profile of tspipe's catch-up and summarize it
 * @param nodeJvmOptions JVM options of the child processes that run the applications
 * @param input         the input's shape: {@code reports} (devices that report all their metrics at one moment,
 *                      each report later by up to {@link #REPORT_JITTER}) or {@code independent} (each reading of a
 *                      device and metric drawn at random)
 * @param batch         readings of a device per record of the batched input ({@code ReadingBatch}), on a topic of its
 *                      own next to the single readings: the same readings, so that both catch-ups compare reading for
 *                      reading (0: no batched input, no batched phases)
 */
@com.fasterxml.jackson.annotation.JsonAutoDetect(fieldVisibility = com.fasterxml.jackson.annotation.JsonAutoDetect.Visibility.ANY)
record BenchOptions(long readings, int devices, int metrics, int partitions, int spanHours, int threads, int catchUpTimeoutSeconds, Path out,
                    boolean skipBaseline, int baselineGraceSeconds, boolean skipCeiling, boolean skipQuestDb, boolean skipQueries,
                    boolean skipRestore, List<Integer> queryRates, int querySeconds, int settleSeconds, int ingestRate, boolean profile,
                    List<String> nodeJvmOptions, String input, int batch) {

    static final String USAGE = """
            java -cp bench/target/benchmarks.jar dev.tspipe.bench.e2e.EndToEndBenchmark [options]
              --readings N        readings preloaded (2000000)
              --devices D         devices (2000)
              --metrics M         metrics per device (5)
              --partitions P      partitions of the input topic (12)
              --span-hours H      event time covered by the readings (3)
              --input SHAPE       reports: each device reports its metrics at one moment, on a
                                  schedule, each report later by up to 100 ms (a fleet's telemetry);
                                  independent: each reading of a device and metric drawn at random,
                                  at the next moment of event time (reports)
              --threads T         stream threads of both applications (1)
              --catch-up-timeout-seconds S  longest catch-up per application (and QuestDB's, until
                                  queryable); then the throughput is what it committed (counted)
                                  so far, marked caughtUp=false (queryable=false) (150)
              --baseline-grace-seconds G  grace of a second baseline run; 0: none (14400:
                                  longer than the span, so that it drops nothing)
              --out DIR           folder of the JSON result (bench/results)
              --query-rates LIST  request rates, per second (200,1000)
              --query-seconds S   seconds per query step (15)
              --settle-seconds S  longest wait for both instances to go idle before the queries (30)
              --ingest-rate R     fresh readings per second written while the queries run; 0: the
                                  instances are idle during the queries (20000)
              --batch N           readings of a device per record of the batched input, which the
                                  ceiling and tspipe catch up on too; 0: none (100: 5 metrics x 20)
              --node-jvm-opts S   JVM options of the application processes and of QuestDB's,
                                  space-separated (-Xmx1g)
              --skip-baseline --skip-ceiling --skip-questdb --skip-queries --skip-restore --no-profile
            """;

    /** The default input's report jitter: devices on a timer, each report up to 100 ms late (docs/benchmarks.md). */
    static final Duration REPORT_JITTER = Duration.ofMillis(100);

    /** The jitter of the input's reports, or null for independent readings. */
    Duration reportJitter() {
        return input.equals("reports") ? REPORT_JITTER : null;
    }

    static BenchOptions defaults() {
        return new BenchOptions(2_000_000, 2_000, 5, 12, 3, 1, 150, Path.of("bench", "results"), false, 4 * 3600, false, false, false,
                false, List.of(200, 1_000), 15, 30, 20_000, true, List.of("-Xmx1g"),
                "reports", 100);
    }

    static BenchOptions parse(String... args) {
        BenchOptions o = defaults();
        long readings = o.readings;
        int devices = o.devices;
        int metrics = o.metrics;
        int partitions = o.partitions;
        int spanHours = o.spanHours;
        int threads = o.threads;
        int catchUpTimeoutSeconds = o.catchUpTimeoutSeconds;
        Path out = o.out;
        boolean skipBaseline = false;
        int baselineGraceSeconds = o.baselineGraceSeconds;
        boolean skipCeiling = false;
        boolean skipQuestDb = false;
        boolean skipQueries = false;
        boolean skipRestore = false;
        List<Integer> rates = o.queryRates;
        int querySeconds = o.querySeconds;
        int settleSeconds = o.settleSeconds;
        int ingestRate = o.ingestRate;
        boolean profile = true;
        List<String> jvm = o.nodeJvmOptions;
        String input = o.input;
        int batch = o.batch;
        for (int i = 0; i < args.length; i++) {
            String name = args[i];
            switch (name) {
                case "--skip-baseline" -> skipBaseline = true;
                case "--skip-ceiling" -> skipCeiling = true;
                case "--skip-questdb" -> skipQuestDb = true;
                case "--skip-queries" -> skipQueries = true;
                case "--skip-restore" -> skipRestore = true;
                case "--no-profile" -> profile = false;
                case "--help", "-h" -> throw new IllegalArgumentException("usage:\n" + USAGE);
                default -> {
                    if (i + 1 >= args.length) {
                        throw new IllegalArgumentException(name + ": missing value (or unknown option)\nusage:\n" + USAGE);
                    }
                    String value = args[++i];
                    switch (name) {
                        case "--readings" -> readings = positiveLong(name, value);
                        case "--devices" -> devices = positiveInt(name, value);
                        case "--metrics" -> metrics = positiveInt(name, value);
                        case "--partitions" -> partitions = positiveInt(name, value);
                        case "--span-hours" -> spanHours = positiveInt(name, value);
                        case "--input" -> {
                            if (!value.equals("reports") && !value.equals("independent")) {
                                throw new IllegalArgumentException("--input must be reports or independent, not " + value);
                            }
                            input = value;
                        }
                        case "--threads" -> threads = positiveInt(name, value);
                        case "--catch-up-timeout-seconds" -> catchUpTimeoutSeconds = positiveInt(name, value);
                        case "--baseline-grace-seconds" -> baselineGraceSeconds = value.equals("0") ? 0 : positiveInt(name, value);
                        case "--out" -> out = Path.of(value);
                        case "--query-seconds" -> querySeconds = positiveInt(name, value);
                        case "--settle-seconds" -> settleSeconds = positiveInt(name, value);
                        case "--ingest-rate" -> ingestRate = value.equals("0") ? 0 : positiveInt(name, value);
                        case "--query-rates" -> {
                            List<Integer> parsed = new ArrayList<>();
                            for (String rate : value.split(",")) {
                                parsed.add(positiveInt(name, rate.trim()));
                            }
                            rates = List.copyOf(parsed);
                        }
                        case "--batch" -> batch = value.equals("0") ? 0 : positiveInt(name, value);
                        case "--node-jvm-opts" -> jvm = value.isBlank() ? List.of() : Arrays.asList(value.trim().split("\\s+"));
                        default -> throw new IllegalArgumentException("unknown option " + name + "\nusage:\n" + USAGE);
                    }
                }
            }
        }
        return new BenchOptions(readings, devices, metrics, partitions, spanHours, threads, catchUpTimeoutSeconds, out, skipBaseline,
                baselineGraceSeconds, skipCeiling, skipQuestDb, skipQueries, skipRestore, rates, querySeconds, settleSeconds, ingestRate,
                profile, jvm, input, batch);
    }

    private static long positiveLong(String name, String value) {
        try {
            long parsed = Long.parseLong(value.replace("_", ""));
            if (parsed > 0) {
                return parsed;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new IllegalArgumentException(name + ": expected a positive integer, got '" + value + "'");
    }

    private static int positiveInt(String name, String value) {
        long parsed = positiveLong(name, value);
        if (parsed > Integer.MAX_VALUE) {
            throw new IllegalArgumentException(name + ": " + value + " is too large");
        }
        return (int) parsed;
    }
}
