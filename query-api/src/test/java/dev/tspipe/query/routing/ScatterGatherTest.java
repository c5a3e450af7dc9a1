package dev.tspipe.query.routing;

import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpServer;
import org.apache.kafka.streams.state.HostInfo;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Plans of several partitions carried out against fake copies and instances: one request per instance, failover per
 * partition, at most the per-query bound in flight; and every other instance asked once, against real HTTP servers on
 * the loopback interface. The failover wait runs on the test's clock: a pause advances it, no test sleeps.
 */
class ScatterGatherTest {

    private static final String STORE = "latest";
    private static final HostInfo A = new HostInfo("10.0.0.1", 8080);
    private static final HostInfo B = new HostInfo("10.0.0.2", 8080);

    /** The test's clock: {@link ScatterGather.Timing#pause} advances it and runs {@link #onPause} first. */
    private final AtomicLong nanos = new AtomicLong();
    private final List<Runnable> onPause = new CopyOnWriteArrayList<>();
    private final AtomicInteger pauses = new AtomicInteger();
    private final ScatterGather.Timing timing = new ScatterGather.Timing() {
        @Override
        public long nanoTime() {
            return nanos.get();
        }

        @Override
        public void pause(long millis) {
            pauses.incrementAndGet();
            onPause.forEach(Runnable::run);
            nanos.addAndGet(TimeUnit.MILLISECONDS.toNanos(millis));
        }
    };
    private final ScatterGather gather = new ScatterGather(ScatterGather.DEFAULT_PER_QUERY, timing);
    private final Map<Integer, List<Target>> plans = new ConcurrentHashMap<>();
    private final Set<Integer> freshHere = new HashSet<>();
    private final Set<Integer> staleHere = new HashSet<>();
    private final Map<Integer, Long> lags = new HashMap<>();
    /** What each instance can read (absent: cannot be reached), and which of it stale. */
    private final Map<HostInfo, Set<Integer>> readable = new HashMap<>();
    private final Map<HostInfo, Set<Integer>> readsStale = new HashMap<>();
    private final List<String> requests = new CopyOnWriteArrayList<>();
    private final List<HttpServer> servers = new ArrayList<>();
    private final CountDownLatch testOver = new CountDownLatch(1);

    @AfterEach
    void stop() {
        testOver.countDown();
        servers.forEach(server -> server.stop(0));
        gather.close();
    }

    private PartitionPlans plans(Duration failoverWait) {
        return new PartitionPlans(STORE, (store, p, forwarded) -> plans.getOrDefault(p, List.of()), (store, p) -> {
            Long lag = lags.get(p);
            return lag == null ? OptionalLong.empty() : OptionalLong.of(lag);
        }, failoverWait);
    }

    private ScatterGather.Result<String> read(Set<Integer> partitions, Duration failoverWait) {
        return gather.read(plans(failoverWait), partitions, (p, stale) -> freshHere.contains(p) || stale && staleHere.contains(p)
                ? Optional.of("here " + p) : Optional.empty(), (host, asked) -> {
                    requests.add(host.host() + " " + asked);
                    Set<Integer> can = readable.get(host);
                    if (can == null) {
                        return Optional.empty();
                    }
                    Map<Integer, String> answers = new TreeMap<>();
                    asked.stream().filter(can::contains).forEach(p -> answers.put(p, host.host() + " " + p));
                    return Optional.of(new ScatterGather.Batch<>(answers, readsStale.getOrDefault(host, Set.of())));
                });
    }

    @Test
    void eachInstanceIsAskedOnceForAllItsPartitionsAndLocalOnesAreReadHere() {
        plans.put(0, List.of(new Target.LocalActive(0)));
        plans.put(1, List.of(new Target.Remote(A, false)));
        plans.put(2, List.of(new Target.Remote(A, false)));
        plans.put(3, List.of(new Target.Remote(B, false)));
        freshHere.add(0);
        readable.put(A, Set.of(1, 2));
        readable.put(B, Set.of(3));

        ScatterGather.Result<String> result = read(new TreeSet<>(List.of(0, 1, 2, 3)), Duration.ZERO);

        assertThat(result.answers()).containsExactly(Map.entry(0, "here 0"), Map.entry(1, "10.0.0.1 1"),
                Map.entry(2, "10.0.0.1 2"), Map.entry(3, "10.0.0.2 3"));
        assertThat(requests).containsExactlyInAnyOrder("10.0.0.1 [1, 2]", "10.0.0.2 [3]");
        assertThat(result.unanswered()).isEmpty();
        assertThat(result.stale()).isEmpty();
    }

