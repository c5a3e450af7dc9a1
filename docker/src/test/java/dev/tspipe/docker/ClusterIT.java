package dev.tspipe.docker;

import dev.tspipe.bench.e2e.CatchUpMonitor;
import dev.tspipe.bench.faults.Failover;
import dev.tspipe.bench.faults.FaultOptions;
import dev.tspipe.bench.faults.Oracle;
import dev.tspipe.bench.faults.Point;
import dev.tspipe.bench.faults.QueryClient;
import dev.tspipe.bench.faults.ReadingLoad;
import dev.tspipe.bench.faults.Series;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ListTopicsOptions;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.config.ConfigResource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;

import java.io.File;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The cluster of {@code docker/compose.yml} in containers (3 brokers with replication factor 3 and
 * min ISR 2, the registry, 3 nodes with one standby each), under the fault harness's load
 * (duplicates, corrections, four placements of a device's records) and checked with its oracle:
 * every raw row and every 1m/1h/1d bucket of every series, read through the query API. In order:
 * no fault; a broker killed mid-stream and restarted; a node killed. Each prints its figures
 * (docs/reliability.md, "Containers").
 *
 * <p>Skipped, with the reason, where no Docker engine, Compose plugin, base image or jar is there;
 * docker/test.sh provides them and runs this test, and there a skip is a failure
 * ({@code -Dtspipe.docker.required=true}).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ClusterIT {

    /** Guards against a hang, not speed requirements: how long each step took is printed. */
    private static final Duration START_GUARD = Duration.ofMinutes(5);
    private static final Duration CATCH_UP_GUARD = Duration.ofMinutes(4);
    private static final Duration ACK_GUARD = Duration.ofMinutes(2);
    /** Longest wait for every series to answer again after a node kill: the session timeout (10 s), a rebalance, restores. */
    private static final Duration FAILOVER_GUARD = Duration.ofMinutes(3);

    private final long seed = Long.getLong("tspipe.seed", ThreadLocalRandom.current().nextLong(1, 1_000_000));
    private final FaultOptions options = FaultOptions.parse("--partitions", Integer.toString(ComposeCluster.PARTITIONS),
            "--devices", "25", "--metrics", "4", "--rate", "300", "--seed", Long.toString(seed));
    private final List<Series> series = Series.all(options.devices(), options.metrics());
    /** Every reading written by every load so far: the oracle of all the checks. */
    private final List<Point> written = new ArrayList<>();
    private final long start = System.nanoTime();
    private long nextEventStart = Instant.now().minus(Duration.ofHours(6)).toEpochMilli();
    private ComposeCluster cluster;

    @BeforeAll
    void startCluster() {
        File dir = new File(System.getProperty("tspipe.docker.dir", "docker"));
        File composeFile = new File(dir, "compose.yml");
        Path jar = dir.toPath().resolve("../app/target/tspipe.jar").normalize();
        if (System.getenv("TSPIPE_CONTAINER_TESTS_NEXT") != null && !Boolean.getBoolean("tspipe.docker.required")) {
            // .ci/run: docker/test.sh runs ClusterIT right after this build, and requires it there.
            String reason = "docker/test.sh runs ClusterIT next (TSPIPE_CONTAINER_TESTS_NEXT is set)";
            System.out.println("ClusterIT skipped: " + reason);
            Assumptions.abort(reason);
        }
        ComposeCluster.whyNotRunnable(composeFile, jar).ifPresent(reason -> {
            if (Boolean.getBoolean("tspipe.docker.required")) {
                throw new AssertionError("ClusterIT cannot run, and docker/test.sh requires it: " + reason);
            }
            System.out.println("ClusterIT skipped: " + reason);
            Assumptions.abort(reason);
        });
        say("seed " + seed + "; starting docker/compose.yml: 3 brokers, registry, 3 nodes (image built from " + jar + ")");
        cluster = new ComposeCluster(composeFile);
        cluster.start();
        awaitUntil("every node ready", START_GUARD, cluster::aliveNodesReady);
        say("cluster ready");
    }

    @AfterAll
    void stopCluster() {
        if (cluster != null) {
            cluster.saveLogs(Path.of("target", "cluster-it-logs"));
            cluster.close();
        }
    }

    @Test
    @Order(1)
    void readingsWrittenWithAcksAllAreQueryableFromEveryNodeExactly() {
        ReadingLoad.Stats stats = runLoad("no fault", Duration.ofSeconds(20), () -> { });
        Discrepancies found = compareWithOracle(cluster.aliveNodes());
        say("no fault: " + stats.writes() + " writes, " + written.size() + " readings; from each of 3 nodes: " + found);
        assertThat(found.clean()).as(found.toString()).isTrue();
        assertThat(cluster.aliveNodes()).hasSize(3);
    }

    @Test
    @Order(2)
    void everyTopicHasThreeReplicasAndMinInsyncTwo() {
        try (Admin admin = admin()) {
            Set<String> names = admin.listTopics(new ListTopicsOptions().listInternal(true)).names().get(1, TimeUnit.MINUTES);
            assertThat(names).contains(ComposeCluster.READINGS_TOPIC, ComposeCluster.DLQ_TOPIC, "_schemas");
            assertThat(names).anyMatch(name -> name.startsWith(ComposeCluster.APPLICATION_ID + "-") && name.endsWith("-changelog"));
            Map<String, TopicDescription> topics = admin.describeTopics(names).allTopicNames().get(1, TimeUnit.MINUTES);
            List<ConfigResource> resources = names.stream().map(n -> new ConfigResource(ConfigResource.Type.TOPIC, n)).toList();
            Map<ConfigResource, Config> configs = admin.describeConfigs(resources).all().get(1, TimeUnit.MINUTES);
            Map<String, String> wrong = new TreeMap<>();
            for (TopicDescription topic : topics.values()) {
                Set<Integer> replicas = topic.partitions().stream().map(p -> p.replicas().size()).collect(Collectors.toSet());
                String minIsr = configs.get(new ConfigResource(ConfigResource.Type.TOPIC, topic.name())).get("min.insync.replicas").value();
                if (!replicas.equals(Set.of(3)) || !"2".equals(minIsr)) {
                    wrong.put(topic.name(), "replicas " + replicas + ", min.insync.replicas " + minIsr);
                }
            }
            say("topics: " + names.size() + " (" + String.join(", ", new TreeMap<>(topics).keySet()) + "), each checked");
            assertThat(wrong).as("topics without 3 replicas and min.insync.replicas=2").isEmpty();
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    @Test
    @Order(3)
    void aBrokerKilledMidStreamAndRestartedLosesNothingAndQueriesKeepAnswering() {
        Probe probe = new Probe();
        long[] downAt = new long[2];
        ReadingLoad.Stats stats = runLoad("broker kill", Duration.ofSeconds(35), () -> {
            sleep(Duration.ofSeconds(8));
            probe.start();
            downAt[0] = System.nanoTime();
            cluster.kill("kafka-2");
            say("killed kafka-2 (docker kill); its partitions' leadership moves to the other two brokers");
            sleep(Duration.ofSeconds(15));
            cluster.restart("kafka-2");
            downAt[1] = System.nanoTime();
            say("restarted kafka-2 after " + seconds(downAt[1] - downAt[0]) + " s down");
            sleep(Duration.ofSeconds(5));
            probe.stop();
        });
        Discrepancies found = compareWithOracle(cluster.aliveNodes());
        say(String.format("broker kill: %d writes (%d resent), %d readings in all; queries while the broker was down or rejoining:"
                        + " %d answered 200 of %d (statuses %s; %d took over 1 s, the slowest %d ms); tables: %s", stats.writes(),
                stats.resends(), written.size(), probe.ok.get(), probe.asked.get(), probe.statuses, probe.overOneSecond.get(),
                probe.slowestMillis.get(), found));
        assertThat(found.clean()).as(found.toString()).isTrue();
        // Queries keep answering: every one in time, and 200 or at most a 503 that says to retry, never a wrong answer.
        assertThat(probe.statuses.keySet()).as("statuses while a broker was down").isSubsetOf(200, 503);
        assertThat(probe.ok.get()).as("answered 200 while a broker was down").isGreaterThanOrEqualTo(probe.asked.get() * 9 / 10);
    }

    @Test
    @Order(4)
    void aNodeKilledHandsItsPartitionsOverAndTheTablesStayExact() {
        Failover.Result[] result = new Failover.Result[1];
        ReadingLoad.Stats stats = runLoad("node kill", Duration.ofSeconds(10), () -> {
            sleep(Duration.ofSeconds(5));
            result[0] = Failover.measure(cluster, series, new QueryClient(Duration.ZERO), FAILOVER_GUARD, this::say);
        });
        Failover.Result r = result[0];
        Discrepancies found = compareWithOracle(cluster.aliveNodes());
        say(String.format("node kill: node-%d killed (active for %d of %d partitions), node-%d asked for %d series once a second:"
                        + " every series answered 200 after %.1f s, fresh after %.1f s; %.1f%% of the answers not 200, %.1f%% stale"
                        + " (statuses %s); %d writes, %d readings in all; tables from the other nodes: %s",
                r.killedNode() + 1, r.activePartitionsOfKilledNode(), ComposeCluster.PARTITIONS, r.queriedNode() + 1, r.seriesAsked(),
                r.secondsUntilAnswered(), r.secondsUntilFresh(), 100 * r.non200Share(), 100 * r.staleShare(), r.statuses(),
                stats.writes(), written.size(), found));
        assertThat(r.recovered()).as("every series fresh again within " + FAILOVER_GUARD).isTrue();
        // A standby (stale) or the new owner answers; a 503 says to retry; a 404 would hide data that exists.
        assertThat(r.statuses().keySet()).as("statuses during the failover").isSubsetOf(200, 503);
        assertThat(found.clean()).as(found.toString()).isTrue();
    }

    /**
     * Writes at the options' rate for {@code duration} while {@code during} runs (a fault), then
     * waits until every write is acknowledged and the nodes have processed all of it.
     */
    private ReadingLoad.Stats runLoad(String name, Duration duration, Runnable during) {
        long loadStart = System.nanoTime();
        ReadingLoad.Stats stats;
        try (ReadingLoad load = new ReadingLoad(options, series, cluster.bootstrapServers(), cluster.registryUrl(),
                ComposeCluster.READINGS_TOPIC, nextEventStart, loadStart)) {
            load.start();
            say(name + ": load started, " + options.rate() + " writes/s");
            during.run();
            sleep(Duration.ofNanos(Math.max(0, loadStart + duration.toNanos() - System.nanoTime())));
            load.stopGenerating();
            assertThat(load.awaitAcknowledged(ACK_GUARD)).as("every write acknowledged (acks=all)").isTrue();
            stats = load.stats();
            written.addAll(load.points());
            long perSeries = load.points().size() / series.size() + 1;
            nextEventStart += (perSeries + 1) * options.intervalMillis();
        }
        long caughtUp = System.nanoTime();
        try (Admin admin = admin()) {
            assertThat(new CatchUpMonitor(admin, ComposeCluster.READINGS_TOPIC)
                    .awaitCaughtUp(ComposeCluster.APPLICATION_ID, CATCH_UP_GUARD).complete()).as("consumer group lag 0").isTrue();
        }
        awaitUntil("every alive node ready", CATCH_UP_GUARD, cluster::aliveNodesReady);
        say(name + ": " + stats.writes() + " writes acknowledged; nodes caught up " + seconds(System.nanoTime() - caughtUp) + " s later");
        return stats;
    }

    /** What the query API holds that the oracle does not, read from each of {@code nodes}. */
    record Discrepancies(long rowsLost, long rowsWrong, long rowsUnexpected, long countLost, long countedTwice,
                         long bucketsWrong, List<String> unanswered) {
        boolean clean() {
            return rowsLost + rowsWrong + rowsUnexpected + countLost + countedTwice + bucketsWrong == 0 && unanswered.isEmpty();
        }

        @Override
        public String toString() {
            return String.format("%d rows lost, %d wrong, %d unexpected; bucket counts %d lost, %d counted twice, %d buckets wrong;"
                    + " %d series unanswered %s", rowsLost, rowsWrong, rowsUnexpected, countLost, countedTwice, bucketsWrong,
                    unanswered.size(), unanswered.isEmpty() ? "" : unanswered.subList(0, Math.min(5, unanswered.size())));
        }
    }

    private Discrepancies compareWithOracle(List<Integer> nodes) {
        Map<Series, List<Point>> bySeries = new HashMap<>();
        written.forEach(p -> bySeries.computeIfAbsent(p.series, s -> new ArrayList<>()).add(p));
        QueryClient http = new QueryClient(Duration.ofSeconds(60));
        long lost = 0, wrong = 0, unexpected = 0, countLost = 0, twice = 0, bucketsWrong = 0;
        List<String> unanswered = new ArrayList<>();
        for (int node : nodes) {
            String base = cluster.nodeUrl(node);
            for (Series s : series) {
                var expected = Oracle.rows(bySeries.getOrDefault(s, List.of()));
                try {
                    Oracle.RowDiff rows = Oracle.compareRows(expected, http.rows(base, s));
                    lost += rows.lost().size();
                    wrong += rows.wrong().size();
                    unexpected += rows.unexpected().size();
                    for (Oracle.Step step : Oracle.Step.values()) {
                        Oracle.BucketDiff buckets = Oracle.compareBuckets(Oracle.buckets(expected, step.millis), http.buckets(base, s, step));
                        countLost += buckets.countLost();
                        twice += buckets.countDouble();
                        bucketsWrong += buckets.wrong();
                    }
                } catch (QueryClient.UnansweredException e) {
                    unanswered.add("node-" + (node + 1) + ":" + s.device() + "/" + s.metric());
                }
            }
        }
        return new Discrepancies(lost, wrong, unexpected, countLost, twice, bucketsWrong, unanswered);
    }

    /**
     * Asks every alive node for the latest reading of one series after another, in its own thread, with a
     * pause of 250 ms after each round; an answer not within 5 s counts as status 0.
     */
    private final class Probe {
        final AtomicLong asked = new AtomicLong();
        final AtomicLong ok = new AtomicLong();
        final AtomicLong overOneSecond = new AtomicLong();
        final AtomicLong slowestMillis = new AtomicLong();
        final Map<Integer, Long> statuses = new java.util.concurrent.ConcurrentSkipListMap<>();
        private final AtomicBoolean running = new AtomicBoolean(true);
        private final Thread thread = new Thread(this::run, "query-probe");

        void start() {
            thread.start();
        }

        void stop() {
            running.set(false);
            try {
                thread.join(30_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }

        private void run() {
            QueryClient client = new QueryClient(Duration.ZERO);
            int i = 0;
            while (running.get()) {
                for (int node : cluster.aliveNodes()) {
                    Series s = series.get(i++ % series.size());
                    long sent = System.nanoTime();
                    int status = client.get(cluster.nodeUrl(node) + QueryClient.path(s, "latest"), Duration.ofSeconds(5)).status();
                    long millis = (System.nanoTime() - sent) / 1_000_000;
                    slowestMillis.accumulateAndGet(millis, Math::max);
                    if (millis > 1_000) {
                        overOneSecond.incrementAndGet();
                    }
                    asked.incrementAndGet();
                    statuses.merge(status, 1L, Long::sum);
                    if (status == 200) {
                        ok.incrementAndGet();
                    }
                }
                sleep(Duration.ofMillis(250));
            }
        }
    }

    private Admin admin() {
        return Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers()));
    }

    private void say(String message) {
        System.out.printf("[ClusterIT %6.1f s] %s%n", (System.nanoTime() - start) / 1e9, message);
    }

    private static void awaitUntil(String what, Duration guard, java.util.function.BooleanSupplier condition) {
        long deadline = System.nanoTime() + guard.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("not within " + guard.toSeconds() + " s: " + what);
            }
            sleep(Duration.ofMillis(500));
        }
    }

    private static String seconds(long nanos) {
        return String.format("%.1f", nanos / 1e9);
    }

    private static void sleep(Duration duration) {
        try {
            Thread.sleep(duration.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }
}
