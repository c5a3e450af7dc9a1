package dev.tspipe.bench.faults;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.tspipe.bench.e2e.CatchUpMonitor;
import dev.tspipe.processor.topology.Topics;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;

/**
 * The fault-injection harness (docs/reliability.md, "Fault harness"): a broker, a schema registry
 * and tspipe nodes as child JVMs; readings written at a steady rate (with exact duplicates,
 * corrections, three placements) while seeded faults kill them with SIGKILL and restart them; then
 * every raw row and every 1m/1h/1d bucket of every series is read through the query API and
 * compared with the oracle of what was acknowledged ({@link Oracle}). Optionally, failover of
 * queries when one of two nodes is killed. Writes {@code <out>/faults-<time>.json}.
 */
public final class FaultBench {

    private final FaultOptions options;
    private final String runId = DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss").withZone(ZoneOffset.UTC).format(Instant.now());
    private final Map<String, Object> result = new LinkedHashMap<>();
    private final List<FaultSchedule.Window> windows = Collections.synchronizedList(new ArrayList<>());
    private final AtomicReference<Throwable> laneFailure = new AtomicReference<>();
    private final AtomicInteger faultsDone = new AtomicInteger();
    private long startNanos = System.nanoTime();
    private Tally byFault;

    FaultBench(FaultOptions options) {
        this.options = options;
    }

    public static void main(String[] args) {
        if (System.getProperty("logback.configurationFile") == null) {
            // Before the first logger: the harness's own Kafka clients warn on every connection its faults break.
            System.setProperty("logback.configurationFile", "logback-faults.xml");
        }
        FaultOptions options;
        try {
            options = FaultOptions.parse(args);
        } catch (IllegalArgumentException e) {
            System.out.println(e.getMessage());
            boolean help = java.util.Arrays.asList(args).contains("--help") || java.util.Arrays.asList(args).contains("-h");
            System.exit(help ? 0 : 2);
            return;
        }
        int code;
        try {
            FaultBench bench = new FaultBench(options);
            bench.run(String.join(" ", args));
            code = bench.clean() ? 0 : 1;
        } catch (RuntimeException e) {
            System.out.println("The fault harness could not complete: " + e.getMessage());
            e.printStackTrace(System.out);
            code = 3;
        }
        System.exit(code);
    }

    /** True when nothing was lost, counted twice or wrong. */
    boolean clean() {
        return byFault != null && byFault.clean();
    }

    Map<String, Object> result() {
        return result;
    }

