package dev.tspipe.embedded;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
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
 * The answers of Jetty itself, for requests that never reach the registry's routes (a request line or headers
 * Jetty cannot parse or will not take, a path it refuses as ambiguous), in the registry's error shape
 * {@code {"error_code": status, "message": "..."}} with {@code X-Content-Type-Options: nosniff}, instead of
 * Jetty's HTML pages.
 *
 * <p>Two handlers, because Jetty asks two: the server's ({@link #forServer()}, for what fails while parsing,
 * before any context) and the servlet context's ({@link #forServletContext()}, for what the servlet layer
 * refuses). Jetty's reason is passed on only when it is short printable text that names no Java class.
 */
final class RegistryErrorPage {

    /** The header that tells a browser not to guess another content type than the one sent; on every answer. */
    static final String NOSNIFF_HEADER = "X-Content-Type-Options";
    static final String NOSNIFF = "nosniff";

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final List<Charset> UTF_8 = List.of(StandardCharsets.UTF_8);
    private static final Pattern SAFE_REASON = Pattern.compile("[\\x20-\\x7E]{1,160}");
    private static final Pattern JAVA_NAME = Pattern.compile("\\b(java|javax|jakarta|org|io|com|sun)\\.[a-z]+|Exception|\\bat [a-z]");

    private RegistryErrorPage() {
    }

    static ErrorHandler forServer() {
        return new ServerErrors();
    }

    static org.eclipse.jetty.ee10.servlet.ErrorHandler forServletContext() {
        return new ServletContextErrors();
    }

    /** The body for an error Jetty found, by its status and reason (may be null). */
    static String body(int status, String reason) {
        ObjectNode body = JSON.createObjectNode();
        body.put("error_code", status);
        body.put("message", "HTTP " + status + " " + HttpStatus.getMessage(status) + detail(status, reason));
        return body.toString();
    }

    /** Every answer has the JSON body, but the answer to a HEAD, which must have none (Jetty's default: GET and POST only). */
    private static boolean bodyFor(String method) {
        return !"HEAD".equals(method);
    }

    private static String detail(int status, String reason) {
        if (reason == null || reason.equalsIgnoreCase(HttpStatus.getMessage(status)) || !SAFE_REASON.matcher(reason).matches()
                || JAVA_NAME.matcher(reason).find()) {
            return "";
        }
        return ": " + reason;
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
            response.getHeaders().put(NOSNIFF_HEADER, NOSNIFF);
            generateAcceptableResponse(request, response, callback, "application/json", UTF_8, code, message, cause);
        }

        @Override
        protected void writeErrorJson(Request request, PrintWriter writer, int code, String message, Throwable cause) {
            writer.write(body(code, message));
        }
    }

    /** The same overrides on the servlet context's handler: Jetty's servlet {@code ErrorHandler} extends the server's, so one class cannot be both. */
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
            response.getHeaders().put(NOSNIFF_HEADER, NOSNIFF);
            generateAcceptableResponse(request, response, callback, "application/json", UTF_8, code, message, cause);
        }

        @Override
        protected void writeErrorJson(Request request, PrintWriter writer, int code, String message, Throwable cause) {
            writer.write(body(code, message));
        }
    }
}
