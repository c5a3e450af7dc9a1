package dev.tspipe.embedded.registry;

import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpStatus;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.handler.ErrorHandler;
import org.eclipse.jetty.util.Callback;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * Jetty's own error answers (a bad request line, headers or URI too long, an unknown path that
 * never reaches a route) in the registry's error shape, {@code {"error_code": N, "message": "..."}},
 * with {@code X-Content-Type-Options: nosniff}, instead of Jetty's HTML page.
 */
public final class RegistryErrorPage extends ErrorHandler {

    /** Every method gets the error body; Jetty's default gives one to GET, POST and HEAD only, and PUT or DELETE none. */
    @Override
    public boolean errorPageForMethod(String method) {
        return true;
    }

    @Override
    protected void generateResponse(Request request, Response response, int code, String message, Throwable cause,
                                    Callback callback) {
        HttpFields.Mutable headers = response.getHeaders();
        headers.put(HttpHeader.CONTENT_TYPE, RegistryRoutes.CONTENT_TYPE);
        headers.put(RegistryRoutes.NOSNIFF_HEADER, RegistryRoutes.NOSNIFF);
        response.write(true, body(code), callback);
    }

    /** Answers to requests that did not parse, written before any handler runs. */
    @Override
    public ByteBuffer badMessageError(int status, String reason, HttpFields.Mutable fields) {
        fields.put(HttpHeader.CONTENT_TYPE, RegistryRoutes.CONTENT_TYPE);
        fields.put(RegistryRoutes.NOSNIFF_HEADER, RegistryRoutes.NOSNIFF);
        return body(status);
    }

    private static ByteBuffer body(int status) {
        // Jetty's reason may name internals (a parser state); the status's phrase is what a client can act on.
        String message = "HTTP " + status + " " + HttpStatus.getMessage(status);
        return ByteBuffer.wrap(RegistryRoutes.errorJson(status, message).getBytes(StandardCharsets.UTF_8));
    }
}
