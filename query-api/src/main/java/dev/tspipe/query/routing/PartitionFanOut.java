package dev.tspipe.query.routing;

import org.apache.kafka.streams.state.HostInfo;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.function.IntFunction;

/**
 * Carries out the {@link SeriesRouting} plans of several partitions at once, for a read that needs many of them (the
 * latest reading of every device a filter picks): the partitions are grouped by the target their plans name first, and
 * each other instance gets <em>one</em> request for all its partitions, all instances at once. A partition whose
 * target could not answer (an instance unreachable or answering 5xx, a copy here not queryable, an instance that could
 * not read that partition) moves on to the next target of its own plan, as {@link RoutedRead} does for one; the
 * partitions that still have no answer are planned again every {@value RoutedRead#PAUSE_MS} ms for at most the failover
 * wait, and then reported unanswered with what each target did.
 */
public final class PartitionFanOut {

    /** What another instance answered for a group of partitions: those it read, and which of them from a copy behind. */
    public record Batch<T>(Map<Integer, T> answers, Set<Integer> stale) {
    }

    /** One request to another instance for a group of partitions. */
    @FunctionalInterface
    public interface RemoteRead<T> {
        /** Its answer; empty when it cannot be reached in time or answered 5xx (then every partition tries its next target). */
        Optional<Batch<T>> read(HostInfo host, Set<Integer> partitions);
    }

    /** The partitions answered (and which of them stale), and for each one not answered what its targets did. */
    public record Result<T>(Map<Integer, T> answers, Set<Integer> stale, Map<Integer, List<String>> unanswered) {
    }

    private final IntFunction<List<Target>> planner;
    private final RoutedRead.LocalLags lags;
    private final String store;
    private final Duration failoverWait;
    private final ExecutorService remotes;

    /**
     * @param planner      the plan of a partition ({@link SeriesRouting#planPartition}); asked again for every pass
     * @param store        the store read, for the lag of a local copy
     * @param remotes      where the requests to other instances wait for their answers
     */
    public PartitionFanOut(IntFunction<List<Target>> planner, RoutedRead.LocalLags lags, String store, Duration failoverWait,
                           ExecutorService remotes) {
        this.planner = planner;
        this.lags = lags;
        this.store = store;
        this.failoverWait = failoverWait;
        this.remotes = remotes;
    }

    public <T> Result<T> read(Set<Integer> partitions, RoutedRead.LocalRead<T> local, RemoteRead<T> remote) {
        Map<Integer, T> answers = new TreeMap<>();
        Set<Integer> stale = new TreeSet<>();
        Map<Integer, List<String>> attempts = new TreeMap<>();
        Set<Integer> open = new TreeSet<>(partitions);
        long deadline = System.nanoTime() + failoverWait.toNanos();
        while (true) {
            pass(open, local, remote, answers, stale, attempts);
            if (open.isEmpty() || System.nanoTime() + RoutedRead.PAUSE_MS * 1_000_000 > deadline) {
                break;
            }
            try {
                Thread.sleep(RoutedRead.PAUSE_MS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        Map<Integer, List<String>> unanswered = new TreeMap<>();
        open.forEach(p -> unanswered.put(p, attempts.getOrDefault(p, List.of("the partition's owner is not known yet"))));
        return new Result<>(answers, stale, unanswered);
    }

    /** One pass over the open partitions' plans: local targets at once, then one request per other instance, repeated. */
    private <T> void pass(Set<Integer> open, RoutedRead.LocalRead<T> local, RemoteRead<T> remote, Map<Integer, T> answers,
                          Set<Integer> stale, Map<Integer, List<String>> attempts) {
        Map<Integer, Deque<Target>> plans = new TreeMap<>();
        for (int p : open) {
            plans.put(p, new ArrayDeque<>(planner.apply(p)));
            attempts.put(p, new ArrayList<>());
        }
        while (!plans.isEmpty()) {
            Map<HostInfo, Set<Integer>> groups = new LinkedHashMap<>();
            for (Integer p : new ArrayList<>(plans.keySet())) {
                Deque<Target> plan = plans.get(p);
                if (readHere(p, plan, local, answers, stale, attempts.get(p))) {
                    open.remove(p);
                    plans.remove(p);
                } else if (plan.isEmpty()) {
                    plans.remove(p);
                } else {
                    Target.Remote next = (Target.Remote) plan.poll();
                    groups.computeIfAbsent(next.host(), host -> new TreeSet<>()).add(p);
                }
            }
            Map<HostInfo, CompletableFuture<Optional<Batch<T>>>> asked = new LinkedHashMap<>();
            groups.forEach((host, group) -> asked.put(host, CompletableFuture.supplyAsync(() -> remote.read(host, group), remotes)));
            asked.forEach((host, answer) -> {
                Optional<Batch<T>> batch = answer.join();
                String who = host.host() + ":" + host.port();
                for (int p : groups.get(host)) {
                    if (batch.isPresent() && batch.get().answers().containsKey(p)) {
                        answers.put(p, batch.get().answers().get(p));
                        if (batch.get().stale().contains(p)) {
                            stale.add(p);
                        }
                        open.remove(p);
                        plans.remove(p);
                    } else {
                        attempts.get(p).add(batch.isPresent() ? who + " could not read partition " + p
                                : who + " cannot be reached or failed");
                    }
                }
            });
        }
    }

    /** Tries the local targets at the head of the plan, in order; true once one answered. Leaves the plan at its next remote target. */
    private <T> boolean readHere(int p, Deque<Target> plan, RoutedRead.LocalRead<T> local, Map<Integer, T> answers, Set<Integer> stale,
                                 List<String> attempts) {
        boolean staleTried = false;
        while (!plan.isEmpty() && !(plan.peek() instanceof Target.Remote)) {
            Target target = plan.poll();
            if (target instanceof Target.LocalActive) {
                Optional<T> fresh = local.read(p, false);
                if (fresh.isPresent()) {
                    answers.put(p, fresh.get());
                    return true;
                }
                attempts.add("the active task of partition " + p + " here is not queryable");
                OptionalLong lag = lags.acceptableLag(store, p);
                if (lag.isPresent()) {
                    staleTried = true;
                    Optional<T> restoring = local.read(p, true);
                    if (restoring.isPresent()) {
                        answers.put(p, restoring.get());
                        stale.add(p);
                        return true;
                    }
                    attempts.add("its restoring copy cannot answer either");
                }
            } else if (target instanceof Target.LocalStandby && !staleTried) {
                staleTried = true;
                Optional<T> standby = local.read(p, true);
                if (standby.isPresent()) {
                    answers.put(p, standby.get());
                    stale.add(p);
                    return true;
                }
                attempts.add("the standby of partition " + p + " here cannot answer");
            }
        }
        return false;
    }
}
