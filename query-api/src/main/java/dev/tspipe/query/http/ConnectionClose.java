package dev.tspipe.query.http;

import io.javalin.http.Context;
import org.eclipse.jetty.ee10.servlet.ServletContextRequest;

import java.io.IOException;

/**
 * {@code Connection: close} on an answer after which Jetty closes the connection, and on no other (or no connection
 * would be kept): after HTTP/1.0 without keep-alive, and when the route left a declared body unread or unfinished. Jetty
 * reads what has arrived once the answer is written and closes the connection if the body is not at its end, without
 * saying so in the answer it already sent; a client that keeps the connection would send its next request into a
 * closed socket. Said here, the client opens a new connection instead.
 */
final class ConnectionClose {

    private ConnectionClose() {
    }

    static void afterAnswer(Context ctx) {
        if (!persistent(ctx) || !bodyFinished(ctx)) {
            ctx.header("Connection", "close");
        }
    }

    /**
     * Whether the connection outlives the exchange as far as the request goes: not for HTTP/1.0 without keep-alive,
     * whose answer Jetty sends under an HTTP/1.1 status line without {@code Connection: close}.
     */
    private static boolean persistent(Context ctx) {
        return ServletContextRequest.getServletContextRequest(ctx.req()).getConnectionMetaData().isPersistent();
    }

    private static boolean bodyFinished(Context ctx) {
        long declared = ctx.req().getContentLengthLong();
        if (declared == 0 || declared < 0 && ctx.header("Transfer-Encoding") == null) {
            // No body: Jetty's isFinished() is false until a read has seen the end, which no GET route does.
            return true;
        }
        try {
            return ctx.req().getInputStream().isFinished();
        } catch (IllegalStateException readThroughTheReader) {
            return true;   // the route read the body as text, to its end
        } catch (IOException e) {
            return false;
        }
    }
}
