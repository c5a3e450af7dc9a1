package dev.tspipe.query.prometheus;

import dev.tspipe.query.promql.PartitionSeries;
import dev.tspipe.query.routing.Forwarder;
import dev.tspipe.query.routing.PartitionPlans;
import dev.tspipe.query.routing.ReadCounters;
import dev.tspipe.query.routing.RoutedRead;
import dev.tspipe.query.routing.SeriesRouting;
import dev.tspipe.query.series.LocalStores;
import dev.tspipe.query.series.SeriesReader;
import org.apache.kafka.streams.state.HostInfo;

import java.util.Optional;
import java.util.OptionalInt;
import java.util.function.Function;

/** Whole partitions for the Prometheus API, read as a series is: active task, standbys, other instances. */
public final class RoutedPartitions implements PartitionReads {

    private final SeriesRouting routing;
    private final PartitionPlans plans;
    private final LocalStores stores;
    private final RoutedRead.RemoteRead remote;
    private final ReadCounters counters;

    /**
     * @param plans  the plans of the latest-readings store's partitions
     * @param remote sends a request to another instance ({@link Forwarder#get})
     */
    public RoutedPartitions(SeriesRouting routing, PartitionPlans plans, LocalStores stores, RoutedRead.RemoteRead remote,
                            ReadCounters counters) {
        this.routing = routing;
        this.plans = plans;
        this.stores = stores;
        this.remote = remote;
        this.counters = counters;
    }

    @Override
    public OptionalInt partitionCount() {
        return routing.partitionCount();
    }

    @Override
    public PartitionPlans plans() {
        return plans;
    }

    @Override
    public Optional<PartitionSeries> local(Function<SeriesReader.Stores, PartitionSeries> read, int partition, boolean stale) {
        return stores.read(read, partition, stale);
    }

    @Override
    public Optional<Forwarder.Answer> forward(HostInfo host, Forwarder.Request request) {
        counters.forwarded().run();
        return remote.get(host, request);
    }
}
