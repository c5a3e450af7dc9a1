package dev.tspipe.query.routing;

import org.apache.kafka.streams.state.HostInfo;

/** Where a read of one partition can be answered; a {@link SeriesRouting} plan lists them in order of preference. */
public sealed interface Target {

    /** This instance, from the partition's active task. */
    record LocalActive(int partition) implements Target {
    }

    /** This instance, from a standby replica (or a restoring active) that is {@code lag} records behind. */
    record LocalStandby(int partition, long lag) implements Target {
    }

    /** Another instance: the active host, or a standby host when {@code standby}. */
    record Remote(HostInfo host, boolean standby) implements Target {
    }
}
