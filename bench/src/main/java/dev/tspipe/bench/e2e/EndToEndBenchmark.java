package dev.tspipe.bench.e2e;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.tspipe.embedded.EmbeddedKafka;
import dev.tspipe.embedded.EmbeddedSchemaRegistry;
import dev.tspipe.embedded.FreePorts;
import dev.tspipe.processor.topology.Topics;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.utils.Utils;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * The end-to-end harness (docs/benchmarks.md): on one preloaded input topic of the embedded
 * broker it measures the physical limit (plain producer, plain consumer), a naive Kafka Streams
 * baseline ({@link BaselineTopology}), the ceiling of any store design ({@link CeilingTopology}:
 * decode and validate, store nothing) and tspipe's topology, each application in its own JVM
 * ({@link NodeMain}), with the changelog bytes and records each left on the broker; then query
 * latency on an owner and through a forwarding instance while fresh readings arrive
 * ({@link IngestLoad}), and a restore from the changelogs. The user's alternative, QuestDB, takes the same readings
 * in the same run ({@link QuestDbCatchUp}). Writes {@code <out>/e2e-<time>.json}
 * and prints a markdown table.
 */
public final class EndToEndBenchmark {

    static final String INPUT_TOPIC = "readings";
    /** The same readings as batches ({@code --batch}), for the batched phases. */
    static final String INPUT_TOPIC_BATCHED = "readings-batched";
    static final String DLQ_TOPIC = "readings-dlq";
    private static final List<String> ENDPOINTS = List.of("latest", "readings?limit=100", "rollups?step=1h");
    /** The step that measures the floor of every endpoint: {@code /health}, no store read (see {@link #queries}). */
    private static final String FLOOR = "/health (floor)";
    private static final List<String> STEPS = Stream.concat(Stream.of(FLOOR), ENDPOINTS.stream()).toList();
    /** After the ingest of the query phase stops, a node that kept up commits the rest within this (its commit interval is 1 s). */
    private static final Duration KEPT_UP_WITHIN = Duration.ofSeconds(5);
    /** How long the harness waits for a node that did not keep up to commit the rest, to say how far behind it was. */
    static final Duration CATCH_UP_AFTER_INGEST = Duration.ofSeconds(60);

    private final BenchOptions options;
    private final String runId = DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss").withZone(ZoneOffset.UTC).format(Instant.now());
    private final Map<String, Object> result = new LinkedHashMap<>();
    private Path work;

    EndToEndBenchmark(BenchOptions options) {
        this.options = options;
    }

    public static void main(String[] args) {
        BenchOptions options;
        try {
            options = BenchOptions.parse(args);
        } catch (IllegalArgumentException e) {
            System.out.println(e.getMessage());
            System.exit(2);
            return;
        }
        EndToEndBenchmark bench = new EndToEndBenchmark(options);
        Path file = bench.run(String.join(" ", args));
        System.out.println(Report.markdown(bench.result));
        System.out.println("Results: " + file);
        System.exit(0);
    }

