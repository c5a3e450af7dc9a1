package dev.tspipe.query.http;

import dev.tspipe.query.error.ApiException;
import dev.tspipe.query.error.ErrorBody;
import io.javalin.config.JavalinConfig;
import io.javalin.http.Context;
import io.javalin.http.HttpResponseException;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Every refusal the routes and Javalin make, written in the dialect of the request's group ({@link RouteTable#groupOf}):
 * an {@link ApiException} with its status; a store that cannot be read now as a 503; no route as a 404, or a 405 for
 * a method the group does not answer; and a fault of the server, the only 500, logged here with its stack.
 */
final class HttpErrors {

    private static final Logger LOG = LoggerFactory.getLogger(HttpErrors.class);

    private final RouteTable routes;
    /** This instance, {@code host:port}, named in a 500 so its log can be found. */
    private final String self;

    HttpErrors(RouteTable routes, String self) {
        this.routes = routes;
        this.self = self;
    }

    void register(JavalinConfig config) {
        config.routes.exception(ApiException.class, (e, ctx) -> render(ctx, e));
        config.routes.exception(InvalidStateStoreException.class, (e, ctx) ->
                render(ctx, ApiException.unavailable("the store is not queryable right now (" + e.getMessage() + "); retry")));
        // Javalin's own refusals: no route (404, also for a method no route of the path takes), or a 4xx it found.
        config.routes.exception(HttpResponseException.class, (e, ctx) -> {
            if (e.getStatus() == 404) {
                noRoute(ctx);
            } else {
                int status = JsonErrorPages.statusFor(e.getStatus());
                ErrorBody body = JsonErrorPages.describe(status, e.getMessage());
                render(ctx, status, body.error(), body.message());
            }
        });
        // Only a fault of the server gets here: every bad input is refused above as a 4xx.
        config.routes.exception(Exception.class, (e, ctx) -> {
            LOG.error("Query {} {} failed", ctx.method(), ctx.path(), e);
            render(ctx, 500, "internal", "the server failed to answer; the error is logged on " + self);
        });
        config.routes.error(404, ctx -> {
            String body = ctx.result();
            if (body == null || body.isEmpty()) {
                render(ctx, 404, "not-found", noRouteMessage(ctx));
            }
        });
    }

    /** A 405 for a method the request's group does not answer, with {@code Allow}; else a 404. */
    private void noRoute(Context ctx) {
        RouteGroup.Methods methods = routes.groupOf(ctx.path()).methods();
        if (!methods.allowed().contains(ctx.req().getMethod())) {
            ctx.header("Allow", String.join(", ", methods.allowed()));
            render(ctx, 405, "method-not-allowed", methods.advice());
        } else {
            render(ctx, 404, "not-found", noRouteMessage(ctx));
        }
    }

    private void render(Context ctx, ApiException e) {
        if (e.retryAfterSeconds() != null) {
            ctx.header("Retry-After", e.retryAfterSeconds());
        }
        if (e.wwwAuthenticate() != null) {
            ctx.header("WWW-Authenticate", e.wwwAuthenticate());
        }
        routes.dialectOf(ctx).render(ctx, e.status(), e.code(), e.getMessage(), e.line());
    }

    private void render(Context ctx, int status, String code, String message) {
        routes.dialectOf(ctx).render(ctx, status, code, message, null);
    }

    private static String noRouteMessage(Context ctx) {
        String path = ctx.path();
        return "no route GET " + (path.length() > 200 ? path.substring(0, 200) + "..." : path)
                + "; the routes are listed at GET /openapi.json";
    }
}
