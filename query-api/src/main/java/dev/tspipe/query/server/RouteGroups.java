package dev.tspipe.query.server;

import dev.tspipe.model.keys.KeyLayout;
import dev.tspipe.processor.store.StoreNames;
import dev.tspipe.query.auth.TenantPolicy;
import dev.tspipe.query.console.Console;
import dev.tspipe.query.devices.DeviceDirectory;
import dev.tspipe.query.devices.DeviceRoutes;
import dev.tspipe.query.devices.DevicesApi;
import dev.tspipe.query.health.HealthRoutes;
import dev.tspipe.query.http.RouteGroup;
import dev.tspipe.query.prometheus.PrometheusApi;
import dev.tspipe.query.prometheus.PrometheusRoutes;
import dev.tspipe.query.prometheus.RoutedPartitions;
import dev.tspipe.query.routing.Forwarder;
import dev.tspipe.query.routing.PartitionPlans;
import dev.tspipe.query.routing.ReadCounters;
import dev.tspipe.query.routing.RoutedRead;
import dev.tspipe.query.routing.ScatterGather;
import dev.tspipe.query.routing.SeriesRouting;
import dev.tspipe.query.series.LocalStores;
import dev.tspipe.query.series.SeriesReader;
import dev.tspipe.query.series.SeriesRoutes;
import dev.tspipe.query.stats.StatsRoutes;
import dev.tspipe.query.write.HttpWrites;
import dev.tspipe.query.write.WriteRoutes;
import io.micrometer.core.instrument.MeterRegistry;
import org.apache.kafka.streams.KafkaStreams;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** Every route group of a node, made from the parts the server owns. */
final class RouteGroups {

    private RouteGroups() {
    }

    /**
     * @param writes            null when the node takes no writes
     * @param gather            reads the partitions a query needs and asks every other instance, bounded per query
     * @param statisticsTimeout how long the statistics wait for the other instances
     */
    static List<RouteGroup> of(KafkaStreams streams, KeyLayout layout, MeterRegistry registry, QueryMetrics metrics,
                               SeriesRouting routing, Forwarder forwarder, ScatterGather gather, Duration statisticsTimeout,
                               Duration failoverWait, HttpWrites writes, long volumeGuidelineBytes) {
        TenantPolicy tenants = new TenantPolicy(layout.multiTenant());
        SeriesReader reader = new SeriesReader(layout);
        LocalStores stores = new LocalStores(streams);
        ReadCounters counters = new ReadCounters(metrics::forwarded, metrics::stale);
        RoutedRead router = new RoutedRead(forwarder::get, routing::acceptableLocalLag, failoverWait);
        // A forwarded read does not wait: the instance that sent it tries its next target, and waits itself.
        RoutedRead forwardedRouter = new RoutedRead(forwarder::get, routing::acceptableLocalLag, Duration.ZERO);
        DeviceDirectory directory = new DeviceDirectory(streams);
        PartitionPlans latest = new PartitionPlans(StoreNames.LATEST, routing::planPartition, routing::acceptableLocalLag,
                failoverWait);
        PrometheusApi prometheus = new PrometheusApi(layout, new RoutedPartitions(routing, latest, stores, forwarder::get,
                counters), reader, tenants, Clock.systemUTC(), directory::labels, gather);
        DevicesApi devices = devices(directory, layout, reader, tenants, stores, routing, forwarder, counters, gather, latest);

        List<RouteGroup> groups = new ArrayList<>();
        groups.add(new SeriesRoutes(layout, tenants, reader, routing, router, forwardedRouter, stores, counters,
                devices::metadata).routes());
        groups.add(new StatsRoutes(streams, layout, routing, forwarder, gather, statisticsTimeout, volumeGuidelineBytes)
                .routes());
        groups.add(new HealthRoutes(streams, registry).routes());
        groups.add(Console.group());
        groups.addAll(DeviceRoutes.of(devices));
        groups.addAll(PrometheusRoutes.of(prometheus));
        if (writes != null) {
            groups.addAll(new WriteRoutes(writes, tenants).routes());
        }
        return groups;
    }

    /** The device routes, reading partitions as the other reads do (docs/query-api.md, "Devices"). */
    private static DevicesApi devices(DeviceDirectory directory, KeyLayout layout, SeriesReader reader, TenantPolicy tenants,
                                      LocalStores stores, SeriesRouting routing, Forwarder forwarder, ReadCounters counters,
                                      ScatterGather gather, PartitionPlans latest) {
        return new DevicesApi(directory, layout, reader, tenants, stores::read, gather, latest,
                routing::partitionCount, forwarder::get, counters);
    }
}
