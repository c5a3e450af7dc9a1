package dev.tspipe.embedded;

import dev.tspipe.embedded.registry.RegistryRoutes;
import io.javalin.Javalin;
import org.eclipse.jetty.http.HttpVersion;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.SecureRequestCustomizer;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.SslConnectionFactory;
import org.eclipse.jetty.util.ssl.SslContextFactory;
import org.eclipse.jetty.util.thread.QueuedThreadPool;

/**
 * The HTTP side of an embedded schema registry: Javalin on Jetty serving {@link RegistryRoutes}, over HTTP, or over
 * HTTPS only when given a TLS context.
 */
final class RegistryServer implements AutoCloseable {

    private final Javalin http;

    private RegistryServer(Javalin http) {
        this.http = http;
    }

    /**
     * Serves the routes on {@code host:port} (port 0 picks a free one).
     *
     * @param tls the server's TLS context, or null for plain HTTP
     */
    static RegistryServer start(RegistryRoutes routes, String host, int port, SslContextFactory.Server tls) {
        Javalin http = Javalin.create(config -> {
            config.startup.showJavalinBanner = false;
            config.startup.showOldJavalinVersionWarning = false;
            config.jetty.host = host;
            config.jetty.port = port;
            config.jetty.threadPool = threadPool();
            // Jetty's header cache otherwise matches a header line case-insensitively and hands back the value of the
            // cached line: on a kept-alive connection, a case variant of a credential was taken for the real one.
            config.jetty.modifyHttpConfiguration(httpConfig -> {
                httpConfig.setHeaderCacheCaseSensitive(true);
                httpConfig.addCustomizer((request, responseHeaders) -> {
                    responseHeaders.put(RegistryErrorPage.NOSNIFF_HEADER, RegistryErrorPage.NOSNIFF);
                    return request;
                });
            });
            config.jetty.modifyServer(server -> server.setErrorHandler(RegistryErrorPage.forServer()));
            config.jetty.modifyServletContextHandler(context -> context.setErrorHandler(RegistryErrorPage.forServletContext()));
            if (tls != null) {
                // The only connector: Javalin adds its plain HTTP one only when none is configured.
                config.jetty.addConnector((server, httpConfig) -> {
                    HttpConfiguration https = new HttpConfiguration(httpConfig);
                    SecureRequestCustomizer secure = new SecureRequestCustomizer();
                    secure.setSniHostCheck(false);
                    https.addCustomizer(secure);
                    ServerConnector connector = new ServerConnector(server,
                            new SslConnectionFactory(tls, HttpVersion.HTTP_1_1.asString()), new HttpConnectionFactory(https));
                    connector.setHost(host);
                    connector.setPort(port);
                    return connector;
                });
            }
            routes.addTo(config);
        }).start();
        return new RegistryServer(http);
    }

    /** The port it listens on, the one picked when started with port 0. */
    int port() {
        return http.port();
    }

    @Override
    public void close() {
        http.stop();
    }

    private static QueuedThreadPool threadPool() {
        QueuedThreadPool pool = new QueuedThreadPool(16, 2);
        pool.setName("schema-registry");
        return pool;
    }
}
