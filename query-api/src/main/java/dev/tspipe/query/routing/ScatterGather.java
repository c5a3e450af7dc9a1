package dev.tspipe.query.routing;

import org.apache.kafka.streams.state.HostInfo;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

/**
 * The one scatter-gather of the query side (VictoriaMetrics' {@code netstorage.RunParallel} in spirit): the reads that
 * need many partitions (a PromQL selector without {@code device=}, the latest reading of every device a filter picks) and
 * the questions every other instance answers (partition statistics, the key-space heatmap) all run here.
 *
 * <p>{@link #read} carries out the {@link SeriesRouting} plans of several partitions at once: the partitions whose plan
 * starts here are read from this instance's copies, the others are grouped by the instance their plan names next, and
 * each instance gets <em>one</em> request for all its partitions. A partition whose target could not answer (an instance
 * unreachable or answering 5xx, a copy here not queryable, an instance that could not read that partition) moves on to
 * the next target of its own plan, as {@link RoutedRead} does for one; the partitions that still have no answer are
 * planned again every {@value RoutedRead#PAUSE_MS} ms for at most the failover wait, and then reported unanswered with
 * what each target did.
 *
 * <p>The bound is per query: one call ({@link #read}, {@link #readHere}, {@link #askEach}) has at most
 * {@code perQuery} reads in flight at once, local reads and requests to other instances together, whatever the other
 * queries do; a call that has that many waits for one to end before it starts the next. The threads are this object's
 * (they end after a minute idle) and {@link #close} stops them; no thread is shared with the HTTP server, so a read that
 * waits for another instance never holds up the requests this instance answers.
 */
public final class ScatterGather implements AutoCloseable {

    /** The reads of one query in flight at once unless the server is configured otherwise. */
    public static final int DEFAULT_PER_QUERY = 8;

    private static final Logger LOG = LoggerFactory.getLogger(ScatterGather.class);

    /**
     * What another instance answered for a group of partitions: those it read, which of them from a copy behind, and how
     * many records behind where it said.
     */
    public record Batch<T>(Map<Integer, T> answers, Set<Integer> stale, Map<Integer, Long> lags) {
        /** An answer that does not say how far behind its stale partitions are. */
        public Batch(Map<Integer, T> answers, Set<Integer> stale) {
            this(answers, stale, Map.of());
        }
    }

    /** One request to another instance for a group of partitions. */
    @FunctionalInterface
    public interface RemoteRead<T> {
        /**
         * Its answer; empty when it cannot be reached in time or answered 5xx (then every partition tries its next
         * target). What it throws (a 4xx of the other instance that is the query's answer) ends the read.
         */
        Optional<Batch<T>> read(HostInfo host, Set<Integer> partitions);
    }

    /**
     * The partitions answered, which of them stale (and how many records behind, where known), and for each one not
     * answered what its targets did.
     */
    public record Result<T>(Map<Integer, T> answers, Set<Integer> stale, Map<Integer, Long> lags,
                            Map<Integer, List<String>> unanswered) {
    }

    /** The time that the failover wait and {@link #askEach}'s limit are measured in, and the pause between passes. */
    interface Timing {
        Timing SYSTEM = new Timing() {
            @Override
            public long nanoTime() {
                return System.nanoTime();
            }

            @Override
            public void pause(long millis) throws InterruptedException {
                Thread.sleep(millis);
            }
        };

        long nanoTime();

        void pause(long millis) throws InterruptedException;
    }

    private final int perQuery;
    private final Timing timing;
    private final ExecutorService threads;

    /** @param perQuery the most reads of one call in flight at once */
    public ScatterGather(int perQuery) {
        this(perQuery, Timing.SYSTEM);
    }

