package dev.tspipe.query.http;

import io.javalin.config.JavalinConfig;
import io.javalin.http.Context;
import io.javalin.http.Handler;
import io.javalin.http.HandlerType;
import jakarta.servlet.DispatcherType;

import java.util.EnumSet;
import java.util.List;

/**
 * Every route of the API, by group: what {@link #register} registers, what the OpenAPI and scope tests compare with
 * the documents, and the one matcher that tells which group a request belongs to (its error dialect and its body
 * limit), for a request that reached a route and for one that reached none alike.
 */
public final class RouteTable {

    /** A request under no group's route or namespace: tspipe's JSON, the query routes' body limit. */
    private static final RouteGroup NO_GROUP = RouteGroup.of("none", List.of()).undocumented();

    private final List<RouteGroup> groups;

    public RouteTable(List<RouteGroup> groups) {
        this.groups = List.copyOf(groups);
    }

    public List<RouteGroup> groups() {
        return groups;
    }

    /** Every route, group by group. */
    public List<Route> routes() {
        return groups.stream().flatMap(group -> group.routes().stream()).toList();
    }

    /** The routes {@code /openapi.json} describes. */
    public List<Route> documented() {
        return groups.stream().filter(RouteGroup::documented).flatMap(group -> group.routes().stream()).toList();
    }

    /**
     * The group of a request path: the group of the route it names (trailing slashes ignored, as Javalin does), else
     * the group whose namespace it is under, else none.
     */
    public RouteGroup groupOf(String path) {
        String trimmed = path;
        while (trimmed.length() > 1 && trimmed.endsWith("/")) {
            trimmed = trimmed.substring(0, trimmed.length() - 1);
        }
        for (RouteGroup group : groups) {
            for (Route route : group.routes()) {
                if (route.matches(trimmed)) {
                    return group;
                }
            }
        }
        for (RouteGroup group : groups) {
            if (group.namespace() != null && path.startsWith(group.namespace())) {
                return group;
            }
        }
        return NO_GROUP;
    }

    /** The dialect of the request's group: that of the route that runs, or {@link #groupOf} its path. */
    ErrorDialect dialectOf(Context ctx) {
        return groupOf(ctx.path()).errors();
    }

    /**
     * Registers every route, each behind the {@code guard}, a GET route for HEAD too (by itself Javalin answers the HEAD
     * of a GET route with an empty 200 without running it, so a HEAD of /ready would say ready while Kafka Streams is
     * not); then the edge's checks before every route and the refusals ({@link HttpErrors}).
     */
    public void register(JavalinConfig config, Guard guard, String self) {
        BodyLimit bodyLimit = new BodyLimit(this);
        config.jetty.modifyServletContextHandler(context ->
                context.addFilter(bodyLimit, "/*", EnumSet.of(DispatcherType.REQUEST)));
        for (Route route : routes()) {
            Handler handler = guard.guarded(route);
            config.routes.addHttpHandler(route.method(), route.path(), handler);
            if (route.method() == HandlerType.GET) {
                config.routes.addHttpHandler(HandlerType.HEAD, route.path(), handler);
            }
        }
        config.routes.before(ctx -> {
            MethodOverride.refuse(ctx);
            UriCheck.requireWellFormedPath(ctx.path());
            UriCheck.requireWellFormedQuery(ctx.queryString());
            bodyLimit.requireDeclaredWithin(ctx);
        });
        config.routes.after(ConnectionClose::afterAnswer);
        new HttpErrors(this, self).register(config);
    }
}
