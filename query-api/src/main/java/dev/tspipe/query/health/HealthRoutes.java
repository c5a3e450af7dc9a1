package dev.tspipe.query.health;

import dev.tspipe.query.auth.Scope;
import dev.tspipe.query.error.ApiException;
import dev.tspipe.query.http.HttpJson;
import dev.tspipe.query.http.Route;
import dev.tspipe.query.http.RouteGroup;
import io.javalin.http.Context;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.apache.kafka.streams.KafkaStreams;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.List;

/** The node's own routes: liveness, readiness, its meters, and the API's description (docs/query-api.md, "Health"). */
public final class HealthRoutes {

    /** The OpenAPI document, in the classpath and at {@code GET /openapi.json}. */
    public static final String OPENAPI_RESOURCE = "/openapi.json";

    private final KafkaStreams streams;
    private final MeterRegistry registry;

    public HealthRoutes(KafkaStreams streams, MeterRegistry registry) {
        this.streams = streams;
        this.registry = registry;
    }

    public RouteGroup routes() {
        return RouteGroup.of("health", List.of(
                Route.open("/health", this::health),
                Route.open("/ready", this::ready),
                Route.get("/metrics", Scope.ADMIN, this::prometheus),
                Route.open("/openapi.json", this::openApi)));
    }

    /**
     * Liveness: up while Kafka Streams is CREATED (the server starts before it), REBALANCING or RUNNING;
     * 503 once it is in or on its way to ERROR or NOT_RUNNING, states it never leaves by itself.
     */
    private void health(Context ctx) {
        KafkaStreams.State state = streams.state();
        if (StreamsStates.alive(state)) {
            HttpJson.write(ctx, 200, HttpJson.MAPPER.createObjectNode().put("status", "up").put("streams", state.name())
                    .put("message", StreamsStates.meaning(state)));
        } else {
            HttpJson.write(ctx, 503, HttpJson.MAPPER.createObjectNode().put("error", "down")
                    .put("message", StreamsStates.meaning(state)).put("streams", state.name()));
        }
    }

    /** Readiness: 200 only while Kafka Streams is RUNNING, else 503 with {@code Retry-After}. */
    private void ready(Context ctx) {
        KafkaStreams.State state = streams.state();
        if (state == KafkaStreams.State.RUNNING) {
            HttpJson.write(ctx, 200, HttpJson.MAPPER.createObjectNode().put("status", "ready").put("streams", state.name())
                    .put("message", StreamsStates.meaning(state)));
        } else {
            ctx.header("Retry-After", "1");
            HttpJson.write(ctx, 503, HttpJson.MAPPER.createObjectNode().put("error", "unavailable")
                    .put("message", "not ready: " + StreamsStates.meaning(state)).put("streams", state.name()));
        }
    }

    private void prometheus(Context ctx) {
        if (!(registry instanceof PrometheusMeterRegistry prometheus)) {
            throw ApiException.notFound("no-prometheus", "this server's meters go to a "
                    + registry.getClass().getSimpleName() + ", not to a Prometheus registry");
        }
        ctx.contentType("text/plain; version=0.0.4; charset=utf-8").result(prometheus.scrape());
    }

    private void openApi(Context ctx) {
        ctx.contentType(HttpJson.TYPE).result(openApiDocument());
    }

    private static byte[] openApiDocument() {
        try (InputStream in = HealthRoutes.class.getResourceAsStream(OPENAPI_RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException(OPENAPI_RESOURCE + " is missing from the classpath");
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
