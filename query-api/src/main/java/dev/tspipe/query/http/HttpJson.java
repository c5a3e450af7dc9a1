package dev.tspipe.query.http;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.javalin.http.Context;

import java.io.IOException;
import java.io.UncheckedIOException;

/** JSON answers: one mapper for the API, and the one way an answer's body is written. */
public final class HttpJson {

    public static final ObjectMapper MAPPER = new ObjectMapper();
    public static final String TYPE = "application/json";

    private HttpJson() {
    }

    public static void write(Context ctx, int status, Object body) {
        try {
            ctx.status(status).contentType(TYPE).result(MAPPER.writeValueAsBytes(body));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
