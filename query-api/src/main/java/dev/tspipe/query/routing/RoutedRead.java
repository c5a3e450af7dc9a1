package dev.tspipe.query.routing;

import org.apache.kafka.streams.state.HostInfo;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;

/**
 * Carries out a {@link SeriesRouting} plan for one read: tries its targets in order and returns the
 * first answer as a {@link RoutedAnswer}, so that HTTP handlers only parse and answer.
 *
 * <p>A target that means "not here, not now" is passed over for the next one:
 * <ul>
 *   <li>a local copy that is not queryable (the local read returns empty);</li>
 *   <li>another instance that cannot be reached, or that answers 503 (it is restoring or rebalancing:
 *       the standby that the plan holds next may answer);</li>
 * </ul>
 * any other answer of another instance, 2xx or 4xx (a 400 for a bad parameter, a 404 for an unknown
 * series), is the answer and is handed back as it is.
 *
 * <p>When the active task here is not queryable because it is restoring (after a failover it restores
 * what its standby did not yet have), the same partition is read from its stale store, as KIP-535 allows,
 * if its changelog lag is within the bound {@link LocalLags} applies. The answer is then marked stale
 * with that lag, as a standby's is.
 */
public final class RoutedRead {

    /** A read of this instance's copy of one partition. */
    @FunctionalInterface
    public interface LocalRead<T> {
        /**
         * The answer from the partition's active store, or with {@code stale} from any local copy (standby,
         * restoring active); empty when that copy is not queryable here now.
         */
        Optional<T> read(int partition, boolean stale);
    }

    /** A GET sent to another instance: {@link Forwarder#get}. */
    @FunctionalInterface
    public interface RemoteRead {
        /** The instance's answer; empty when it cannot be reached in time. */
        Optional<Forwarder.Answer> get(HostInfo host, String pathAndQuery);
    }

    /** The lag of this instance's copy of a partition: {@link SeriesRouting#acceptableLocalLag}. */
    @FunctionalInterface
    public interface LocalLags {
        /** The changelog lag in records of the local copy of {@code store}'s partition; empty if none or too far behind. */
        OptionalLong acceptableLag(String store, int partition);
    }

    /** The status by which another instance says "not here, not now": try the next target. */
    static final int UNAVAILABLE = 503;

    private final RemoteRead remote;
    private final LocalLags lags;

    public RoutedRead(RemoteRead remote, LocalLags lags) {
        this.remote = remote;
        this.lags = lags;
    }

    /**
     * Answers a read of {@code store} by the first target of {@code plan} that can.
     *
     * @param local        reads this instance's stores; what it throws (a 404 of the read) propagates
     * @param pathAndQuery what another instance is asked for
     */
    public <T> RoutedAnswer<T> answer(String store, List<Target> plan, LocalRead<T> local, String pathAndQuery) {
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
                    attempts.add("its restoring copy is not queryable either");
                }
            } else if (target instanceof Target.LocalStandby standby) {
                if (staleTried.add(standby.partition())) {
                    Optional<T> stale = local.read(standby.partition(), true);
                    if (stale.isPresent()) {
                        return new RoutedAnswer.Local<>(stale.get(), standby.partition(), OptionalLong.of(standby.lag()));
                    }
                    attempts.add("the standby of partition " + standby.partition() + " here is not queryable");
                }
            } else if (target instanceof Target.Remote other) {
                String who = other.host().host() + ":" + other.host().port() + (other.standby() ? " (standby)" : " (active)");
                Optional<Forwarder.Answer> answer = remote.get(other.host(), pathAndQuery);
                if (answer.isEmpty()) {
                    attempts.add(who + " cannot be reached");
                } else if (answer.get().status() == UNAVAILABLE) {
                    attempts.add(who + " answered 503");
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
