package dev.tspipe.query.series;

import dev.tspipe.model.keys.DistributionKey;
import dev.tspipe.model.keys.InvalidKeyException;
import dev.tspipe.model.keys.KeyLayout;
import dev.tspipe.model.keys.RowKey;
import dev.tspipe.model.keys.SeriesId;
import dev.tspipe.processor.store.RollupStep;
import dev.tspipe.processor.store.StoreNames;
import dev.tspipe.query.auth.Scope;
import dev.tspipe.query.auth.TenantPolicy;
import dev.tspipe.query.downsample.Downsampler;
import dev.tspipe.query.downsample.Resolution;
import dev.tspipe.query.error.ApiException;
import dev.tspipe.query.http.AnswerHeaders;
import dev.tspipe.query.http.HttpJson;
import dev.tspipe.query.http.Route;
import dev.tspipe.query.http.RouteGroup;
import dev.tspipe.query.routing.Forwarder;
import dev.tspipe.query.routing.ReadCounters;
import dev.tspipe.query.routing.RoutedAnswer;
import dev.tspipe.query.routing.RoutedRead;
import dev.tspipe.query.routing.SeriesRouting;
import io.javalin.http.Context;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.function.BiFunction;
import java.util.function.Function;

/**
 * The routes of one series and of one device's metrics (docs/query-api.md): each read at the partition that owns the
 * device, here or at the instance that has it ({@link RoutedRead}), or from a caught-up standby during a rebalance.
 */
public final class SeriesRoutes {

    private final KeyLayout layout;
    private final TenantPolicy tenants;
    private final SeriesReader reader;
    private final SeriesRouting routing;
    private final RoutedRead router;
    private final RoutedRead forwardedRouter;
    private final LocalStores stores;
    private final ReadCounters counters;
    /** A device's metadata, shown beside its metrics (null when the device table has not got it). */
    private final BiFunction<String, String, DeviceAnswer> metadata;

    /**
     * @param router          reads a partition here or at its owners, waiting out a failover
     * @param forwardedRouter reads a partition from this instance's copies only (a request another instance sent)
     */
    public SeriesRoutes(KeyLayout layout, TenantPolicy tenants, SeriesReader reader, SeriesRouting routing,
                        RoutedRead router, RoutedRead forwardedRouter, LocalStores stores, ReadCounters counters,
                        BiFunction<String, String, DeviceAnswer> metadata) {
        this.layout = layout;
        this.tenants = tenants;
        this.reader = reader;
        this.routing = routing;
        this.router = router;
        this.forwardedRouter = forwardedRouter;
        this.stores = stores;
        this.counters = counters;
        this.metadata = metadata;
    }

    public RouteGroup routes() {
        return RouteGroup.of("series", List.of(
                Route.get("/api/v1/series/{device}/{metric}/readings", Scope.READ, this::readings),
                Route.get("/api/v1/series/{device}/{metric}/latest", Scope.READ, this::latest),
                Route.get("/api/v1/series/{device}/{metric}/rollups", Scope.READ, this::rollups),
                Route.get("/api/v1/series/{device}/{metric}/downsample", Scope.READ, this::downsample),
                Route.get("/api/v1/devices/{device}/metrics", Scope.READ, this::deviceMetrics)));
    }

    private void readings(Context ctx) {
        SeriesId series = series(ctx);
        PageRequest request = page(ctx, "readings", series);
        routed(ctx, StoreNames.RAW, series.distributionKey(), stores -> reader.readings(stores, request));
    }

    private void rollups(Context ctx) {
        SeriesId series = series(ctx);
        RollupStep step = step(ctx.queryParam("step"));
        PageRequest request = page(ctx, "rollups-" + step.label(), series);
        routed(ctx, StoreNames.rollup(step), series.distributionKey(), stores -> reader.rollups(stores, step, request));
    }

    /** Buckets of any step, from the coarsest stored resolution that answers exactly (docs/query-api.md). */
    private void downsample(Context ctx) {
        SeriesId series = series(ctx);
        Downsampler.Request request = DownsampleParameters.parse(ctx.queryParam("from"), ctx.queryParam("to"),
                ctx.queryParam("step"), ctx.queryParam("align"), ctx.queryParam("fn"), ctx.queryParam("fill"));
        Resolution source = Resolution.choose(request);
        routed(ctx, source.store(), series.distributionKey(), stores -> reader.downsample(stores, series, request, source));
    }

