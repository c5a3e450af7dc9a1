package dev.tspipe.query.routing;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * How the partitions of one store are planned ({@link SeriesRouting#planPartition}) and failed over, for a
 * {@link ScatterGather} read: the plan of each partition, the lag of a local copy, how long a partition that no copy
 * answers is tried again; and how the local targets at the head of a plan are tried, as {@link RoutedRead} tries them
 * for one read (the active task, its restoring copy within the lag bound, a standby).
 */
public record PartitionPlans(String store, Planner planner, RoutedRead.LocalLags lags, Duration failoverWait) {

    /** The plan of one partition: {@link SeriesRouting#planPartition}. */
    @FunctionalInterface
    public interface Planner {
        /** The targets that can answer a read of {@code store}'s partition, best first; local ones only when {@code forwarded}. */
        List<Target> plan(String store, int partition, boolean forwarded);
    }

    /** What this instance's copies of one partition gave: the answer (from a copy {@code lag} records behind), and what was tried. */
    record LocalOutcome<T>(Optional<T> value, OptionalLong lag, List<String> attempts) {
    }

    /** The targets that can answer a read of the partition, best first. */
    List<Target> plan(int partition, boolean forwarded) {
        return planner.plan(store, partition, forwarded);
    }

    /**
     * Tries the local targets at the head of the plan, in order, until one answers; leaves the plan at its next remote
     * target (or spent). Runs in a thread of the {@link ScatterGather}: the plan is this task's alone until it ends.
     */
    <T> LocalOutcome<T> readHere(int p, Deque<Target> plan, RoutedRead.LocalRead<T> local) {
        List<String> attempts = new ArrayList<>();
        boolean staleTried = false;
        while (!plan.isEmpty() && !(plan.peek() instanceof Target.Remote)) {
            Target target = plan.poll();
            if (target instanceof Target.LocalActive) {
                Optional<T> fresh = local.read(p, false);
                if (fresh.isPresent()) {
                    return new LocalOutcome<>(fresh, OptionalLong.empty(), attempts);
                }
                attempts.add("the active task of partition " + p + " here is not queryable");
                OptionalLong lag = lags.acceptableLag(store, p);
                if (lag.isPresent()) {
                    staleTried = true;
                    Optional<T> restoring = local.read(p, true);
                    if (restoring.isPresent()) {
                        return new LocalOutcome<>(restoring, lag, attempts);
                    }
                    attempts.add("its restoring copy cannot answer either");
                }
            } else if (target instanceof Target.LocalStandby standbyHere && !staleTried) {
                staleTried = true;
                Optional<T> standby = local.read(p, true);
                if (standby.isPresent()) {
                    return new LocalOutcome<>(standby, OptionalLong.of(standbyHere.lag()), attempts);
                }
                attempts.add("the standby of partition " + p + " here cannot answer");
            }
        }
        return new LocalOutcome<>(Optional.empty(), OptionalLong.empty(), attempts);
    }
}