    @Test
    void anUnreachableOwnersPartitionsGoToTheirStandbysAndThoseNoCopyReadsAreUnansweredWithWhatWasTried() {
        plans.put(1, List.of(new Target.Remote(A, false), new Target.Remote(B, true)));
        plans.put(2, List.of(new Target.Remote(A, false), new Target.LocalStandby(2, 7)));
        plans.put(3, List.of(new Target.Remote(A, false)));
        readable.put(B, Set.of(1));
        readsStale.put(B, Set.of(1));
        staleHere.add(2);

        ScatterGather.Result<String> result = read(new TreeSet<>(List.of(1, 2, 3)), Duration.ZERO);

        assertThat(result.answers()).containsExactly(Map.entry(1, "10.0.0.2 1"), Map.entry(2, "here 2"));
        assertThat(result.stale()).containsExactly(1, 2);
        assertThat(result.unanswered()).containsOnlyKeys(3);
        assertThat(result.unanswered().get(3)).containsExactly("10.0.0.1:8080 cannot be reached or failed");
        assertThat(requests).containsExactlyInAnyOrder("10.0.0.1 [1, 2, 3]", "10.0.0.2 [1]");
    }

    @Test
    void aPartitionTheInstanceCouldNotReadMovesOnAndARestoringActiveHereIsReadStaleWithinTheLag() {
        plans.put(1, List.of(new Target.Remote(A, false), new Target.Remote(B, true)));
        plans.put(2, List.of(new Target.LocalActive(2)));
        readable.put(A, Set.of());
        readable.put(B, Set.of(1));
        staleHere.add(2);
        lags.put(2, 5L);

        ScatterGather.Result<String> result = read(new TreeSet<>(List.of(1, 2)), Duration.ZERO);

        assertThat(result.answers()).containsExactly(Map.entry(1, "10.0.0.2 1"), Map.entry(2, "here 2"));
        assertThat(result.stale()).containsExactly(2);
    }

    @Test
    void partitionsWithoutAnAnswerArePlannedAgainUntilTheFailoverWaitEnds() {
        List<Target> later = new ArrayList<>(List.of(new Target.Remote(B, false)));
        plans.put(1, List.of(new Target.Remote(A, false)));
        readable.put(B, Set.of(1));
        onPause.add(() -> {
            if (pauses.get() == 3) {
                plans.put(1, later);     // the partition moved to B meanwhile
            }
        });

        ScatterGather.Result<String> result = read(Set.of(1), Duration.ofSeconds(2));

        assertThat(result.answers()).containsExactly(Map.entry(1, "10.0.0.2 1"));
        assertThat(requests).contains("10.0.0.1 [1]", "10.0.0.2 [1]");
        assertThat(requests).as("A asked once per pass until the partition moved").hasSize(4);
    }

    @Test
    void aPartitionNoCopyAnswersIsTriedEveryPauseForTheFailoverWaitThenUnanswered() {
        plans.put(1, List.of(new Target.Remote(A, false)));

        ScatterGather.Result<String> result = read(Set.of(1), Duration.ofSeconds(2));

        assertThat(result.unanswered()).containsOnlyKeys(1);
        assertThat(requests).as("a pass at 0, 50, ..., 2000 ms").hasSize((int) (2_000 / RoutedRead.PAUSE_MS) + 1);
        assertThat(nanos.get()).isLessThanOrEqualTo(TimeUnit.SECONDS.toNanos(2));
    }

    @Test
    void aForwardedReadAsksForLocalPlansReadsHereOnlyAndDoesNotWait() {
        List<Boolean> forwarded = new CopyOnWriteArrayList<>();
        PartitionPlans localOnly = new PartitionPlans(STORE, (store, p, isForwarded) -> {
            forwarded.add(isForwarded);
            return List.of(new Target.LocalActive(p));
        }, (store, p) -> OptionalLong.empty(), Duration.ofSeconds(2));

        ScatterGather.Result<String> result = gather.readHere(localOnly, Set.of(0, 1),
                (p, stale) -> p == 0 ? Optional.of("here 0") : Optional.empty());

        assertThat(result.answers()).containsExactly(Map.entry(0, "here 0"));
        assertThat(result.unanswered().get(1)).containsExactly("the active task of partition 1 here is not queryable");
        assertThat(forwarded).containsOnly(true);
        assertThat(pauses.get()).isZero();
    }

    @Test
    void whatARemoteReadThrowsIsTheAnswer() {
        plans.put(1, List.of(new Target.Remote(A, false), new Target.Remote(B, true)));
        assertThatThrownBy(() -> gather.read(plans(Duration.ZERO), Set.of(1), (p, stale) -> Optional.empty(),
                (host, asked) -> {
                    throw new IllegalArgumentException("a 400 of " + host.host());
                })).isInstanceOf(IllegalArgumentException.class).hasMessage("a 400 of 10.0.0.1");
    }

