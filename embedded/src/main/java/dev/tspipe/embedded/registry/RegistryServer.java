package dev.tspipe.embedded.registry;

import io.javalin.Javalin;
import org.eclipse.jetty.http.HttpVersion;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.SecureRequestCustomizer;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.SslConnectionFactory;
import org.eclipse.jetty.util.ssl.SslContextFactory;
import org.eclipse.jetty.util.thread.QueuedThreadPool;

import java.util.Optional;

/**
 * The HTTP server of a schema registry: Javalin on Jetty serving {@link RegistryRoutes} on one
 * connector, plain HTTP or HTTPS, with Jetty's own errors written by {@link RegistryErrorPage}.
 */
public final class RegistryServer {

    private RegistryServer() {
    }

    /** Starts serving {@code routes} on {@code host:port} (0 picks a free port), over TLS when {@code tls} is present. */
    public static Javalin start(RegistryRoutes routes, String host, int port, Optional<SslContextFactory.Server> tls) {
        RegistryErrorPage errorPage = new RegistryErrorPage();
        return Javalin.create(config -> {
            config.startup.showJavalinBanner = false;
            config.startup.showOldJavalinVersionWarning = false;
            config.jetty.host = host;
            config.jetty.port = port;
            config.jetty.threadPool = threadPool();
            // Jetty's header cache otherwise hands a kept-alive connection the cached field of an earlier request
            // when a later value differs only in case: a credential in another case would pass as the cached one.
            config.jetty.modifyHttpConfiguration(http -> http.setHeaderCacheCaseSensitive(true));
            config.jetty.modifyServer(server -> server.setErrorHandler(errorPage));
            config.jetty.modifyServletContextHandler(context -> context.setErrorHandler(errorPage));
            tls.ifPresent(serverTls ->
                    // The only connector: Javalin adds its plain HTTP one only when none is configured.
                    config.jetty.addConnector((server, httpConfig) -> {
                        HttpConfiguration https = new HttpConfiguration(httpConfig);
                        https.setHeaderCacheCaseSensitive(true);
                        SecureRequestCustomizer secure = new SecureRequestCustomizer();
                        secure.setSniHostCheck(false);
                        https.addCustomizer(secure);
                        ServerConnector connector = new ServerConnector(server,
                                new SslConnectionFactory(serverTls, HttpVersion.HTTP_1_1.asString()),
                                new HttpConnectionFactory(https));
                        connector.setHost(host);
                        connector.setPort(port);
                        return connector;
                    }));
            routes.addTo(config);
        }).start();
    }

    private static QueuedThreadPool threadPool() {
        QueuedThreadPool pool = new QueuedThreadPool(16, 2);
        pool.setName("schema-registry");
        return pool;
    }
}
