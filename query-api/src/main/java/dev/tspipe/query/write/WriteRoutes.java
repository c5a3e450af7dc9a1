package dev.tspipe.query.write;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tspipe.query.auth.Scope;
import dev.tspipe.query.auth.TenantPolicy;
import dev.tspipe.query.http.BodyLimit;
import dev.tspipe.query.http.ErrorDialect;
import dev.tspipe.query.http.HttpJson;
import dev.tspipe.query.http.Route;
import dev.tspipe.query.http.RouteGroup;
import io.javalin.http.Context;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;

/**
 * The write routes (docs/ingest.md): InfluxDB 2's and InfluxDB 1's line protocol and Prometheus remote-write 1.0, each
 * answering errors in the shape its clients read. 204 once Kafka acknowledged every reading.
 */
public final class WriteRoutes {

    /** InfluxDB 2's errors: {@code code} (its API's {@code Error.code}), {@code message}, {@code line}. */
    static final ErrorDialect INFLUX_2 = (ctx, status, code, message, line) -> {
        ObjectNode body = HttpJson.MAPPER.createObjectNode().put("code", influxCode(status)).put("message", message);
        influxError(ctx, status, body, line);
    };
    /** InfluxDB 1's errors: {@code error}, {@code line}. */
    static final ErrorDialect INFLUX_1 = (ctx, status, code, message, line) ->
            influxError(ctx, status, HttpJson.MAPPER.createObjectNode().put("error", message), line);

    private static final Logger LOG = LoggerFactory.getLogger(WriteRoutes.class);

    private final HttpWrites writes;
    private final TenantPolicy tenants;

    public WriteRoutes(HttpWrites writes, TenantPolicy tenants) {
        this.writes = writes;
        this.tenants = tenants;
    }

    /** One group per dialect: a client of InfluxDB 2, of InfluxDB 1 and of Prometheus each read their own errors. */
    public List<RouteGroup> routes() {
        return List.of(
                group("influxdb-2", INFLUX_2, Route.post("/api/v2/write", Scope.WRITE,
                        ctx -> lineProtocol(ctx, ctx.queryParam("bucket"), "bucket"))),
                group("influxdb-1", INFLUX_1, Route.post("/write", Scope.WRITE,
                        ctx -> lineProtocol(ctx, ctx.queryParam("db"), "db"))),
                group("remote-write", ErrorDialect.TSPIPE, Route.post("/api/v1/write", Scope.WRITE, this::remoteWrite)));
    }

    private static RouteGroup group(String name, ErrorDialect errors, Route route) {
        return new RouteGroup(name, errors, BodyLimit.WRITE_BYTES, true, null, RouteGroup.Methods.GET_AND_HEAD,
                List.of(route));
    }

    /** A write of line protocol (InfluxDB's {@code Token} scheme is taken as {@code Bearer}). */
    private void lineProtocol(Context ctx, String namedTenant, String tenantParameter) {
        String tenant = tenants.writable(ctx, namedTenant, tenantParameter);
        int written = writes.lineProtocol(ctx.bodyAsBytes(), ctx.header("Content-Encoding"), ctx.queryParam("precision"),
                tenant);
        LOG.debug("Wrote {} readings of line protocol", written);
        ctx.status(204);
    }

    /** Prometheus remote-write 1.0: the tenant from the token, or {@code tenant=} with a token for every tenant. */
    private void remoteWrite(Context ctx) {
        String tenant = tenants.writable(ctx, ctx.queryParam("tenant"), "tenant");
        int written = writes.remoteWrite(ctx.bodyAsBytes(), tenant);
        LOG.debug("Wrote {} readings of remote-write", written);
        ctx.status(204);
    }

    private static void influxError(Context ctx, int status, ObjectNode body, Integer line) {
        if (line != null) {
            body.put("line", line);
        }
        HttpJson.write(ctx, status, body);
    }

    /** InfluxDB 2's error code of a status (its API's {@code Error.code}). */
    private static String influxCode(int status) {
        return switch (status) {
            case 400 -> "invalid";
            case 401 -> "unauthorized";
            case 403 -> "forbidden";
            case 404 -> "not found";
            case 413 -> "request too large";
            case 429 -> "too many requests";
            case 503 -> "unavailable";
            default -> status >= 500 ? "internal error" : "invalid";
        };
    }
}
