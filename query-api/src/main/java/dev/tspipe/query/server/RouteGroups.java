package dev.tspipe.query.server;

import dev.tspipe.processor.keys.KeyLayout;
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
import dev.tspipe.query.routing.PartitionFanOut;
import dev.tspipe.query.routing.ReadCounters;
import dev.tspipe.query.routing.RoutedRead;
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
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/** Every route group of a node, made from the parts the server owns; the executors they need go to {@code owned}. */
final class RouteGroups {

    private RouteGroups() {
    }

    /**
     * @param writes            null when the node takes no writes
     * @param statisticsTimeout how long the statistics wait for the other instances
     */
    static List<RouteGroup> of(KafkaStreams streams, KeyLayout layout, MeterRegistry registry, QueryMetrics metrics,
                               SeriesRouting routing, Forwarder forwarder, Duration statisticsTimeout, Duration failoverWait,
                               HttpWrites writes, long volumeGuidelineBytes, Resources owned) {
        TenantPolicy tenants = new TenantPolicy(layout.multiTenant());
        SeriesReader reader = new SeriesReader(layout);
        LocalStores stores = new LocalStores(streams);
        ReadCounters counters = new ReadCounters(metrics::forwarded, metrics::stale);
        RoutedRead router = new RoutedRead(forwarder::get, routing::acceptableLocalLag, failoverWait);
        // A forwarded read does not wait: the instance that sent it tries its next target, and waits itself.
        RoutedRead forwardedRouter = new RoutedRead(forwarder::get, routing::acceptableLocalLag, Duration.ZERO);
        DeviceDirectory directory = new DeviceDirectory(streams);
        PrometheusApi prometheus = owned.add(new PrometheusApi(layout,
                new RoutedPartitions(routing, router, forwardedRouter, stores, counters), reader, tenants::readable,
                Clock.systemUTC(), directory::labels));
        DevicesApi devices = devices(directory, layout, reader, tenants, stores, routing, forwarder, counters, failoverWait,
                owned);

        List<RouteGroup> groups = new ArrayList<>();
        groups.add(new SeriesRoutes(layout, tenants, reader, routing, router, forwardedRouter, stores, counters,
                devices::metadata).routes());
        groups.add(new StatsRoutes(streams, layout, routing, forwarder, statisticsTimeout, volumeGuidelineBytes).routes());
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
                                      Duration failoverWait, Resources owned) {
        // Requests to other instances wait here, one per instance at a time; idle threads end after a minute.
        ExecutorService fanOutThreads = Executors.newCachedThreadPool(task -> {
            Thread thread = new Thread(task, "devices-fan-out");
            thread.setDaemon(true);
            return thread;
        });
        owned.add(fanOutThreads::shutdownNow);
        PartitionFanOut fanOut = new PartitionFanOut(p -> routing.planPartition(StoreNames.LATEST, p, false),
                routing::acceptableLocalLag, StoreNames.LATEST, failoverWait, fanOutThreads);
        PartitionFanOut forwardedFanOut = new PartitionFanOut(p -> routing.planPartition(StoreNames.LATEST, p, true),
                routing::acceptableLocalLag, StoreNames.LATEST, Duration.ZERO, fanOutThreads);
        DevicesApi.Tenants deviceTenants = new DevicesApi.Tenants() {
            @Override
            public String allowed(io.javalin.http.Context ctx, String named) {
                return tenants.readable(ctx, named);
            }

            @Override
            public String required(io.javalin.http.Context ctx) {
                return tenants.required(ctx);
            }
        };
        return new DevicesApi(directory, layout, reader, deviceTenants, stores::read, fanOut, forwardedFanOut,
                routing::partitionCount, forwarder::get, new DevicesApi.Counters(counters.forwarded(), counters.stale()));
    }
}
