package dev.tspipe.query.prometheus;

import dev.tspipe.query.auth.Scope;
import dev.tspipe.query.http.BodyLimit;
import dev.tspipe.query.http.ErrorDialect;
import dev.tspipe.query.http.HttpJson;
import dev.tspipe.query.http.Route;
import dev.tspipe.query.http.RouteGroup;

import java.util.ArrayList;
import java.util.List;

/**
 * The route groups of Prometheus' HTTP API (docs/grafana.md): every route for GET and POST (a form body), every error in
 * Prometheus' envelope, which its clients (Grafana, promtool) read for a 404 under {@code /prometheus/} too.
 */
public final class PrometheusRoutes {

    static final String NAMESPACE = "/prometheus/";
    static final ErrorDialect ENVELOPE = (ctx, status, code, message, line) ->
            ctx.status(status).contentType(HttpJson.TYPE).result(PromErrors.error(status, code, message));
    private static final RouteGroup.Methods METHODS = new RouteGroup.Methods(List.of("GET", "HEAD", "POST"),
            "Prometheus' API answers GET, and POST with a form body");

    private PrometheusRoutes() {
    }

    /** The public routes (documented), then the one other instances ask for partitions' parts of a query. */
    public static List<RouteGroup> of(PrometheusApi api) {
        List<Route> public_ = new ArrayList<>();
        List<Route> internal = new ArrayList<>();
        api.routes().forEach((path, handler) -> {
            List<Route> group = path.equals(PrometheusApi.PARTITION_PATH) ? internal : public_;
            group.add(Route.get(path, Scope.READ, handler));
            group.add(Route.post(path, Scope.READ, handler));
        });
        return List.of(group("prometheus", true, public_), group("prometheus-internal", false, internal));
    }

    private static RouteGroup group(String name, boolean documented, List<Route> routes) {
        return new RouteGroup(name, ENVELOPE, BodyLimit.QUERY_BYTES, documented, NAMESPACE, METHODS, routes);
    }
}
