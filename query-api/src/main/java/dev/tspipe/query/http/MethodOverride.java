package dev.tspipe.query.http;

import dev.tspipe.query.error.ApiException;
import io.javalin.http.Context;

import java.util.List;

/**
 * Refuses a request that asks for another method in a header. Javalin routes a request by
 * {@code X-HTTP-Method-Override} instead of its method, so a {@code GET} could run a {@code POST} route past
 * whatever looks at the request line (a proxy's method rules, a log); the other two spellings are refused with it,
 * so that no client comes to rely on a header that one version honours and the next does not.
 */
public final class MethodOverride {

    /** The headers that name a method other than the request's. */
    public static final List<String> HEADERS = List.of("X-HTTP-Method-Override", "X-HTTP-Method", "X-Method-Override");

    private MethodOverride() {
    }

    /** Throws a 400 that names the header when the request has one of {@link #HEADERS}. */
    static void refuse(Context ctx) {
        for (String header : HEADERS) {
            if (ctx.header(header) != null) {
                throw ApiException.badParameter(header, "this API does not accept the header; send the request with the "
                        + "method itself (GET, HEAD, or POST where a route takes one)");
            }
        }
    }
}
