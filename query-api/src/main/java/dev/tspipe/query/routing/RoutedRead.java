package dev.tspipe.query.routing;

import org.apache.kafka.streams.state.HostInfo;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * Carries out a {@link SeriesRouting} plan for one read: tries its targets in order and returns the
 * first answer as a {@link RoutedAnswer}, so that HTTP handlers only parse and answer.
 *
 * <p>A target that means "not here, not now" is passed over for the next one:
 * <ul>
 *   <li>a local copy that is not queryable, or a stale one without the series (the local read returns empty);</li>
 *   <li>another instance that cannot be reached, or that answers 5xx (a 503: it is restoring or rebalancing,
 *       and the standby that the plan holds next may answer; any other 5xx: it failed, and another copy may not);</li>
 * </ul>
 * any other answer of another instance, 2xx or 4xx (a 400 for a bad parameter, a 404 for an unknown
 * series), is the answer and is handed back as it is.
 *
 * <p>When the active task here is not queryable because it is restoring (after a failover it restores
 * what its standby did not yet have), the same partition is read from its stale store, as KIP-535 allows,
 * if its changelog lag is within the bound {@link LocalLags} applies. The answer is then marked stale
 * with that lag, as a standby's is.
 *
 * <p>While partitions move, there is a moment when no copy of a partition is queryable anywhere: a
 * standby that becomes the active task is closed as a standby and opened again as an active task
 * (Kafka Streams then says that the partition's store does not exist here, for stale reads too; how
 * long that lasts is in {@code docs/query-api.md}). So when no target answered, the plan is made again
 * and tried again every {@value #PAUSE_MS} ms, for at most the failover wait; only then is the answer
 * {@link RoutedAnswer.NoneAnswered}. An empty plan (the partition of the key is not known: Kafka Streams
 * has not started) is not waited for.
 */
public final class RoutedRead {

    /** A read of this instance's copy of one partition. */
    @FunctionalInterface
    public interface LocalRead<T> {
        /**
         * The answer from the partition's active store, or with {@code stale} from any local copy (standby,
         * restoring active); empty when that copy is not queryable here now, or is read stale and has not got
         * the series (a copy behind cannot tell that a series does not exist).
         */
        Optional<T> read(int partition, boolean stale);
    }

    /** A GET sent to another instance: {@link Forwarder#get}. */
    @FunctionalInterface
    public interface RemoteRead {
        /** The instance's answer; empty when it cannot be reached in time. */
        Optional<Forwarder.Answer> get(HostInfo host, Forwarder.Request request);
    }

    /** The lag of this instance's copy of a partition: {@link SeriesRouting#acceptableLocalLag}. */
    @FunctionalInterface
    public interface LocalLags {
        /** The changelog lag in records of the local copy of {@code store}'s partition; empty if none or too far behind. */
        OptionalLong acceptableLag(String store, int partition);
    }

    /** The status by which another instance says "not here, not now": try the next target. */
    static final int SERVER_ERROR = 500;

    /** The pause between two passes over a plan while no target answers. */
    static final long PAUSE_MS = 50;

    private final RemoteRead remote;
    private final LocalLags lags;
    private final Duration failoverWait;

    /**
     * @param failoverWait how long a read that no target can answer keeps trying (plan made again every
     *                     {@value #PAUSE_MS} ms) before it is none-answered; zero tries once
     */
    public RoutedRead(RemoteRead remote, LocalLags lags, Duration failoverWait) {
        this.remote = remote;
        this.lags = lags;
        this.failoverWait = failoverWait;
    }

    /**
     * Answers a read of {@code store} by the first target of the plan that can.
     *
     * @param planner      makes the plan ({@link SeriesRouting#plan}); asked again for every pass
     * @param local        reads this instance's stores; what it throws (a 404 of the read) propagates
     * @param request      what another instance is asked for, with the caller's credentials
     */
    public <T> RoutedAnswer<T> answer(String store, Supplier<List<Target>> planner, LocalRead<T> local, Forwarder.Request request) {
        long deadline = System.nanoTime() + failoverWait.toNanos();
        while (true) {
            List<Target> plan = planner.get();
            RoutedAnswer<T> answer = pass(store, plan, local, request);
            if (!(answer instanceof RoutedAnswer.NoneAnswered) || plan.isEmpty()
                    || System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(PAUSE_MS) > deadline) {
                return answer;
            }
            try {
                Thread.sleep(PAUSE_MS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return answer;
            }
        }
    }

    /** One pass over the plan's targets, in order. */
    private <T> RoutedAnswer<T> pass(String store, List<Target> plan, LocalRead<T> local, Forwarder.Request request) {
        List<String> attempts = new ArrayList<>();
        Set<Integer> staleTried = new HashSet<>();
        for (Target target : plan) {
            if (target instanceof Target.LocalActive active) {
                Optional<T> fresh = local.read(active.partition(), false);
                if (fresh.isPresent()) {
                    return new RoutedAnswer.Local<>(fresh.get(), active.partition(), OptionalLong.empty());
                }
                attempts.add("the active task of partition " + active.partition() + " here is not queryable");
                OptionalLong lag = lags.acceptableLag(store, active.partition());
                if (lag.isPresent()) {
                    staleTried.add(active.partition());
                    Optional<T> stale = local.read(active.partition(), true);
                    if (stale.isPresent()) {
                        return new RoutedAnswer.Local<>(stale.get(), active.partition(), lag);
                    }
                    attempts.add("its restoring copy cannot answer either");
                }
            } else if (target instanceof Target.LocalStandby standby) {
                if (staleTried.add(standby.partition())) {
                    Optional<T> stale = local.read(standby.partition(), true);
                    if (stale.isPresent()) {
                        return new RoutedAnswer.Local<>(stale.get(), standby.partition(), OptionalLong.of(standby.lag()));
                    }
                    attempts.add("the standby of partition " + standby.partition() + " here cannot answer");
                }
            } else if (target instanceof Target.Remote other) {
                String who = other.host().host() + ":" + other.host().port() + (other.standby() ? " (standby)" : " (active)");
                Optional<Forwarder.Answer> answer = remote.get(other.host(), request);
                if (answer.isEmpty()) {
                    attempts.add(who + " cannot be reached");
                } else if (answer.get().status() >= SERVER_ERROR) {
                    attempts.add(who + " answered " + answer.get().status());
                } else {
                    return new RoutedAnswer.Forwarded<>(other.host(), answer.get());
                }
            }
        }
        if (plan.isEmpty()) {
            attempts.add("the partition of the key is not known yet");
        }
        return new RoutedAnswer.NoneAnswered<>(List.copyOf(attempts));
    }
}