    // -----------------------------------------------------------------------------------
    // The per-query bound

    /** Six instances, one partition each, read by a query whose reads {@code inFlight} counts while they run. */
    private ScatterGather.Result<String> sixInstances(ScatterGather bounded, AtomicInteger inFlight, AtomicInteger most,
                                                      AtomicInteger all, AtomicInteger mostOfAll, CountDownLatch together) {
        Map<Integer, List<Target>> six = new HashMap<>();
        for (int p = 0; p < 6; p++) {
            six.put(p, List.of(new Target.Remote(new HostInfo("10.0.1." + p, 8080), false)));
        }
        PartitionPlans sixPlans = new PartitionPlans(STORE, (store, p, forwarded) -> six.get(p),
                (store, p) -> OptionalLong.empty(), Duration.ZERO);
        return bounded.read(sixPlans, Set.of(0, 1, 2, 3, 4, 5), (p, stale) -> Optional.empty(), (host, asked) -> {
            most.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
            mostOfAll.accumulateAndGet(all.incrementAndGet(), Math::max);
            try {
                together.countDown();
                assertThat(together.await(20, TimeUnit.SECONDS)).as("the other query's reads started too").isTrue();
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            } finally {
                all.decrementAndGet();
                inFlight.decrementAndGet();
            }
            return Optional.of(new ScatterGather.Batch<>(Map.of(asked.iterator().next(), host.host()), Set.of()));
        });
    }

    @Test
    void oneQueryHasAtMostItsBoundOfReadsInFlightWhileTwoQueriesTogetherHaveTwice() throws Exception {
        ExecutorService queries = Executors.newFixedThreadPool(2);
        try (ScatterGather bounded = new ScatterGather(2, timing)) {
            AtomicInteger all = new AtomicInteger();
            AtomicInteger mostOfAll = new AtomicInteger();
            // Every read waits until four are in flight at once: two of each query, which a bound shared by the
            // queries (a pool of two threads) would never allow.
            CountDownLatch fourInFlight = new CountDownLatch(4);
            AtomicInteger[] inFlight = {new AtomicInteger(), new AtomicInteger()};
            AtomicInteger[] most = {new AtomicInteger(), new AtomicInteger()};
            List<Future<ScatterGather.Result<String>>> results = new ArrayList<>();
            for (int q = 0; q < 2; q++) {
                int query = q;
                results.add(queries.submit(() -> sixInstances(bounded, inFlight[query], most[query], all, mostOfAll,
                        fourInFlight)));
            }
            for (Future<ScatterGather.Result<String>> result : results) {
                assertThat(result.get(30, TimeUnit.SECONDS).answers()).hasSize(6);
            }
            assertThat(most[0].get()).isEqualTo(2);
            assertThat(most[1].get()).isEqualTo(2);
            assertThat(mostOfAll.get()).isEqualTo(4);
        } finally {
            queries.shutdownNow();
        }
    }

    @Test
    void askingEveryInstanceKeepsTheSameBound() {
        try (ScatterGather bounded = new ScatterGather(2, timing)) {
            AtomicInteger inFlight = new AtomicInteger();
            AtomicInteger most = new AtomicInteger();
            CountDownLatch twoInFlight = new CountDownLatch(2);
            List<HostInfo> six = IntStream.range(0, 6).mapToObj(i -> new HostInfo("10.0.1." + i, 8080)).toList();

            Map<HostInfo, Optional<String>> answers = bounded.askEach(six, host -> {
                most.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
                try {
                    twoInFlight.countDown();
                    assertThat(twoInFlight.await(20, TimeUnit.SECONDS)).isTrue();
                } catch (InterruptedException e) {
                    throw new AssertionError(e);
                } finally {
                    inFlight.decrementAndGet();
                }
                return Optional.of(host.host());
            }, Duration.ofSeconds(30));

            assertThat(answers.keySet()).containsExactlyElementsOf(six);
            assertThat(answers.values()).allSatisfy(answer -> assertThat(answer).isPresent());
            assertThat(most.get()).isEqualTo(2);
        }
    }

    // -----------------------------------------------------------------------------------
    // Closing

