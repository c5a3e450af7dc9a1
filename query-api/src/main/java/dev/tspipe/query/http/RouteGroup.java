package dev.tspipe.query.http;

import java.util.List;

/**
 * Routes that answer alike: in one error dialect (the shape their clients read), with one body limit. A group may own a
 * path prefix ({@code namespace}): a request under it that matches none of its routes is still refused in its dialect
 * (Prometheus' clients read Prometheus' envelope for a 404 too). Undocumented groups (the console's files, the routes
 * one instance asks another) are not in {@code /openapi.json}.
 *
 * @param name       what the group serves, for logs and tests
 * @param namespace  the path prefix the group owns, or null
 * @param methods    the methods the group answers, for a 405 of a request with another one
 */
public record RouteGroup(String name, ErrorDialect errors, int maxBodyBytes, boolean documented, String namespace,
                         Methods methods, List<Route> routes) {

    /** The methods a group answers (its 405's {@code Allow} header), and the 405's message for any other. */
    public record Methods(List<String> allowed, String advice) {
        /** The API's own routes. */
        public static final Methods GET_AND_HEAD = new Methods(List.of("GET", "HEAD"),
                "this API answers GET (and HEAD) only; the routes are listed at GET /openapi.json");

        public Methods {
            allowed = List.copyOf(allowed);
        }
    }

    public RouteGroup {
        routes = List.copyOf(routes);
    }

    /** A documented group of the API's own JSON, with the query routes' body limit, owning no prefix. */
    public static RouteGroup of(String name, List<Route> routes) {
        return new RouteGroup(name, ErrorDialect.TSPIPE, BodyLimit.QUERY_BYTES, true, null, Methods.GET_AND_HEAD, routes);
    }

    public RouteGroup undocumented() {
        return new RouteGroup(name, errors, maxBodyBytes, false, namespace, methods, routes);
    }
}
