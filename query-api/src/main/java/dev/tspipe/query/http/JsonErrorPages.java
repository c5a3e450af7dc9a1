package dev.tspipe.query.http;

import dev.tspipe.query.error.ErrorBody;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpHeaderValue;
import org.eclipse.jetty.http.HttpStatus;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.handler.ErrorHandler;
import org.eclipse.jetty.util.Callback;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.regex.Pattern;

/**
 * The error answers of Jetty itself, for requests that never reach Javalin's routes (a request line or
 * headers Jetty cannot parse or will not take, a path it refuses), written as the API's JSON errors
 * {@code {"error": code, "message": what to fix}} instead of Jetty's HTML pages.
 *
 * <p>Two handlers, because Jetty asks two: the server's ({@link #forServer()}, for what fails while
 * parsing, before any context: every such error that the tests provoke) and the servlet context's
 * ({@link #forServletContext()}, for an error the servlet layer sends itself, which none of the tested
 * requests provokes; Jetty's default one there prints stack traces). Both write the same bodies.
 *
 * <p>A request Jetty refuses as 501 (a transfer coding it does not implement) or 505 (an HTTP version
 * other than 1.0 and 1.1) is the client's fault: it is answered 400, so that no bad input gets a 5xx.
 * Jetty's reason is passed on only when it is short printable text that names no Java class.
 */
public final class JsonErrorPages {

    /** The most bytes of request line and headers Jetty reads (its default): over it, 414 or 431. */
    public static final int REQUEST_HEADER_BYTES = 8 * 1024;

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final List<Charset> UTF_8 = List.of(StandardCharsets.UTF_8);
    private static final Pattern SAFE_REASON = Pattern.compile("[\\x20-\\x7E]{1,160}");
    private static final Pattern JAVA_NAME = Pattern.compile("\\b(java|javax|jakarta|org|io|com|sun)\\.[a-z]+|Exception|\\bat [a-z]");

    private JsonErrorPages() {
    }

    static ErrorHandler forServer() {
        return new ServerErrors();
    }

    static org.eclipse.jetty.ee10.servlet.ErrorHandler forServletContext() {
        return new ServletContextErrors();
    }

    /** The status sent for a status Jetty chose: 5xx for bad input become 400. */
    static int statusFor(int jettyStatus) {
        return jettyStatus == HttpStatus.NOT_IMPLEMENTED_501 || jettyStatus == HttpStatus.HTTP_VERSION_NOT_SUPPORTED_505
                ? HttpStatus.BAD_REQUEST_400 : jettyStatus;
    }

    /** The body for an error Jetty found, by the status sent and Jetty's reason (may be null). */
    static ErrorBody describe(int status, String reason) {
        String detail = detail(status, reason);
        return switch (status) {
            case 400 -> new ErrorBody("bad-request", "the request is not one this API can read" + detail
                    + "; send GET <path>?<query> HTTP/1.1 with one Host header, the path and query in percent-encoded "
                    + "UTF-8 (no %00 or other control characters, no raw bytes outside ASCII)");
            case 404 -> new ErrorBody("not-found", "no such route" + detail + "; the routes are listed at GET /openapi.json");
            case 405 -> new ErrorBody("method-not-allowed", "this API answers GET (and HEAD) only" + detail
                    + "; the routes are listed at GET /openapi.json");
            case 408 -> new ErrorBody("request-timeout", "the request did not arrive in time" + detail + "; send it again, whole");
            case 413 -> new ErrorBody("request-too-large", "the request is too large" + detail
                    + "; a query route takes a body of at most " + BodyLimit.QUERY_BYTES + " bytes (a form POST of the "
                    + "Prometheus API), a write route " + BodyLimit.WRITE_BYTES + " bytes: send smaller batches");
            case 414 -> new ErrorBody("uri-too-long", "the request line is longer than " + REQUEST_HEADER_BYTES
                    + " bytes; shorten the path or the query string");
            case 417 -> new ErrorBody("expectation-failed", "the server meets no Expect but 100-continue; "
                    + "drop the Expect header");
            case 426 -> new ErrorBody("http-version", "this API speaks HTTP/1.1 (and HTTP/1.0) only; send the request "
                    + "as HTTP/1.1");
            case 431 -> new ErrorBody("headers-too-large", "the request headers are larger than " + REQUEST_HEADER_BYTES
                    + " bytes in all" + detail + "; send fewer or shorter headers (the API needs none but Host)");
            case 500 -> new ErrorBody("internal", "the server failed to answer; the error is logged there");
            case 503 -> new ErrorBody("unavailable", "the server cannot take the request now" + detail + "; retry");
            default -> new ErrorBody(status >= 500 ? "internal" : "bad-request",
                    "the request was refused with " + status + detail + "; the routes are listed at GET /openapi.json");
        };
    }

