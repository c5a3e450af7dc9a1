package dev.tspipe.query.http;

import io.javalin.config.JavalinConfig;
import org.eclipse.jetty.http.HttpField;
import org.eclipse.jetty.http.HttpVersion;
import org.eclipse.jetty.http.PreEncodedHttpField;
import org.eclipse.jetty.io.ByteBufferPool;
import org.eclipse.jetty.server.ConnectionFactory;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.SecureRequestCustomizer;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.SslConnectionFactory;
import org.eclipse.jetty.util.ssl.SslContextFactory;
import org.eclipse.jetty.util.thread.QueuedThreadPool;

/**
 * What every connector of the query API does to every request and answer at Jetty's level, before Javalin or a route
 * sees them (docs/security.md, "Limits"). One {@link HttpConfiguration} serves the plain and the HTTPS connector.
 */
public final class HttpEdge {

    /**
     * On every answer: a browser must not run an answer as what it guesses from its bytes (a 404 or a JSON body that
     * echoes {@code <img src=x onerror=...>} from the path is no page).
     */
    static final HttpField NOSNIFF = new PreEncodedHttpField("X-Content-Type-Options", "nosniff");

    /** The chunk in which an answer's bytes are copied to the connection (most answers are smaller). */
    private static final int RESPONSE_COPY_BYTES = 8 * 1024;

    private HttpEdge() {
    }

    /**
     * The server's connector on {@code bindHost:port} (HTTPS when {@code tls} is not null), its threads, the edge's rules
     * ({@link #configure}) and the error pages of what Jetty refuses before any route ({@link JsonErrorPages}).
     */
    public static void configure(JavalinConfig config, String bindHost, int port, SslContextFactory.Server tls) {
        config.startup.showJavalinBanner = false;
        config.startup.showOldJavalinVersionWarning = false;
        config.jetty.threadPool = threadPool();
        config.jetty.modifyHttpConfiguration(HttpEdge::configure);
        // Javalin copies each answer into Jetty's output through a buffer of this size, allocated per answer: its
        // default (32 KiB) is half of what a query allocates (measured with JFR), against answers of a few KiB.
        config.http.responseBufferSize = RESPONSE_COPY_BYTES;
        config.http.maxRequestSize = BodyLimit.WRITE_BYTES;
        config.jetty.modifyServer(server -> server.setErrorHandler(JsonErrorPages.forServer()));
        config.jetty.modifyServletContextHandler(context -> context.setErrorHandler(JsonErrorPages.forServletContext()));
        // The only connector: Javalin adds its own plain HTTP one only when none is configured.
        config.jetty.addConnector((server, httpConfig) -> connector(server, httpConfig, tls, bindHost, port));
    }

    /**
     * The one connector, plain HTTP or HTTPS, on {@link #connectionBuffers()}: the connections take their buffers
     * from no pool.
     */
    private static ServerConnector connector(Server server, HttpConfiguration plain, SslContextFactory.Server tls,
                                             String bindHost, int port) {
        ServerConnector connector = new ServerConnector(server, null, null, connectionBuffers(), -1, -1,
                connectionFactories(plain, tls));
        connector.setHost(bindHost);
        connector.setPort(port);
        return connector;
    }

    /**
     * Where the connections' buffers come from: no pool, a buffer per use, garbage once no thread holds it.
     *
     * <p>Jetty 12.1 (12.1.13, and 12.1.14 has the same code) can use a connection's request buffer from two threads
     * after a request it refuses while more of that request is still to be read (a request line over the limit, say):
     * the error answer's completion resumes reading on a second thread before the first has released the buffer, so
     * the buffer can be back in the pool while the second thread still fills it with the rest of the refused request.
     * With a pool, the next connection to take that buffer reads those bytes as its own request or sends them as its
     * answer: one client's bytes (a bearer token among them) reach another client. {@code RefusedRequestBuffersTest}
     * shows it; docs/security.md, "Limits".
     */
    static ByteBufferPool connectionBuffers() {
        return new ByteBufferPool.NonPooling();
    }

    /**
     * HTTP/1.1 on {@code plain}, under TLS when {@code tls} is not null; heap buffers, because a direct buffer per use
     * costs a native allocation and a cleaner (the copy to the socket goes through the JDK's own cached direct buffer).
     */
    static ConnectionFactory[] connectionFactories(HttpConfiguration plain, SslContextFactory.Server tls) {
        HttpConfiguration config = plain;
        if (tls != null) {
            config = new HttpConfiguration(plain);
            SecureRequestCustomizer secure = new SecureRequestCustomizer();
            // Clients reach instances by the advertised name or by address; the certificate check is theirs.
            secure.setSniHostCheck(false);
            config.addCustomizer(secure);
        }
        HttpConnectionFactory http = new HttpConnectionFactory(config);
        http.setUseInputDirectByteBuffers(false);
        http.setUseOutputDirectByteBuffers(false);
        if (tls == null) {
            return new ConnectionFactory[] {http};
        }
        SslConnectionFactory ssl = new SslConnectionFactory(tls, HttpVersion.HTTP_1_1.asString());
        ssl.setDirectBuffersForEncryption(false);
        ssl.setDirectBuffersForDecryption(false);
        return new ConnectionFactory[] {ssl, http};
    }

    private static QueuedThreadPool threadPool() {
        QueuedThreadPool pool = new QueuedThreadPool(32, 2);
        pool.setName("query-api");
        return pool;
    }

    /** Sets the edge's rules on {@code httpConfig}, which the connectors are then made from. */
    static void configure(HttpConfiguration httpConfig) {
        httpConfig.setRequestHeaderSize(JsonErrorPages.REQUEST_HEADER_BYTES);
        httpConfig.setSendServerVersion(false);
        // Jetty's header cache, by default case-insensitive, hands a header line that equals a previous one but for
        // case the previous one's value: a case variant of a bearer token would pass as the token itself.
        httpConfig.setHeaderCacheCaseSensitive(true);
        // A customizer runs for each request before any handler, error pages of Jetty's included, and Javalin's
        // answers keep the response's headers: so no answer can leave it out.
        httpConfig.addCustomizer((request, responseHeaders) -> {
            responseHeaders.put(NOSNIFF);
            return request;
        });
    }
}
