package dev.tspipe.query.prometheus;

import dev.tspipe.query.promql.PartitionSeries;
import dev.tspipe.query.series.SeriesReader;
import dev.tspipe.query.routing.Forwarder;
import dev.tspipe.query.routing.PartitionPlans;
import dev.tspipe.query.routing.ScatterGather;
import org.apache.kafka.streams.state.HostInfo;

import java.util.Optional;
import java.util.OptionalInt;
import java.util.function.Function;

/**
 * What the Prometheus API reads whole partitions with: the query server's plans (active task, standbys, other
 * instances), this instance's copies and the forwarder. The {@link ScatterGather} carries the plans out.
 */
public interface PartitionReads {

    /** The input topic's partition count; empty before Kafka Streams knows it. */
    OptionalInt partitionCount();

    /** The plans of the partitions' copies. */
    PartitionPlans plans();

    /**
     * This instance's copy of {@code partition} read by {@code read}: its active task, or with {@code stale} any copy;
     * empty when that copy is not queryable here now.
     */
    Optional<PartitionSeries> local(Function<SeriesReader.Stores, PartitionSeries> read, int partition, boolean stale);

    /** Sends {@code request} to another instance; empty when it cannot be reached in time. */
    Optional<Forwarder.Answer> forward(HostInfo host, Forwarder.Request request);
}