    private void latest(Context ctx) {
        SeriesId series = series(ctx);
        routed(ctx, StoreNames.LATEST, series.distributionKey(), stores -> reader.latest(stores, series)
                .orElseThrow(() -> ApiException.notFound("unknown-series", "no reading of series '" + series.metric()
                        + "' of device '" + series.device() + "' is stored; check the names "
                        + "(GET /api/v1/devices/{device}/metrics lists a device's metrics)")));
    }

    private void deviceMetrics(Context ctx) {
        String tenant = tenants.required(ctx);
        String device = ctx.pathParam("device");
        try {
            RowKey.deviceRange(layout, tenant, device);
        } catch (InvalidKeyException e) {
            throw ApiException.badParameter("device", e.getMessage());
        }
        String distributionKey = DistributionKey.of(tenant, device);
        routed(ctx, StoreNames.LATEST, distributionKey, stores -> {
            Answers.DeviceMetrics answer = reader.deviceMetrics(stores, tenant, device);
            if (answer.metrics().isEmpty()) {
                throw ApiException.notFound("unknown-device", "no reading of device '" + device + "' is stored");
            }
            return answer.withMetadata(metadata.apply(tenant, device));
        });
    }

    private SeriesId series(Context ctx) {
        SeriesId series = new SeriesId(tenants.required(ctx), ctx.pathParam("device"), ctx.pathParam("metric"));
        try {
            RowKey.seriesPrefix(layout, series);
        } catch (InvalidKeyException e) {
            throw ApiException.badParameter("device/metric", e.getMessage());
        }
        return series;
    }

    private static PageRequest page(Context ctx, String kind, SeriesId series) {
        return PageRequest.parse(kind, series, ctx.queryParam("from"), ctx.queryParam("to"), ctx.queryParam("limit"),
                ctx.queryParam("order"), ctx.queryParam("cursor"));
    }

    static RollupStep step(String text) {
        if (text == null || text.isEmpty()) {
            throw ApiException.badParameter("step", "missing; use one of 1m, 1h, 1d");
        }
        try {
            return RollupStep.fromLabel(text);
        } catch (IllegalArgumentException e) {
            throw ApiException.badParameter("step", "'" + text + "' is not a rollup step; use one of 1m, 1h, 1d");
        }
    }

    /** Answers from the first target of the routing plan that can; 503 when none can. */
    private void routed(Context ctx, String store, String distributionKey, Function<SeriesReader.Stores, Object> read) {
        boolean forwarded = ctx.header(Forwarder.FORWARDED_HEADER) != null;
        byte[] key = distributionKey.getBytes(StandardCharsets.UTF_8);
        String query = ctx.queryString();
        RoutedAnswer<Object> answer = (forwarded ? forwardedRouter : router).answer(store,
                () -> routing.plan(store, key, forwarded),
                (partition, stale) -> stores.read(read, partition, stale),
                new Forwarder.Request(ctx.path() + (query == null ? "" : "?" + query), ctx.header("Authorization")));
        if (answer instanceof RoutedAnswer.Local<Object> local) {
            if (local.stale()) {
                counters.stale().run();
                ctx.header(AnswerHeaders.STALE, "true");
                ctx.header(AnswerHeaders.LAG, Long.toString(local.lag().getAsLong()));
            }
            HttpJson.write(ctx, 200, local.value());
        } else if (answer instanceof RoutedAnswer.Forwarded<Object> remote) {
            counters.forwarded().run();
            remote.answer().headers().forEach((name, values) -> values.forEach(value -> ctx.header(name, value)));
            ctx.status(remote.answer().status()).result(remote.answer().body());
        } else if (answer instanceof RoutedAnswer.NoneAnswered<Object> none) {
            throw ApiException.unavailable("no instance can answer for '" + distributionKey + "' right now ("
                    + String.join("; ", none.attempts()) + "); retry");
        }
    }
}
