package dev.tspipe.query.http;

import dev.tspipe.query.auth.BearerTokens;
import dev.tspipe.query.auth.Grant;
import dev.tspipe.query.auth.Scope;
import dev.tspipe.query.auth.TenantPolicy;
import dev.tspipe.query.auth.TokenFile;
import dev.tspipe.query.error.ApiException;
import io.javalin.http.Context;
import io.javalin.http.Handler;

/**
 * Authentication and scope, on the route itself (docs/security.md): with tokens, a route's handler runs only for a bearer
 * token whose scope includes the route's. Because the check belongs to the route and not to a filter that matches
 * paths, no spelling of a path (a trailing slash, another case) reaches a handler without it.
 */
public final class Guard {

    /** Null when the API is open. */
    private final TokenFile tokens;

    public Guard(TokenFile tokens) {
        this.tokens = tokens;
    }

    /** The route's handler, run only for a token of the route's scope when tokens are on. */
    Handler guarded(Route route) {
        Handler handler = route.handler();
        if (tokens == null || !route.needsToken()) {
            return handler;
        }
        Scope needed = route.scope();
        return ctx -> {
            authorize(ctx, needed);
            handler.handle(ctx);
        };
    }

    /** Keeps the grant of the request's bearer token for {@link TenantPolicy}; 401 or 403 when it does not allow the route. */
    private void authorize(Context ctx, Scope needed) {
        String header = ctx.header("Authorization");
        if (header == null || header.isBlank()) {
            throw ApiException.unauthorized("this API needs a token: send the header 'Authorization: Bearer <token>' "
                    + "(tspipe tokens create makes one)");
        }
        String token = BearerTokens.token(header);
        if (token == null) {
            throw ApiException.unauthorized("the Authorization header must be 'Bearer <token>'");
        }
        Grant grant = tokens.tokens().find(token).orElseThrow(() -> ApiException.unauthorized(
                "the token is not known here: revoked, mistyped, or made for another deployment"));
        if (!grant.scope().includes(needed)) {
            throw ApiException.forbidden("this token may " + grant.scope().label() + "; " + ctx.path() + " needs a token of "
                    + "scope " + needed.label());
        }
        ctx.attribute(TenantPolicy.GRANT, grant);
    }
}
