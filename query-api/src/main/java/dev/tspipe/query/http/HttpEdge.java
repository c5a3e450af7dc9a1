package dev.tspipe.query.http;

import io.javalin.config.JavalinConfig;
import org.eclipse.jetty.http.HttpField;
import org.eclipse.jetty.http.HttpVersion;
import org.eclipse.jetty.http.PreEncodedHttpField;
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
        config.jetty.host = bindHost;
        config.jetty.port = port;
        config.jetty.threadPool = threadPool();
        config.jetty.modifyHttpConfiguration(HttpEdge::configure);
        // Javalin copies each answer into Jetty's output through a buffer of this size, allocated per answer: its
        // default (32 KiB) is half of what a query allocates (measured with JFR), against answers of a few KiB.
        config.http.responseBufferSize = RESPONSE_COPY_BYTES;
        config.http.maxRequestSize = BodyLimit.WRITE_BYTES;
        config.jetty.modifyServer(server -> server.setErrorHandler(JsonErrorPages.forServer()));
        config.jetty.modifyServletContextHandler(context -> context.setErrorHandler(JsonErrorPages.forServletContext()));
        if (tls != null) {
            // The only connector: Javalin adds its plain HTTP one only when none is configured.
            config.jetty.addConnector((server, httpConfig) -> httpsConnector(server, httpConfig, tls, bindHost, port));
        }
    }

    private static ServerConnector httpsConnector(Server server, HttpConfiguration plain, SslContextFactory.Server tls,
                                                  String bindHost, int port) {
        HttpConfiguration https = new HttpConfiguration(plain);
        SecureRequestCustomizer secure = new SecureRequestCustomizer();
        // Clients reach instances by the advertised name or by address; the certificate check is theirs.
        secure.setSniHostCheck(false);
        https.addCustomizer(secure);
        ServerConnector connector = new ServerConnector(server,
                new SslConnectionFactory(tls, HttpVersion.HTTP_1_1.asString()), new HttpConnectionFactory(https));
        connector.setHost(bindHost);
        connector.setPort(port);
        return connector;
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
