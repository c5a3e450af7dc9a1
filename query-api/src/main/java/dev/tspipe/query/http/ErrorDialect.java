package dev.tspipe.query.http;

import dev.tspipe.query.error.ErrorBody;
import io.javalin.http.Context;

/**
 * How a route group's clients read an error: tspipe's JSON ({@code error}: a code, {@code message}), Prometheus'
 * envelope, InfluxDB's shapes. The route table picks the dialect of the group a request belongs to.
 */
@FunctionalInterface
public interface ErrorDialect {

    /** tspipe's own: {@code {"error": "<code>", "message": "<what to fix>"}}. */
    ErrorDialect TSPIPE = (ctx, status, code, message, line) -> HttpJson.write(ctx, status, new ErrorBody(code, message));

    /**
     * Writes the error as the answer.
     *
     * @param code a tspipe error code ({@code bad-parameter}, {@code not-found}...), which a dialect may map to its own
     * @param line the line of a request body the error is about, or null
     */
    void render(Context ctx, int status, String code, String message, Integer line);
}