    ScatterGather(int perQuery, Timing timing) {
        if (perQuery < 1) {
            throw new IllegalArgumentException("the reads of one query in flight at once must be at least 1, was " + perQuery);
        }
        this.perQuery = perQuery;
        this.timing = timing;
        AtomicInteger count = new AtomicInteger();
        this.threads = Executors.newCachedThreadPool(task -> {
            Thread thread = new Thread(task, "scatter-gather-" + count.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        });
    }

    /**
     * Reads {@code partitions} here or at their owners, failing over for at most the failover wait.
     *
     * @param local  reads this instance's copy of a partition; what it throws ends the read
     * @param remote asks another instance for several partitions at once
     */
    public <T> Result<T> read(PartitionPlans plans, Set<Integer> partitions, RoutedRead.LocalRead<T> local, RemoteRead<T> remote) {
        return read(plans, false, plans.failoverWait(), partitions, local, remote);
    }

    /**
     * Reads {@code partitions} from this instance's copies only, without waiting (a request another instance forwarded:
     * that instance tries the next copy of what is not answered, and waits itself).
     */
    public <T> Result<T> readHere(PartitionPlans plans, Set<Integer> partitions, RoutedRead.LocalRead<T> local) {
        return read(plans, true, Duration.ZERO, partitions, local, (host, asked) -> Optional.empty());
    }

    private <T> Result<T> read(PartitionPlans plans, boolean forwarded, Duration failoverWait, Set<Integer> partitions,
                               RoutedRead.LocalRead<T> local, RemoteRead<T> remote) {
        Flight flight = new Flight();
        Map<Integer, T> answers = new TreeMap<>();
        Set<Integer> stale = new TreeSet<>();
        Map<Integer, Long> lags = new TreeMap<>();
        Map<Integer, List<String>> attempts = new TreeMap<>();
        Set<Integer> open = new TreeSet<>(partitions);
        long deadline = timing.nanoTime() + failoverWait.toNanos();
        while (true) {
            pass(flight, plans, forwarded, open, local, remote, answers, stale, lags, attempts);
            if (open.isEmpty() || timing.nanoTime() + TimeUnit.MILLISECONDS.toNanos(RoutedRead.PAUSE_MS) > deadline) {
                break;
            }
            try {
                timing.pause(RoutedRead.PAUSE_MS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        Map<Integer, List<String>> unanswered = new TreeMap<>();
        open.forEach(p -> unanswered.put(p, attempts.getOrDefault(p, List.of("the partition's owner is not known yet"))));
        return new Result<>(answers, stale, lags, unanswered);
    }

    /**
     * One pass over the open partitions' plans: one request per other instance for the partitions whose plan names it
     * next, and the local targets read meanwhile; then again for the partitions still open, until their plans are spent.
     */
    private <T> void pass(Flight flight, PartitionPlans plans, boolean forwarded, Set<Integer> open, RoutedRead.LocalRead<T> local,
                          RemoteRead<T> remote, Map<Integer, T> answers, Set<Integer> stale, Map<Integer, Long> lags,
                          Map<Integer, List<String>> attempts) {
        Map<Integer, Deque<Target>> pending = new TreeMap<>();
        for (int p : open) {
            pending.put(p, new ArrayDeque<>(plans.plan(p, forwarded)));
            attempts.put(p, new ArrayList<>());
        }
        while (!pending.isEmpty()) {
            Map<HostInfo, Set<Integer>> groups = new LinkedHashMap<>();
            List<Integer> here = new ArrayList<>();
            for (Integer p : new ArrayList<>(pending.keySet())) {
                Deque<Target> plan = pending.get(p);
                if (plan.isEmpty()) {
                    pending.remove(p);
                } else if (plan.peek() instanceof Target.Remote next) {
                    plan.poll();
                    groups.computeIfAbsent(next.host(), host -> new TreeSet<>()).add(p);
                } else {
                    here.add(p);
                }
            }
            Map<HostInfo, Future<Optional<Batch<T>>>> asked = new LinkedHashMap<>();
            groups.forEach((host, group) -> asked.put(host, flight.start(() -> remote.read(host, group))));
            Map<Integer, Future<PartitionPlans.LocalOutcome<T>>> read = new TreeMap<>();
            for (int p : here) {
                Deque<Target> plan = pending.get(p);
                read.put(p, flight.start(() -> plans.readHere(p, plan, local)));
            }
            asked.forEach((host, answer) -> {
                Optional<Batch<T>> batch = join(answer).flatMap(b -> b);
                String who = host.host() + ":" + host.port();
                for (int p : groups.get(host)) {
                    if (batch.isPresent() && batch.get().answers().containsKey(p)) {
                        answers.put(p, batch.get().answers().get(p));
                        if (batch.get().stale().contains(p)) {
                            stale.add(p);
                            Long lag = batch.get().lags().get(p);
                            if (lag != null) {
                                lags.put(p, lag);
                            }
                        }
                        open.remove(p);
                        pending.remove(p);
                    } else {
                        attempts.get(p).add(batch.isPresent() ? who + " could not read partition " + p
                                : who + " cannot be reached or failed");
                    }
                }
            });
            read.forEach((p, outcome) -> {
                Optional<PartitionPlans.LocalOutcome<T>> copy = join(outcome);
                if (copy.isEmpty()) {
                    attempts.get(p).add("the read of partition " + p + " here was stopped");
                    pending.remove(p);
                    return;
                }
                attempts.get(p).addAll(copy.get().attempts());
                if (copy.get().value().isPresent()) {
                    answers.put(p, copy.get().value().get());
                    copy.get().lag().ifPresent(lag -> {
                        stale.add(p);
                        lags.put(p, lag);
                    });
                    open.remove(p);
                    pending.remove(p);
                }
            });
        }
    }

    /**
     * Asks every host once, {@code perQuery} at a time, and waits at most {@code overall} for all of them; a host that
     * has not answered by then (or whose {@code ask} is empty: it cannot be reached) maps to empty, and its request is
     * stopped. The map has every host, in the order given.
     */
    public <T> Map<HostInfo, Optional<T>> askEach(Collection<HostInfo> hosts, Function<HostInfo, Optional<T>> ask,
                                                 Duration overall) {
        Flight flight = new Flight();
        long deadline = timing.nanoTime() + overall.toNanos();
        Map<HostInfo, Optional<T>> answers = new LinkedHashMap<>();
        Map<HostInfo, Future<Optional<T>>> asked = new LinkedHashMap<>();
        for (HostInfo host : hosts) {
            answers.put(host, Optional.empty());
            Future<Optional<T>> answer = flight.startBefore(deadline, () -> ask.apply(host));
            if (answer != null) {
                asked.put(host, answer);
            }
        }
        asked.forEach((host, answer) -> {
            try {
                answers.put(host, answer.get(Math.max(0, deadline - timing.nanoTime()), TimeUnit.NANOSECONDS));
            } catch (TimeoutException e) {
                LOG.info("Instance {} did not answer within {} ms", host, overall.toMillis());
                answer.cancel(true);
            } catch (ExecutionException e) {
                throw rethrown(e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                answer.cancel(true);
            }
        });
        if (asked.size() < answers.size()) {
            LOG.info("{} of {} instances were not asked within {} ms: the ones asked before them had not answered",
                    answers.size() - asked.size(), answers.size(), overall.toMillis());
        }
        return answers;
    }

    /** The reads of one call: at most {@link #perQuery} of them in flight at once. */
    private final class Flight {
        private final Semaphore permits = new Semaphore(perQuery);

        /** Starts {@code task} once fewer than {@link #perQuery} of this call's reads are in flight. */
        <V> Future<V> start(Callable<V> task) {
            try {
                permits.acquire();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting to start a read of a partition", e);
            }
            return submit(task);
        }

        /** As {@link #start}, or null when no read ended before {@code deadline} (in {@link Timing#nanoTime}). */
        <V> Future<V> startBefore(long deadline, Callable<V> task) {
            try {
                if (!permits.tryAcquire(Math.max(0, deadline - timing.nanoTime()), TimeUnit.NANOSECONDS)) {
                    return null;
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return null;
            }
            return submit(task);
        }

        private <V> Future<V> submit(Callable<V> task) {
            try {
                return threads.submit(() -> {
                    try {
                        return task.call();
                    } finally {
                        permits.release();
                    }
                });
            } catch (RejectedExecutionException closed) {
                permits.release();
                throw new IllegalStateException("the scatter-gather is closed: the query server is shutting down", closed);
            }
        }
    }

    /** The task's value; empty when it was stopped (cancelled, or this thread interrupted). What it threw is rethrown. */
    private static <V> Optional<V> join(Future<V> task) {
        try {
            return Optional.of(task.get());
        } catch (ExecutionException e) {
            throw rethrown(e);
        } catch (CancellationException e) {
            return Optional.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            task.cancel(true);
            return Optional.empty();
        }
    }

    private static RuntimeException rethrown(ExecutionException e) {
        if (e.getCause() instanceof RuntimeException cause) {
            return cause;
        }
        if (e.getCause() instanceof Error error) {
            throw error;
        }
        return new IllegalStateException("a read failed", e.getCause());
    }

    /** Stops the threads: the reads in flight are interrupted, and a call after this fails with IllegalStateException. */
    @Override
    public void close() {
        threads.shutdownNow();
        try {
            if (!threads.awaitTermination(5, TimeUnit.SECONDS)) {
                LOG.warn("Some reads of other instances were still running 5 s after the scatter-gather was closed");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