    @Test
    void closeStopsEveryThreadAndACallAfterItFailsCleanly() throws InterruptedException {
        ScatterGather closing = new ScatterGather(4, timing);
        Set<Thread> used = ConcurrentHashMap.newKeySet();
        plans.put(0, List.of(new Target.LocalActive(0)));
        plans.put(1, List.of(new Target.Remote(A, false)));
        plans.put(2, List.of(new Target.Remote(B, false)));
        RoutedRead.LocalRead<String> local = (p, stale) -> {
            used.add(Thread.currentThread());
            return Optional.of("here " + p);
        };
        ScatterGather.RemoteRead<String> remote = (host, asked) -> {
            used.add(Thread.currentThread());
            return Optional.of(new ScatterGather.Batch<>(asked.stream().collect(Collectors.toMap(p -> p, p -> host.host())),
                    Set.of()));
        };
        assertThat(closing.read(plans(Duration.ZERO), Set.of(0, 1, 2), local, remote).answers()).hasSize(3);
        assertThat(used).isNotEmpty().doesNotContain(Thread.currentThread());

        closing.close();

        for (Thread thread : used) {
            thread.join(TimeUnit.SECONDS.toMillis(10));
            assertThat(thread.isAlive()).as(thread.getName()).isFalse();
        }
        assertThatThrownBy(() -> closing.read(plans(Duration.ZERO), Set.of(0, 1, 2), local, remote))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("closed");
        assertThatThrownBy(() -> closing.askEach(List.of(A), host -> Optional.of("x"), Duration.ofSeconds(1)))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("closed");
    }

    // -----------------------------------------------------------------------------------
    // Every other instance, over HTTP (these two were Forwarder.getAll's tests)

    private HostInfo serve(HttpHandler handler) throws IOException {
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.setExecutor(Executors.newCachedThreadPool());
        server.createContext("/", handler);
        server.start();
        servers.add(server);
        return new HostInfo("127.0.0.1", server.getAddress().getPort());
    }

    private static void answer(com.sun.net.httpserver.HttpExchange exchange, int status, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().add("Content-Type", "application/json");
        exchange.sendResponseHeaders(status, bytes.length);
        exchange.getResponseBody().write(bytes);
        exchange.close();
    }

    private static Function<HostInfo, Optional<Forwarder.Answer>> statistics(Forwarder forwarder) {
        return host -> forwarder.get(host, Forwarder.Request.of("/api/v1/stats/partitions"));
    }

    /**
     * Each instance answers 200 only once every instance has been asked: asked one after another, the
     * first would wait in vain (and answer 500) before the second is asked.
     */
    @Test
    void allInstancesAreAskedAtOnce() throws Exception {
        CountDownLatch allAsked = new CountDownLatch(3);
        HttpHandler waitForTheOthers = exchange -> {
            allAsked.countDown();
            try {
                answer(exchange, allAsked.await(20, TimeUnit.SECONDS) ? 200 : 500, "{\"partitions\":[]}");
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        };
        List<HostInfo> hosts = List.of(serve(waitForTheOthers), serve(waitForTheOthers), serve(waitForTheOthers));
        try (Forwarder forwarder = new Forwarder(Duration.ofSeconds(2), Duration.ofSeconds(30));
             ScatterGather realTime = new ScatterGather(3)) {
            Map<HostInfo, Optional<Forwarder.Answer>> answers = realTime.askEach(hosts, statistics(forwarder),
                    Duration.ofSeconds(25));
            assertThat(answers.keySet()).containsExactlyElementsOf(hosts);
            assertThat(answers.values()).allSatisfy(answer -> assertThat(answer).hasValueSatisfying(a -> {
                assertThat(a.status()).isEqualTo(200);
                assertThat(a.headers()).containsKey("content-type");
            }));
        }
    }

    @Test
    void anInstanceThatDoesNotAnswerInTimeOrCannotBeReachedIsEmptyAndTheOthersAreKept() throws Exception {
        HostInfo hanging = serve(exchange -> {
            try {
                testOver.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        HostInfo answering = serve(exchange -> answer(exchange, 200, "{}"));
        HostInfo closed;
        try (ServerSocket socket = new ServerSocket(0)) {
            closed = new HostInfo("127.0.0.1", socket.getLocalPort());
        }
        try (Forwarder forwarder = new Forwarder(Duration.ofSeconds(2), Duration.ofSeconds(30));
             ScatterGather realTime = new ScatterGather(ScatterGather.DEFAULT_PER_QUERY)) {
            Map<HostInfo, Optional<Forwarder.Answer>> answers = realTime.askEach(List.of(hanging, answering, closed),
                    statistics(forwarder), Duration.ofSeconds(3));
            assertThat(answers.get(hanging)).isEmpty();
            assertThat(answers.get(answering)).hasValueSatisfying(a -> assertThat(a.status()).isEqualTo(200));
            assertThat(answers.get(closed)).isEmpty();
        }
    }
}