    /** Runs every phase; returns the JSON file written. */
    Path run(String arguments) {
        long wallStart = System.nanoTime();
        try {
            work = Files.createTempDirectory("tspipe-bench-");
            Files.createDirectories(options.out());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create the work or output folder", e);
        }
        result.put("run", runId);
        result.put("command", "java -cp bench/target/benchmarks.jar " + getClass().getName() + (arguments.isEmpty() ? "" : " " + arguments));
        result.put("machine", machine());
        result.put("options", options);
        try (EmbeddedKafka kafka = EmbeddedKafka.builder().logDir(work.resolve("kafka")).start();
             EmbeddedSchemaRegistry registry = EmbeddedSchemaRegistry.builder().bootstrapServers(kafka.bootstrapServers()).start();
             Admin admin = Admin.create(kafka.clientConfig())) {
            kafka.createTopic(INPUT_TOPIC, options.partitions());
            if (options.batch() > 0) {
                kafka.createTopic(INPUT_TOPIC_BATCHED, options.partitions());
            }
            kafka.createTopic(DLQ_TOPIC, 1);
            kafka.createTopic(Topics.DEVICES, 1);
            Context context = new Context(kafka.bootstrapServers(), registry.url(), admin);

            InputData input = preload(context);
            Input singles = new Input(INPUT_TOPIC, input.count(), input.count(), true);
            Input batches = options.batch() > 0
                    ? new Input(INPUT_TOPIC_BATCHED, input.batched().values().length, input.count(), false) : null;
            if (!options.skipBaseline()) {
                result.put("baseline", catchUp(context, "baseline", Duration.ZERO, input, singles));
                if (options.baselineGraceSeconds() > 0) {
                    result.put("baselineWithGrace", catchUp(context, "baseline", Duration.ofSeconds(options.baselineGraceSeconds()),
                            input, singles));
                }
            }
            if (!options.skipCeiling()) {
                result.put("ceiling", catchUp(context, "noop", Duration.ZERO, input, singles));
                if (batches != null) {
                    result.put("ceilingBatched", catchUp(context, "noop", Duration.ZERO, input, batches));
                }
            }
            if (!options.skipQuestDb()) {
                // Right before tspipe's catch-up, so that the machine's drift moves the ratio of the two the least.
                result.put("questdb", new QuestDbCatchUp(options.nodeJvmOptions(), options.out().resolve("e2e-" + runId + "-questdb.log"),
                        Duration.ofSeconds(options.catchUpTimeoutSeconds())).run(input.rows(), work.resolve("questdb")));
            }
            if (batches != null) {
                // Next to QuestDB's, which it is compared with; the single readings' catch-up follows.
                result.put("tspipeBatched", catchUp(context, "tspipe", Duration.ZERO, input, batches));
            }
            Map<String, Object> tspipe = catchUp(context, "tspipe", Duration.ZERO, input, singles);
            result.put("tspipe", tspipe);
            result.put("ratios", ratios());
        } finally {
            deleteRecursively(work);
        }
        result.put("wallSeconds", seconds(System.nanoTime() - wallStart));
        Path file = options.out().resolve("e2e-" + runId + ".json");
        try {
            new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValue(file.toFile(), result);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file, e);
        }
        return file;
    }

    Map<String, Object> result() {
        return result;
    }

    private record Context(String bootstrap, String registryUrl, Admin admin) {
    }

    /**
     * One input topic of the catch-ups: its records and the readings they hold (as many for single readings); only the
     * {@code full} one gets tspipe's restart, query and restore phases after its catch-up.
     */
    private record Input(String topic, long records, long readings, boolean full) {

        /** Readings in {@code records} records of this input (exact once all are committed). */
        long readingsIn(long records) {
            return records == this.records ? readings : Math.round(records * (readings / (double) this.records));
        }
    }

    private InputData preload(Context context) {
        Map<String, Object> limit = new LinkedHashMap<>();
        long generateStart = System.nanoTime();
        InputData input = InputData.generate(Math.toIntExact(options.readings()), options.devices(), options.metrics(),
                Duration.ofHours(options.spanHours()), options.reportJitter(), context.registryUrl(), !options.skipQuestDb(),
                options.batch());
        limit.put("generateSeconds", seconds(System.nanoTime() - generateStart));
        limit.put("meanValueBytes", round(input.valueBytes() / (double) input.count(), 1));

        String load = loadAverage();
        long cpu = processCpuNanos();
        long produceNanos = input.produce(context.bootstrap(), INPUT_TOPIC);
        limit.put("produceSeconds", seconds(produceNanos));
        limit.put("produceReadingsPerSecond", perSecond(input.count(), produceNanos));
        limit.put("produceCpuSeconds", seconds(processCpuNanos() - cpu));
        limit.put("produceLoadAverage", load);

        Map<TopicPartition, Long> ends = Offsets.endOffsets(context.admin(), INPUT_TOPIC);
        load = loadAverage();
        cpu = processCpuNanos();
        long consumeNanos = InputData.consumeAll(context.bootstrap(), INPUT_TOPIC, input.count(), ends);
        limit.put("consumeSeconds", seconds(consumeNanos));
        limit.put("consumeReadingsPerSecond", perSecond(input.count(), consumeNanos));
        limit.put("consumeCpuSeconds", seconds(processCpuNanos() - cpu));
        limit.put("consumeLoadAverage", load);
        result.put("limit", limit);
        if (input.batched() != null) {
            Map<String, Object> batched = new LinkedHashMap<>();
            int records = input.batched().values().length;
            batched.put("readingsPerBatch", input.batched().readingsPerBatch());
            batched.put("records", records);
            batched.put("meanValueBytes", round(input.batched().valueBytes() / (double) records, 1));
            batched.put("meanValueBytesPerReading", round(input.batched().valueBytes() / (double) input.count(), 1));
            long batchedProduce = input.produceBatched(context.bootstrap(), INPUT_TOPIC_BATCHED);
            batched.put("produceSeconds", seconds(batchedProduce));
            batched.put("produceReadingsPerSecond", perSecond(input.count(), batchedProduce));
            long batchedConsume = InputData.consumeAll(context.bootstrap(), INPUT_TOPIC_BATCHED, records,
                    Offsets.endOffsets(context.admin(), INPUT_TOPIC_BATCHED));
            batched.put("consumeSeconds", seconds(batchedConsume));
            batched.put("consumeReadingsPerSecond", perSecond(input.count(), batchedConsume));
            result.put("limitBatched", batched);
        }
        return input;
    }

    /** Runs one application from an empty state until it has committed the whole input. */
    private Map<String, Object> catchUp(Context context, String mode, Duration grace, InputData input, Input in) {
        Map<String, Object> figures = new LinkedHashMap<>();
        String name = (grace.isZero() ? mode : mode + "-grace-" + grace.toSeconds() + "s") + (in.full() ? "" : "-batched");
        String applicationId = "bench-" + name + "-" + runId;
        Path stateDir = work.resolve(name + "-state");
        boolean tspipe = mode.equals("tspipe");
        boolean full = tspipe && in.full();
        int httpPort = tspipe ? FreePorts.next() : 0;
        Path jfr = tspipe && options.profile() ? options.out().resolve("e2e-" + runId + "-" + name + "-catch-up.jfr").toAbsolutePath() : null;
        String load = loadAverage();
        long phaseStart = System.nanoTime();
        NodeProcess node = NodeProcess.start(name, options.nodeJvmOptions(), options.out().resolve("e2e-" + runId + "-" + name + ".log"),
                mode, context.bootstrap(), context.registryUrl(), applicationId, stateDir, in.topic(), DLQ_TOPIC,
                options.threads(), httpPort, jfr, grace);
        try {
            long start = System.nanoTime();
            long nodeCpu = node.cpuNanos();
            long harnessCpu = processCpuNanos();
            // Kafka Streams RUNNING: the group joined, the tasks assigned and their (empty) state opened. From here on
            // the clock holds only the processing, as QuestDB's starts with its server up and its table made.
            node.await("STATE RUNNING", Duration.ofSeconds(options.catchUpTimeoutSeconds()));
            long running = System.nanoTime();
            CatchUpMonitor.Progress progress = new CatchUpMonitor(context.admin(), in.topic())
                    .awaitCaughtUp(applicationId, Duration.ofSeconds(options.catchUpTimeoutSeconds()));
            long end = progress.nanoTime();
            long nodeCpuUsed = node.cpuNanos() - nodeCpu;
            long harnessCpuUsed = processCpuNanos() - harnessCpu;
            figures.put("applicationId", applicationId);
            figures.put("graceSeconds", grace.toSeconds());
            figures.put("caughtUp", progress.complete());
            long readings = in.readingsIn(progress.committed());
            figures.put("input", in.topic());
            figures.put("readingsCommitted", readings);
            figures.put("recordsCommitted", progress.committed());
            figures.put("catchUpSeconds", seconds(end - start));
            figures.put("catchUpReadingsPerSecond", perSecond(readings, end - start));
            figures.put("catchUpRecordsPerSecond", perSecond(progress.committed(), end - start));
            figures.put("secondsToRunning", seconds(running - start));
            figures.put("catchUpFromRunningSeconds", seconds(end - running));
            figures.put("catchUpFromRunningReadingsPerSecond", perSecond(readings, end - running));
            // Start-up (the group's first rebalance, task creation) and the first commit interval are in the catch-up.
            double firstCommit = CatchUpMonitor.secondsToFirstCommit(progress.samples(), start);
            figures.put("secondsToFirstCommit", Double.isNaN(firstCommit) ? null : round(firstCommit, 2));
            // Whether the cost grows with the data: the rate over the input's first and last tenth.
            double readingsPerRecord = in.readings() / (double) in.records();
            figures.put("catchUpFirstTenthReadingsPerSecond",
                    rounded(readingsPerRecord * CatchUpMonitor.rateOfTenth(progress.samples(), progress.total(), 0)));
            figures.put("catchUpLastTenthReadingsPerSecond",
                    rounded(readingsPerRecord * CatchUpMonitor.rateOfTenth(progress.samples(), progress.total(), 9)));
            figures.put("cpuSeconds", seconds(nodeCpuUsed));
            figures.put("cpuMicrosPerReading", round(nodeCpuUsed / 1_000.0 / Math.max(1, readings), 2));
            figures.put("brokerCpuSeconds", seconds(harnessCpuUsed));
            figures.put("peakRssMiB", round(node.peakRssKb() / 1024.0, 1));
            figures.put("loadAverageBefore", load);
            figures.put("loadAverageAfter", loadAverage());
            figures.put("streamThreadTime", node.threadTime());
            if (jfr != null) {
                node.stopProfile();
                figures.put("profile", ProfileSummary.of(jfr, 10).figures(jfr));
            }
            figures.put("startToCaughtUpWallSeconds", seconds(end - phaseStart));
            // Before the query phase, whose fresh readings add to the changelogs.
            figures.put("changelogs", changelogs(context.admin(), applicationId, readings));
            if (full) {
                // The state of the input alone: the node stopped cleanly (memtables flushed), then started again on it.
                NodeProcess.Closed stopped = node.stop();
                node.close();
                figures.put("stateAfterCatchUp", StateTables.figures(stateDir, readings));
                long restartStart = System.nanoTime();
                node = NodeProcess.start(name + "-after-stop", options.nodeJvmOptions(),
                        options.out().resolve("e2e-" + runId + "-" + name + "-after-stop.log"), mode, context.bootstrap(),
                        context.registryUrl(), applicationId, stateDir, in.topic(), DLQ_TOPIC, options.threads(), httpPort, null, grace);
                String[] restored = node.await("STATE RUNNING", Duration.ofMinutes(5)).trim().split(" ");
                figures.put("restartAfterCleanStop", Map.of("secondsUntilRunning", seconds(System.nanoTime() - restartStart),
                        "changelogRecordsRestored", Long.parseLong(restored[0]), "droppedRecordsBeforeStop", stopped.droppedRecords()));
            }
            if (full && !options.skipQueries()) {
                long queriesStart = System.nanoTime();
                figures.put("queries", queries(context, node, applicationId, httpPort, input));
                figures.put("queriesWallSeconds", seconds(System.nanoTime() - queriesStart));
                figures.put("peakRssWithQueriesMiB", round(node.peakRssKb() / 1024.0, 1));
            }
            long stopStart = System.nanoTime();
            NodeProcess.Closed closed = node.stop();
            figures.put("stopWallSeconds", seconds(System.nanoTime() - stopStart));
            figures.put("droppedRecords", closed.droppedRecords());
            long bytes = directoryBytes(stateDir);
            // The state holds what was committed until the node stopped: the catch-up, and the query phase's fresh readings.
            long stored = in.readingsIn(Offsets.committed(context.admin(), applicationId, in.topic()));
            figures.put("stateBytes", bytes);
            figures.put("readingsInState", stored);
            figures.put("stateBytesPerReading", round(bytes / (double) Math.max(1, stored), 1));
            if (tspipe) {
                figures.put("stateTables", StateTables.perTable(stateDir, stored));
            }
            if (full && !options.skipRestore()) {
                figures.put("restore", new RestorePhase(options, runId, context.bootstrap(), context.registryUrl()).run(applicationId, stateDir));
            }
            return figures;
        } finally {
            node.close();
        }
    }

    /** A rate rounded to a whole number, or null when it could not be measured (NaN). */
    private static Long rounded(double rate) {
        return Double.isNaN(rate) ? null : Math.round(rate);
    }

    private Map<String, Object> queries(Context context, NodeProcess owner, String applicationId, int ownerPort, InputData input) {
        Map<String, Object> figures = new LinkedHashMap<>();
        int forwarderPort = FreePorts.next();
        long settleStart = System.nanoTime();
        try (NodeProcess forwarder = NodeProcess.start("tspipe-forwarder", options.nodeJvmOptions(),
                options.out().resolve("e2e-" + runId + "-tspipe-forwarder.log"), "tspipe", context.bootstrap(),
                context.registryUrl(), applicationId, work.resolve("tspipe-forwarder-state"), INPUT_TOPIC, DLQ_TOPIC,
                options.threads(), forwarderPort, null, Duration.ZERO);
             QueryLoadProcess load = QueryLoadProcess.start(options.out().resolve("e2e-" + runId + "-query-load.log"),
                     work.resolve("query-uris.txt"))) {
            forwarder.await("STATE RUNNING", Duration.ofMinutes(5));
            awaitReady(ownerPort);
            awaitReady(forwarderPort);
            awaitIdle(List.of(owner, forwarder), Duration.ofSeconds(options.settleSeconds()));
            figures.put("settleSeconds", seconds(System.nanoTime() - settleStart));

            Map<Integer, Integer> ownerOfPartition = partitionOwners(ownerPort);
            figures.put("partitionsOnFirstInstance", ownerOfPartition.values().stream().filter(p -> p == ownerPort).count());
            Map<String, List<URI>> ownerUris = new HashMap<>();
            Map<String, List<URI>> forwardedUris = new HashMap<>();
            for (String endpoint : ENDPOINTS) {
                List<URI> local = new ArrayList<>();
                List<URI> forwarded = new ArrayList<>();
                for (InputData.Series series : input.series()) {
                    int partition = Utils.toPositive(Utils.murmur2(series.device().getBytes(StandardCharsets.UTF_8))) % options.partitions();
                    Integer port = ownerOfPartition.get(partition);
                    if (port == null) {
                        continue;
                    }
                    int other = port == ownerPort ? forwarderPort : ownerPort;
                    String path = "/api/v1/series/" + series.device() + "/" + series.metric() + "/" + endpoint;
                    local.add(URI.create("http://127.0.0.1:" + port + path));
                    forwarded.add(URI.create("http://127.0.0.1:" + other + path));
                }
                ownerUris.put(endpoint, local);
                forwardedUris.put(endpoint, forwarded);
            }
            // The floor: /health on the owner reads no store and forwards nothing, through the same HTTP stack, JVM
            // and machine at the same moment. What it takes is what any endpoint of this node pays here before its
            // own work (a core to run on, the node's pauses, the client), not something a store design can remove.
            ownerUris.put(FLOOR, List.of(URI.create("http://127.0.0.1:" + ownerPort + "/health")));
            List<URI> everything = new ArrayList<>();
            ownerUris.values().forEach(everything::addAll);
            forwardedUris.values().forEach(everything::addAll);
            figures.put("ingestRatePerSecond", options.ingestRate());
            IngestLoad ingest = options.ingestRate() == 0 ? null
                    : IngestLoad.start(context.bootstrap(), context.registryUrl(), INPUT_TOPIC, input, options.ingestRate());
            List<Map<String, Object>> steps = new ArrayList<>();
            try {
                // Warm-up, not recorded (already under ingest): every endpoint on both instances, so that the JIT has seen each path.
                load.run(everything, 500, Duration.ofSeconds(Math.min(5, options.querySeconds())));
                for (int rate : options.queryRates()) {
                    for (String endpoint : STEPS) {
                        for (String target : endpoint.equals(FLOOR) ? List.of("owner") : List.of("owner", "forwarded")) {
                            String loadBefore = loadAverage();
                            List<URI> uris = target.equals("owner") ? ownerUris.get(endpoint) : forwardedUris.get(endpoint);
                            long ingestedBefore = ingest == null ? 0 : ingest.acknowledged();
                            long stepStart = System.nanoTime();
                            // Each endpoint step also sends /health to the owner (a quarter as many, at the same moments):
                            // the floor of the same step, which its p99 is compared with (issue 29's target).
                            List<URI> floor = endpoint.equals(FLOOR) ? List.of() : ownerUris.get(FLOOR);
                            QueryLoad.Result r = load.run(uris, floor, rate, Duration.ofSeconds(options.querySeconds()));
                            long stepNanos = System.nanoTime() - stepStart;
                            Map<String, Object> step = new LinkedHashMap<>();
                            step.put("endpoint", endpoint);
                            step.put("target", target);
                            step.put("ratePerSecond", rate);
                            step.put("requests", r.requests());
                            step.put("errors", r.errors());
                            step.put("p50Ms", round(r.p50Ms(), 3));
                            step.put("p99Ms", round(r.p99Ms(), 3));
                            step.put("p999Ms", round(r.p999Ms(), 3));
                            step.put("maxMs", round(r.maxMs(), 3));
                            if (r.floor() != null) {
                                step.put("floorRequests", r.floor().requests());
                                step.put("floorErrors", r.floor().errors());
                                step.put("floorP50Ms", round(r.floor().p50Ms(), 3));
                                step.put("floorP99Ms", round(r.floor().p99Ms(), 3));
                                step.put("p99OverFloorP99", round(r.p99Ms() / Math.max(0.001, r.floor().p99Ms()), 2));
                            }
                            step.put("ingestReadingsPerSecond", ingest == null ? 0 : perSecond(ingest.acknowledged() - ingestedBefore, stepNanos));
                            step.put("loadAverage", loadBefore);
                            steps.add(step);
                        }
                    }
                }
            } finally {
                if (ingest != null) {
                    ingest.stop();
                }
            }
            figures.put("steps", steps);
            if (ingest != null) {
                figures.put("ingest", keptUp(context, applicationId, ingest));
            }
            forwarder.stop();
        }
        return figures;
    }

    /**
     * The fresh readings of the query phase, and whether the node kept up with them: once the load
     * has stopped (every reading acknowledged), how far the group's committed offsets were behind the
     * input's end, and how long it took to commit the rest.
     */
    private Map<String, Object> keptUp(Context context, String applicationId, IngestLoad ingest) {
        IngestLoad.Totals totals = ingest.stop();
        Map<String, Object> figures = new LinkedHashMap<>();
        figures.put("ratePerSecond", ingest.rate());
        figures.put("sent", totals.sent());
        figures.put("acknowledged", totals.acknowledged());
        figures.put("failed", totals.failed());
        if (ingest.firstFailure() != null) {
            figures.put("firstFailure", ingest.firstFailure().toString());
        }
        figures.put("seconds", round(totals.seconds(), 2));
        figures.put("achievedReadingsPerSecond", Math.round(totals.acknowledged() / totals.seconds()));
        long end = Offsets.endOffsets(context.admin(), INPUT_TOPIC).values().stream().mapToLong(Long::longValue).sum();
        long behind = end - Offsets.committed(context.admin(), applicationId, INPUT_TOPIC);
        long stopped = System.nanoTime();
        CatchUpMonitor.Progress progress = new CatchUpMonitor(context.admin(), INPUT_TOPIC).awaitCaughtUp(applicationId, CATCH_UP_AFTER_INGEST);
        double after = seconds(progress.nanoTime() - stopped);
        figures.put("readingsBehindAtEnd", behind);
        figures.put("secondsBehindAtEnd", round(behind / (double) ingest.rate(), 2));
        figures.put("caughtUpAfterSeconds", progress.complete() ? after : null);
        figures.put("keptUp", progress.complete() && after <= KEPT_UP_WITHIN.toSeconds());
        return figures;
    }

    /** The changelog topics of {@code applicationId} on the broker, per topic and in total, per reading committed. */
    private static Map<String, Object> changelogs(Admin admin, String applicationId, long readings) {
        List<Changelogs.Topic> topics = Changelogs.of(admin, applicationId);
        long bytes = topics.stream().mapToLong(Changelogs.Topic::bytes).sum();
        long records = topics.stream().mapToLong(Changelogs.Topic::records).sum();
        Map<String, Object> figures = new LinkedHashMap<>();
        figures.put("bytes", bytes);
        figures.put("records", records);
        figures.put("bytesPerReading", round(bytes / (double) Math.max(1, readings), 1));
        figures.put("recordsPerReading", round(records / (double) Math.max(1, readings), 3));
        List<Map<String, Object>> perTopic = new ArrayList<>();
        for (Changelogs.Topic topic : topics) {
            Map<String, Object> t = new LinkedHashMap<>();
            t.put("topic", topic.name().substring(applicationId.length() + 1));
            t.put("partitions", topic.partitions());
            t.put("bytes", topic.bytes());
            t.put("records", topic.records());
            t.put("bytesPerReading", round(topic.bytes() / (double) Math.max(1, readings), 1));
            t.put("recordsPerReading", round(topic.records() / (double) Math.max(1, readings), 3));
            perTopic.add(t);
        }
        figures.put("topics", perTopic);
        return figures;
    }

    private Map<String, Object> ratios() {
        Map<String, Object> ratios = new LinkedHashMap<>();
        double tspipe = figure("tspipe", "catchUpReadingsPerSecond");
        if (result.containsKey("baseline")) {
            ratios.put("tspipeOverBaseline", round(tspipe / figure("baseline", "catchUpReadingsPerSecond"), 2));
        }
        if (result.containsKey("baselineWithGrace")) {
            ratios.put("tspipeOverBaselineWithGrace", round(tspipe / figure("baselineWithGrace", "catchUpReadingsPerSecond"), 2));
        }
        if (result.containsKey("ceiling")) {
            ratios.put("tspipeOverCeiling", round(tspipe / figure("ceiling", "catchUpReadingsPerSecond"), 3));
        }
        if (result.containsKey("questdb")) {
            ratios.put("tspipeOverQuestDb", round(tspipe / figure("questdb", "rowsPerSecondUntilQueryable"), 3));
        }
        ratios.put("tspipeOverConsumeLimit", round(tspipe / figure("limit", "consumeReadingsPerSecond"), 3));
        ratios.put("tspipeOverProduceLimit", round(tspipe / figure("limit", "produceReadingsPerSecond"), 3));
        if (result.containsKey("tspipeBatched")) {
            double batched = figure("tspipeBatched", "catchUpReadingsPerSecond");
            ratios.put("batchedOverSingle", round(batched / tspipe, 3));
            if (result.containsKey("ceilingBatched")) {
                ratios.put("batchedOverBatchedCeiling", round(batched / figure("ceilingBatched", "catchUpReadingsPerSecond"), 3));
                ratios.put("batchedOverCeiling", round(batched / figure("ceiling", "catchUpReadingsPerSecond"), 3));
            }
            if (result.containsKey("questdb")) {
                ratios.put("batchedOverQuestDb", round(batched / figure("questdb", "rowsPerSecondUntilQueryable"), 3));
            }
            // The processing alone, from RUNNING (start-up left out, as QuestDB's server start is).
            double fromRunning = figure("tspipeBatched", "catchUpFromRunningReadingsPerSecond");
            if (result.containsKey("ceilingBatched")) {
                ratios.put("batchedFromRunningOverBatchedCeiling",
                        round(fromRunning / figure("ceilingBatched", "catchUpFromRunningReadingsPerSecond"), 3));
            }
            if (result.containsKey("questdb")) {
                ratios.put("batchedFromRunningOverQuestDb", round(fromRunning / figure("questdb", "rowsPerSecondUntilQueryable"), 3));
            }
        }
        return ratios;
    }

    @SuppressWarnings("unchecked")
    private double figure(String section, String name) {
        return ((Number) ((Map<String, Object>) result.get(section)).get(name)).doubleValue();
    }

    private static Map<Integer, Integer> partitionOwners(int port) {
        HttpClient client = HttpClient.newHttpClient();
        try {
            HttpResponse<String> response = client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/api/v1/stats/partitions"))
                    .timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
            Map<Integer, Integer> owners = new HashMap<>();
            for (JsonNode partition : new ObjectMapper().readTree(response.body()).path("partitions")) {
                String owner = partition.path("owner").asText();
                owners.put(partition.path("partition").asInt(), Integer.parseInt(owner.substring(owner.lastIndexOf(':') + 1)));
            }
            return owners;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the partition owners from port " + port, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    private static void awaitReady(int port) {
        HttpClient client = HttpClient.newHttpClient();
        long deadline = System.nanoTime() + Duration.ofMinutes(5).toNanos();
        while (System.nanoTime() < deadline) {
            try {
                HttpResponse<Void> response = client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/ready"))
                        .timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.discarding());
                if (response.statusCode() == 200) {
                    return;
                }
                Thread.sleep(250);
            } catch (IOException e) {
                sleepQuietly();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted", e);
            }
        }
        throw new IllegalStateException("the instance on port " + port + " was not ready within 5 minutes");
    }

    /** Waits until the instances use less than a quarter of a core each (standby restoration over). */
    private static void awaitIdle(List<NodeProcess> nodes, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            long[] before = nodes.stream().mapToLong(NodeProcess::cpuNanos).toArray();
            sleepQuietly();
            boolean idle = true;
            for (int i = 0; i < nodes.size(); i++) {
                idle &= nodes.get(i).cpuNanos() - before[i] < 250_000_000L;
            }
            if (idle) {
                return;
            }
        }
    }

    private static void sleepQuietly() {
        try {
            Thread.sleep(1_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    private static Map<String, Object> machine() {
        com.sun.management.OperatingSystemMXBean os = (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        Map<String, Object> machine = new LinkedHashMap<>();
        machine.put("cores", Runtime.getRuntime().availableProcessors());
        machine.put("memoryGiB", round(os.getTotalMemorySize() / (1024.0 * 1024 * 1024), 1));
        machine.put("jvm", System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version"));
        machine.put("os", System.getProperty("os.name") + " " + System.getProperty("os.version") + " " + System.getProperty("os.arch"));
        machine.put("loadAverageAtStart", loadAverage());
        return machine;
    }

    static String loadAverage() {
        try {
            String[] fields = Files.readString(Path.of("/proc/loadavg")).trim().split(" ");
            return fields[0] + " " + fields[1] + " " + fields[2];
        } catch (IOException e) {
            return String.format("%.2f", ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
        }
    }

    static long processCpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime();
    }


    static long directoryBytes(Path dir) {
        if (!Files.exists(dir)) {
            return 0;
        }
        try (Stream<Path> files = Files.walk(dir)) {
            return files.filter(Files::isRegularFile).mapToLong(file -> file.toFile().length()).sum();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot measure " + dir, e);
        }
    }

    static void deleteRecursively(Path dir) {
        if (dir == null || !Files.exists(dir)) {
            return;
        }
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot delete " + dir, e);
        }
    }

    static double seconds(long nanos) {
        return round(nanos / 1e9, 2);
    }

    static long perSecond(long count, long nanos) {
        return Math.round(count / (nanos / 1e9));
    }

    static double round(double value, int decimals) {
        double scale = Math.pow(10, decimals);
        return Math.round(value * scale) / scale;
    }
}