    private static String detail(int status, String reason) {
        if (reason == null || reason.equalsIgnoreCase(HttpStatus.getMessage(status)) || !SAFE_REASON.matcher(reason).matches()
                || JAVA_NAME.matcher(reason).find()) {
            return "";
        }
        return " (" + reason + ")";
    }

    private static void writeJson(PrintWriter writer, int status, String message) {
        try {
            writer.write(JSON.writeValueAsString(describe(status, message)));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("an error body of two strings is always JSON", e);
        }
    }

    /** Every answer has the JSON body, but the answer to a HEAD, which must have none. */
    private static boolean bodyFor(String method) {
        return !"HEAD".equals(method);
    }

    /**
     * Sets the status the client gets, {@code nosniff}, {@code Retry-After} with a 503, and {@code Connection: close}
     * when Jetty closes the connection after this answer; returns the status. For a request Jetty could not parse,
     * the answer goes out on a stand-in request whose version is HTTP/1.0 (or the HTTP/2.0 that was asked for), so
     * Jetty's generator writes no {@code Connection: close} under the HTTP/1.1 status line and then closes:
     * the client, told nothing, would send its next request into a closed socket.
     */
    private static int prepare(Request request, Response response, int jettyStatus) {
        int status = statusFor(jettyStatus);
        response.setStatus(status);
        if (!request.getConnectionMetaData().isPersistent()) {
            response.getHeaders().put(HttpHeader.CONNECTION, HttpHeaderValue.CLOSE);
        }
        // A request Jetty could not parse gets no customizer's headers (HttpEdge): its error page sets them itself.
        response.getHeaders().put(HttpEdge.NOSNIFF);
        if (status == HttpStatus.SERVICE_UNAVAILABLE_503) {
            response.getHeaders().put("Retry-After", "1");
        }
        return status;
    }

    private static final class ServerErrors extends ErrorHandler {
        ServerErrors() {
            setShowStacks(false);
            setShowCauses(false);
            setShowOrigin(false);
        }

        @Override
        public boolean errorPageForMethod(String method) {
            return bodyFor(method);
        }

        @Override
        protected void generateResponse(Request request, Response response, int code, String message, Throwable cause,
                                        Callback callback) throws IOException {
            // JSON whatever the request accepts (Jetty's default negotiates HTML, or sends nothing).
            generateAcceptableResponse(request, response, callback, "application/json", UTF_8, prepare(request, response, code),
                    message, cause);
        }

        @Override
        protected void writeErrorJson(Request request, PrintWriter writer, int code, String message, Throwable cause) {
            writeJson(writer, code, message);
        }
    }

    /**
     * The same three overrides as {@link ServerErrors}, on the servlet context's handler: Jetty's servlet
     * {@code ErrorHandler} extends the server's, so one class cannot serve as both; the shared work is in
     * {@link #prepare}, {@link #bodyFor} and {@code writeJson}.
     */
    private static final class ServletContextErrors extends org.eclipse.jetty.ee10.servlet.ErrorHandler {
        ServletContextErrors() {
            setShowStacks(false);
            setShowCauses(false);
            setShowOrigin(false);
        }

        @Override
        public boolean errorPageForMethod(String method) {
            return bodyFor(method);
        }

        @Override
        protected void generateResponse(Request request, Response response, int code, String message, Throwable cause,
                                        Callback callback) throws IOException {
            // JSON whatever the request accepts (Jetty's default negotiates HTML, or sends nothing).
            generateAcceptableResponse(request, response, callback, "application/json", UTF_8, prepare(request, response, code),
                    message, cause);
        }

        @Override
        protected void writeErrorJson(Request request, PrintWriter writer, int code, String message, Throwable cause) {
            writeJson(writer, code, message);
        }
    }
}
