package dev.tspipe.query.routing;

import org.apache.kafka.streams.state.HostInfo;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

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
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import static org.assertj.core.api.Assertions.assertThat;

/** Plans of several partitions carried out against fake copies and instances: one request per instance, failover per partition. */
class PartitionFanOutTest {

    private static final String STORE = "latest";
    private static final HostInfo A = new HostInfo("10.0.0.1", 8080);
    private static final HostInfo B = new HostInfo("10.0.0.2", 8080);

    private final ExecutorService threads = Executors.newCachedThreadPool();
    private final Map<Integer, List<Target>> plans = new java.util.concurrent.ConcurrentHashMap<>();
    private final Set<Integer> freshHere = new HashSet<>();
    private final Set<Integer> staleHere = new HashSet<>();
    private final Map<Integer, Long> lags = new HashMap<>();
    /** What each instance can read (absent: cannot be reached), and which of it stale. */
    private final Map<HostInfo, Set<Integer>> readable = new HashMap<>();
    private final Map<HostInfo, Set<Integer>> readsStale = new HashMap<>();
    private final List<String> requests = new CopyOnWriteArrayList<>();

    @AfterEach
    void stopThreads() {
        threads.shutdownNow();
    }

    private PartitionFanOut.Result<String> read(Set<Integer> partitions, Duration failoverWait) {
        PartitionFanOut fanOut = new PartitionFanOut(p -> plans.getOrDefault(p, List.of()), (store, p) -> {
            Long lag = lags.get(p);
            return lag == null ? OptionalLong.empty() : OptionalLong.of(lag);
        }, STORE, failoverWait, threads);
        return fanOut.read(partitions, (p, stale) -> freshHere.contains(p) || stale && staleHere.contains(p)
                ? Optional.of("here " + p) : Optional.empty(), (host, asked) -> {
                    requests.add(host.host() + " " + asked);
                    Set<Integer> can = readable.get(host);
                    if (can == null) {
                        return Optional.empty();
                    }
                    Map<Integer, String> answers = new TreeMap<>();
                    asked.stream().filter(can::contains).forEach(p -> answers.put(p, host.host() + " " + p));
                    return Optional.of(new PartitionFanOut.Batch<>(answers, readsStale.getOrDefault(host, Set.of())));
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

        PartitionFanOut.Result<String> result = read(new TreeSet<>(List.of(0, 1, 2, 3)), Duration.ZERO);

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

        PartitionFanOut.Result<String> result = read(new TreeSet<>(List.of(1, 2, 3)), Duration.ZERO);

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

        PartitionFanOut.Result<String> result = read(new TreeSet<>(List.of(1, 2)), Duration.ZERO);

        assertThat(result.answers()).containsExactly(Map.entry(1, "10.0.0.2 1"), Map.entry(2, "here 2"));
        assertThat(result.stale()).containsExactly(2);
    }

    @Test
    void partitionsWithoutAnAnswerArePlannedAgainUntilTheFailoverWaitEnds() {
        List<Target> later = new ArrayList<>(List.of(new Target.Remote(B, false)));
        plans.put(1, List.of(new Target.Remote(A, false)));
        readable.put(B, Set.of(1));
        Thread mover = new Thread(() -> {
            try {
                Thread.sleep(120);
            } catch (InterruptedException e) {
                return;
            }
            plans.put(1, later);     // the partition moved to B meanwhile
        });
        mover.start();

        PartitionFanOut.Result<String> result = read(Set.of(1), Duration.ofSeconds(2));

        assertThat(result.answers()).containsExactly(Map.entry(1, "10.0.0.2 1"));
        assertThat(requests).contains("10.0.0.1 [1]", "10.0.0.2 [1]");
    }
}