    /** Runs every phase; returns the JSON file written. */
    Path run(String arguments) {
        long wallStart = System.nanoTime();
        Path work;
        try {
            work = Files.createTempDirectory("tspipe-faults-");
            Files.createDirectories(options.out());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create the work or output folder", e);
        }
        FaultSchedule schedule = FaultSchedule.plan(options);
        List<Series> series = Series.all(options.devices(), options.metrics());
        result.put("run", runId);
        result.put("command", "java -cp bench/target/benchmarks.jar " + getClass().getName() + (arguments.isEmpty() ? "" : " " + arguments));
        result.put("seed", options.seed());
        result.put("machine", machine());
        result.put("options", options);
        say(String.format("fault harness %s, seed %d: %d nodes, %d partitions, %d series, %d writes/s for at least %d s; "
                        + "%d node kills, %d broker+registry restarts, %d registry restarts", runId, options.seed(), options.nodes(),
                options.partitions(), series.size(), options.rate(), options.seconds(), options.nodeKills(), options.brokerRestarts(),
                options.registryRestarts()));
        try (Cluster cluster = new Cluster(options, work, options.out(), runId)) {
            startNanos = System.nanoTime();
            say("starting the broker, the registry and " + options.nodes() + " nodes (logs: " + options.out().resolve("faults-" + runId + "-*.log") + ")");
            cluster.startBroker();
            createTopics(cluster.bootstrap());
            cluster.startRegistry();
            for (int i = 0; i < cluster.nodeCount(); i++) {
                cluster.startNode(i);
            }
            for (int i = 0; i < cluster.nodeCount(); i++) {
                if (!cluster.awaitRunning(i, Duration.ofSeconds(options.recoverTimeoutSeconds()))) {
                    throw new IllegalStateException("node-" + i + " did not reach RUNNING at the start (see its log)");
                }
            }
            long eventStart = eventStart(series.size());
            result.put("eventTimeStart", Instant.ofEpochMilli(eventStart).toString());
            startNanos = System.nanoTime();
            try (ReadingLoad load = new ReadingLoad(options, series, cluster.bootstrap(), cluster.registryUrl(), Cluster.INPUT_TOPIC,
                    eventStart, startNanos)) {
                load.start();
                say("load started; event time from " + Instant.ofEpochMilli(eventStart));
                Thread nodeLane = lane("node-faults", schedule.nodeLane(), cluster);
                Thread serverLane = lane("server-faults", schedule.serverLane(), cluster);
                int planned = schedule.nodeLane().size() + schedule.serverLane().size();
                long nextProgress = System.nanoTime();
                while (laneFailure.get() == null
                        && (nodeLane.isAlive() || serverLane.isAlive() || elapsedSeconds() < options.seconds())) {
                    if (System.nanoTime() >= nextProgress) {
                        progress(load.stats(), planned);
                        nextProgress += 10_000_000_000L;
                    }
                    sleep(200);
                }
                if (laneFailure.get() != null) {
                    throw new IllegalStateException("a fault could not be recovered: " + laneFailure.get().getMessage(), laneFailure.get());
                }
                load.stopGenerating();
                say("load stopped; waiting until every write is acknowledged");
                boolean acknowledged = load.awaitAcknowledged(Duration.ofSeconds(120));
                ReadingLoad.Stats stats = load.stats();
                progress(stats, planned);
                result.put("load", stats);
                result.put("allAcknowledged", acknowledged);
                result.put("loadSeconds", round(elapsedSeconds(), 1));
                result.put("faults", windowsJson());
                catchUp(cluster);
                verify(cluster, series, load);
                result.put("deadLetters", deadLetters(cluster.bootstrap()));
                if (options.failover()) {
                    result.put("failover", failover(cluster, series));
                }
            }
        } finally {
            deleteRecursively(work);
        }
        result.put("wallSeconds", round((System.nanoTime() - wallStart) / 1e9, 1));
        Path file = options.out().resolve("faults-" + runId + ".json");
        try {
            new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValue(file.toFile(), result);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file, e);
        }
        System.out.println(summary());
        System.out.println("Results: " + file);
        return file;
    }

    /** Event time starts so that it crosses a UTC midnight (two daily buckets) and, as planned, ends a while before now. */
    private long eventStart(int seriesCount) {
        long newReadings = (long) (options.rate() * (double) options.seconds() * (1 - options.duplicates() - options.corrections()));
        long span = newReadings / seriesCount * options.intervalMillis();
        Instant now = Instant.now();
        long midnight = now.truncatedTo(ChronoUnit.DAYS).toEpochMilli();
        return Math.min(midnight - span / 2, now.toEpochMilli() - span * 3 / 2 - 600_000);
    }

    private Thread lane(String name, List<FaultSchedule.Fault> faults, Cluster cluster) {
        Thread thread = new Thread(() -> {
            try {
                for (FaultSchedule.Fault fault : faults) {
                    sleepUntil(startNanos + fault.atMillis() * 1_000_000);
                    inject(fault, cluster);
                    faultsDone.incrementAndGet();
                }
            } catch (Throwable e) {
                laneFailure.compareAndSet(null, e);
            }
        }, name);
        thread.setDaemon(true);
        thread.start();
        return thread;
    }

    private void inject(FaultSchedule.Fault fault, Cluster cluster) {
        long killed = System.nanoTime();
        String down = String.format("%.1f s", fault.downMillis() / 1000.0);
        switch (fault.kind()) {
            case NODE -> {
                int node = fault.node();
                cluster.killNode(node);
                say("node-" + node + " killed (SIGKILL), down for " + down);
                sleep(fault.downMillis());
                cluster.startNode(node);
                boolean running = cluster.awaitRunning(node, Duration.ofSeconds(options.recoverTimeoutSeconds()));
                windows.add(new FaultSchedule.Window(fault.kind(), "node-" + node, killed, System.nanoTime(), running));
                say(running ? String.format("node-%d restarted, RUNNING %.1f s after the kill", node, (System.nanoTime() - killed) / 1e9)
                        : "node-" + node + " restarted but not RUNNING within " + options.recoverTimeoutSeconds() + " s");
            }
            case BROKER -> {
                cluster.killBroker();
                cluster.killRegistry();
                say("broker and registry killed (SIGKILL), down for " + down);
                sleep(fault.downMillis());
                cluster.startBroker();
                cluster.startRegistry();
                windows.add(new FaultSchedule.Window(fault.kind(), "broker+registry", killed, System.nanoTime(), true));
                say(String.format("broker and registry restarted, serving %.1f s after the kill", (System.nanoTime() - killed) / 1e9));
            }
            case REGISTRY -> {
                cluster.killRegistry();
                say("registry killed (SIGKILL), down for " + down);
                sleep(fault.downMillis());
                cluster.startRegistry();
                windows.add(new FaultSchedule.Window(fault.kind(), "registry", killed, System.nanoTime(), true));
                say(String.format("registry restarted, serving %.1f s after the kill", (System.nanoTime() - killed) / 1e9));
            }
        }
    }

    /** Waits until the group has processed every reading (committed offsets at the ends) and every live node is ready. */
    private void catchUp(Cluster cluster) {
        long start = System.nanoTime();
        say("waiting for the nodes to catch up (consumer group lag 0, every node ready)");
        Map<String, Object> admin = new HashMap<>();
        admin.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrap());
        boolean caughtUp;
        try (Admin client = Admin.create(admin)) {
            caughtUp = new CatchUpMonitor(client, Cluster.INPUT_TOPIC)
                    .awaitCaughtUp(Cluster.APPLICATION_ID, Duration.ofSeconds(options.catchUpTimeoutSeconds())).complete();
        }
        QueryClient http = new QueryClient(Duration.ZERO);
        long deadline = start + Duration.ofSeconds(options.catchUpTimeoutSeconds()).toNanos();
        boolean ready = false;
        while (!ready && System.nanoTime() < deadline) {
            ready = true;
            for (int i = 0; i < cluster.nodeCount(); i++) {
                ready &= http.get(cluster.nodeUrl(i) + "/ready", Duration.ofSeconds(5)).status() == 200;
            }
            if (!ready) {
                sleep(500);
            }
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        result.put("caughtUp", caughtUp);
        result.put("nodesReady", ready);
        result.put("catchUpSeconds", round(seconds, 1));
        say(String.format("%s after %.1f s; every node %s", caughtUp ? "caught up" : "NOT caught up", seconds,
                ready ? "ready" : "NOT ready (some answers may come through the other node)"));
    }

    private void verify(Cluster cluster, List<Series> series, ReadingLoad load) {
        long start = System.nanoTime();
        say("comparing every raw row and every 1m/1h/1d bucket of " + series.size() + " series with the oracle");
        Map<Series, List<Point>> bySeries = new HashMap<>();
        for (Point point : load.points()) {
            bySeries.computeIfAbsent(point.series, s -> new ArrayList<>()).add(point);
        }
        List<FaultSchedule.Window> happened = List.copyOf(windows);
        byFault = new Tally();
        Tally byPlacement = new Tally();
        for (FaultSchedule.Kind kind : FaultSchedule.Kind.values()) {
            byFault.ensure(kind.label);
        }
        byFault.ensure("none");
        long[] perSecond = load.writesPerSecond();
        for (int second = 0; second < perSecond.length; second++) {
            byFault.add(FaultSchedule.kindAt(happened, startNanos + second * 1_000_000_000L + 500_000_000L), "writes", perSecond[second]);
        }
        for (Placement placement : Placement.values()) {
            byPlacement.add(placement.name(), "writes", load.writes(placement));
        }
        // Nodes that did not catch up may never answer (a dead stream thread): then give each page 10 s, not 2 minutes.
        boolean ready = Boolean.TRUE.equals(result.get("caughtUp")) && Boolean.TRUE.equals(result.get("nodesReady"));
        QueryClient http = new QueryClient(Duration.ofSeconds(ready ? 120 : 10));
        // Once two series went unanswered, one attempt per page: a node that stopped would otherwise cost 10 s per series.
        QueryClient once = new QueryClient(Duration.ZERO);
        List<String> unanswered = new ArrayList<>();
        int node = 0;
        for (Series s : series) {
            String base = cluster.nodeUrl(node);
            node = (node + 1) % cluster.nodeCount();
            List<Point> points = bySeries.getOrDefault(s, List.of());
            NavigableMap<Long, Point> pointAt = new TreeMap<>();
            points.forEach(p -> pointAt.put(p.timestamp, p));
            String placement = s.placement().name();

            NavigableMap<Long, Double> expectedRows = Oracle.rows(points);
            NavigableMap<Long, Double> observedRows;
            Map<Oracle.Step, NavigableMap<Long, Oracle.Bucket>> observedBuckets = new java.util.EnumMap<>(Oracle.Step.class);
            QueryClient client = unanswered.size() < 2 ? http : once;
            try {
                observedRows = client.rows(base, s);
                for (Oracle.Step step : Oracle.Step.values()) {
                    observedBuckets.put(step, client.buckets(base, s, step));
                }
            } catch (QueryClient.UnansweredException e) {
                // A series the API cannot serve is, to its users, a series whose readings are lost.
                unanswered.add(s.device() + "/" + s.metric());
                observedRows = new TreeMap<>();
                for (Oracle.Step step : Oracle.Step.values()) {
                    observedBuckets.put(step, new TreeMap<>());
                }
            }
            Oracle.RowDiff rows = Oracle.compareRows(expectedRows, observedRows);
            rows.lost().forEach(t -> countRow(byPlacement, placement, happened, pointAt.get(t), "rawLost"));
            rows.wrong().forEach(t -> countRow(byPlacement, placement, happened, pointAt.get(t), "rawWrong"));
            rows.unexpected().forEach(t -> countRow(byPlacement, placement, happened, null, "rawUnexpected"));

            for (Oracle.Step step : Oracle.Step.values()) {
                Oracle.BucketDiff diff = Oracle.compareBuckets(Oracle.buckets(expectedRows, step.millis), observedBuckets.get(step));
                if (diff.affected().isEmpty()) {
                    continue;
                }
                // A bucket's discrepancy goes to the window of the latest write among its readings.
                long latestWrite = diff.affected().stream()
                        .flatMap(b -> pointAt.subMap(b, true, b + step.millis, false).values().stream())
                        .mapToLong(Point::lastWriteNanos).max().orElse(0);
                String kind = latestWrite == 0 ? "none" : FaultSchedule.kindAt(happened, latestWrite);
                count(byFault, kind, step, diff);
                count(byPlacement, placement, step, diff);
            }
        }
        if (!unanswered.isEmpty()) {
            say(unanswered.size() + " series could not be read (503 or unreachable); their readings count as lost");
        }
        result.put("seriesUnanswered", unanswered);
        result.put("readingsWritten", load.points().size());
        result.put("verifySeconds", round((System.nanoTime() - start) / 1e9, 1));
        result.put("byFault", byFault.asMap());
        result.put("byPlacement", byPlacement.asMap());
        result.put("lost", byFault.lost());
        result.put("bucketCountLost", byFault.bucketLost());
        result.put("countedTwice", byFault.countedTwice());
        result.put("wrong", byFault.wrong());
        result.put("clean", byFault.clean());
        result.put("tableByFault", byFault.table("fault window"));
        result.put("tableByPlacement", byPlacement.table("placement"));
    }

    private static void count(Tally tally, String group, Oracle.Step step, Oracle.BucketDiff diff) {
        tally.add(group, step.label + ".countLost", diff.countLost());
        tally.add(group, step.label + ".countDouble", diff.countDouble());
        tally.add(group, step.label + ".wrong", diff.wrong());
    }

    private void countRow(Tally byPlacement, String placement, List<FaultSchedule.Window> happened, Point point, String figure) {
        byFault.add(point == null ? "none" : FaultSchedule.kindAt(happened, point.lastWriteNanos()), figure, 1);
        byPlacement.add(placement, figure, 1);
    }

    /** Dead letters by reason: every reading written is valid, so each one is a reading that did not reach the tables. */
    private static Map<String, Long> deadLetters(String bootstrap) {
        Map<String, Object> config = Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed", ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        Map<String, Long> reasons = new TreeMap<>();
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(config, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            TopicPartition partition = new TopicPartition(Cluster.DLQ_TOPIC, 0);
            consumer.assign(List.of(partition));
            consumer.seekToBeginning(List.of(partition));
            long end = consumer.endOffsets(List.of(partition), Duration.ofSeconds(30)).get(partition);
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (consumer.position(partition, Duration.ofSeconds(30)) < end && System.nanoTime() < deadline) {
                for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(500))) {
                    Header reason = record.headers().lastHeader("tspipe.error.reason");
                    reasons.merge(reason == null ? "(no reason)" : new String(reason.value(), StandardCharsets.UTF_8), 1L, Long::sum);
                }
            }
        }
        return reasons;
    }

    private Failover.Result failover(Cluster cluster, List<Series> series) {
        Failover.Result r = Failover.measure(cluster, series, new QueryClient(Duration.ZERO),
                Duration.ofSeconds(options.failoverTimeoutSeconds()), this::say);
        say(r.recovered()
                ? String.format("failover: every series answered 200 again %.1f s and fresh %.1f s after the kill; %.2f%% of the answers"
                + " not 200, %.2f%% stale", r.secondsUntilAnswered(), r.secondsUntilFresh(), 100 * r.non200Share(), 100 * r.staleShare())
                : "failover: series still not all fresh after " + options.failoverTimeoutSeconds() + " s");
        return r;
    }

    private void createTopics(String bootstrap) {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
            for (NewTopic topic : List.of(new NewTopic(Cluster.INPUT_TOPIC, options.partitions(), (short) 1),
                    new NewTopic(Cluster.DLQ_TOPIC, 1, (short) 1), new NewTopic(Topics.DEVICES, 1, (short) 1))) {
                try {
                    admin.createTopics(List.of(topic)).all().get(60, TimeUnit.SECONDS);
                } catch (ExecutionException e) {
                    if (!(e.getCause() instanceof TopicExistsException)) {
                        throw new IllegalStateException("cannot create topic " + topic.name() + ": " + e.getCause().getMessage(), e);
                    }
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        } catch (java.util.concurrent.TimeoutException e) {
            throw new IllegalStateException("timed out creating topics", e);
        }
    }

    private void progress(ReadingLoad.Stats s, int planned) {
        say(String.format("writes %,d (acked %,d, unacked %,d) | new %,d, duplicates %,d, corrections %,d, re-sent %,d | faults %d/%d done",
                s.writes(), s.acknowledged(), s.unacknowledged(), s.newReadings(), s.duplicates(), s.corrections(), s.resends(),
                faultsDone.get(), planned));
    }

    private List<Map<String, Object>> windowsJson() {
        List<Map<String, Object>> list = new ArrayList<>();
        synchronized (windows) {
            windows.stream().sorted(Comparator.comparingLong(FaultSchedule.Window::killedNanos)).forEach(w -> {
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("kind", w.kind().label);
                m.put("target", w.target());
                m.put("killedAtSecond", round((w.killedNanos() - startNanos) / 1e9, 1));
                m.put("recoveredAfterSeconds", round((w.recoveredNanos() - w.killedNanos()) / 1e9, 1));
                m.put("recovered", w.recovered());
                list.add(m);
            });
        }
        return list;
    }

    @SuppressWarnings("unchecked")
    private String summary() {
        StringBuilder out = new StringBuilder("\n## Fault harness run " + runId + " (seed " + options.seed() + ")\n\n");
        ReadingLoad.Stats load = (ReadingLoad.Stats) result.get("load");
        if (load != null) {
            out.append(String.format("%,d writes (%,d readings, %,d exact duplicates, %,d corrections, %,d re-sent after a failure) "
                            + "in %s s; %d faults injected; caught up: %s after %s s%n%n", load.writes(), load.newReadings(),
                    load.duplicates(), load.corrections(), load.resends(), result.get("loadSeconds"), windows.size(),
                    result.get("caughtUp"), result.get("catchUpSeconds")));
        }
        if (byFault != null) {
            out.append(String.format("**lost %,d, counted twice %,d, wrong %,d** (readings missing from bucket counts: %,d)%n%n",
                    byFault.lost(), byFault.countedTwice(), byFault.wrong(), byFault.bucketLost()));
            out.append("By the fault window of each reading's last write (bucket figures: by the bucket's latest write):\n\n")
                    .append(result.get("tableByFault")).append("\nBy placement of the device's records:\n\n").append(result.get("tableByPlacement"));
        }
        out.append("\nDead letters by reason: ").append(result.get("deadLetters")).append('\n');
        if (result.get("failover") instanceof Failover.Result f) {
            out.append(String.format("Failover (node-%d killed, active for %d partitions; node-%d asked for %d series%s): every series answered after %.1f s, fresh after %.1f s%s; "
                            + "%.2f%% of the answers not 200, %.2f%% stale; answers by status %s%n", f.killedNode(),
                    f.activePartitionsOfKilledNode(), f.queriedNode(), f.seriesAsked(),
                    f.seriesNotAnsweringBefore() == 0 ? "" : ", " + f.seriesNotAnsweringBefore() + " left out: no fresh 200 before the kill",
                    f.secondsUntilAnswered(), f.secondsUntilFresh(), f.recovered() ? "" : " (NOT recovered)", 100 * f.non200Share(), 100 * f.staleShare(), f.statuses()));
        }
        out.append("Wall time: ").append(result.get("wallSeconds")).append(" s\n");
        return out.toString();
    }

    private void say(String message) {
        System.out.printf("[%6.1f s] %s%n", elapsedSeconds(), message);
        System.out.flush();
    }

    private double elapsedSeconds() {
        return (System.nanoTime() - startNanos) / 1e9;
    }

    private static Map<String, Object> machine() {
        Map<String, Object> machine = new LinkedHashMap<>();
        machine.put("cores", Runtime.getRuntime().availableProcessors());
        machine.put("jvm", System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version"));
        machine.put("loadAverageAtStart", ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
        return machine;
    }

    private static void sleepUntil(long nanos) {
        long left = nanos - System.nanoTime();
        if (left > 0) {
            sleep(left / 1_000_000);
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    private static void deleteRecursively(Path dir) {
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot delete " + dir, e);
        }
    }

    private static double round(double value, int decimals) {
        double scale = Math.pow(10, decimals);
        return Math.round(value * scale) / scale;
    }
}
