package dev.tspipe.embedded.registry;

import io.javalin.Javalin;
import org.eclipse.jetty.http.HttpVersion;
import org.eclipse.jetty.io.ByteBufferPool;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.SecureRequestCustomizer;
import org.eclipse.jetty.server.Server;
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
            config.jetty.threadPool = threadPool();
            // Jetty's header cache otherwise hands a kept-alive connection the cached field of an earlier request
            // when a later value differs only in case: a credential in another case would pass as the cached one.
            config.jetty.modifyHttpConfiguration(http -> http.setHeaderCacheCaseSensitive(true));
            config.jetty.modifyServer(server -> server.setErrorHandler(errorPage));
            config.jetty.modifyServletContextHandler(context -> context.setErrorHandler(errorPage));
            // The only connector: Javalin adds its plain HTTP one only when none is configured.
            config.jetty.addConnector((server, httpConfig) -> connector(server, httpConfig, host, port, tls));
            routes.addTo(config);
        }).start();
    }

    /**
     * Plain HTTP or HTTPS, its connections' buffers from no pool: Jetty 12.1 can fill a refused request's buffer after
     * giving it back to its pool, and the next connection then reads another client's bytes, credentials among them
     * (docs/security.md, "No connection sees another's bytes"; the query API does the same in {@code HttpEdge}).
     */
    private static ServerConnector connector(Server server, HttpConfiguration plain, String host, int port,
                                             Optional<SslContextFactory.Server> tls) {
        ByteBufferPool noPool = new ByteBufferPool.NonPooling();
        ServerConnector connector;
        if (tls.isEmpty()) {
            HttpConnectionFactory http = heapBuffers(new HttpConnectionFactory(plain));
            connector = new ServerConnector(server, null, null, noPool, -1, -1, http);
        } else {
            HttpConfiguration https = new HttpConfiguration(plain);
            https.setHeaderCacheCaseSensitive(true);
            SecureRequestCustomizer secure = new SecureRequestCustomizer();
            secure.setSniHostCheck(false);
            https.addCustomizer(secure);
            SslConnectionFactory ssl = new SslConnectionFactory(tls.get(), HttpVersion.HTTP_1_1.asString());
            ssl.setDirectBuffersForEncryption(false);
            ssl.setDirectBuffersForDecryption(false);
            connector = new ServerConnector(server, null, null, noPool, -1, -1, ssl, heapBuffers(new HttpConnectionFactory(https)));
        }
        connector.setHost(host);
        connector.setPort(port);
        return connector;
    }

    private static HttpConnectionFactory heapBuffers(HttpConnectionFactory http) {
        http.setUseInputDirectByteBuffers(false);
        http.setUseOutputDirectByteBuffers(false);
        return http;
    }

    private static QueuedThreadPool threadPool() {
        QueuedThreadPool pool = new QueuedThreadPool(16, 2);
        pool.setName("schema-registry");
        return pool;
    }
}
