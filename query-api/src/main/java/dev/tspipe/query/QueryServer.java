package dev.tspipe.query;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tspipe.ingest.ReadingProducer;
import dev.tspipe.ingest.influx.InfluxMapping;
import dev.tspipe.ingest.prometheus.RemoteWrite;
import dev.tspipe.model.keys.DistributionKey;
import dev.tspipe.model.keys.InvalidKeyException;
import dev.tspipe.model.keys.KeyLayout;
import dev.tspipe.model.keys.RowKey;
import dev.tspipe.model.keys.SeriesId;
import dev.tspipe.processor.store.RollupStep;
import dev.tspipe.processor.store.StoreNames;
import dev.tspipe.processor.topology.PipelineConfig;
import dev.tspipe.query.auth.BearerTokens;
import dev.tspipe.query.auth.Grant;
import dev.tspipe.query.auth.Scope;
import dev.tspipe.query.auth.TokenFile;
import dev.tspipe.query.devices.DeviceDirectory;
import dev.tspipe.query.devices.DevicesApi;
import dev.tspipe.query.downsample.Downsampler;
import dev.tspipe.query.downsample.Resolution;
import dev.tspipe.query.prometheus.PartitionReads;
import dev.tspipe.query.prometheus.PartitionSeries;
import dev.tspipe.query.prometheus.PrometheusApi;
import dev.tspipe.query.routing.Forwarder;
import dev.tspipe.query.routing.PartitionFanOut;
import dev.tspipe.query.routing.RoutedAnswer;
import dev.tspipe.query.routing.RoutedRead;
import dev.tspipe.query.routing.SeriesRouting;
import dev.tspipe.query.tls.HttpTls;
import dev.tspipe.query.write.HttpWrites;
import io.javalin.Javalin;
import io.javalin.http.Context;
import io.javalin.http.Handler;
import io.javalin.http.HttpResponseException;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import jakarta.servlet.DispatcherType;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StoreQueryParameters;
import org.apache.kafka.streams.StreamsMetadata;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.apache.kafka.streams.state.HostInfo;
import org.apache.kafka.streams.state.QueryableStoreTypes;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;
import org.eclipse.jetty.ee10.servlet.ServletContextRequest;
import org.eclipse.jetty.http.HttpVersion;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.SecureRequestCustomizer;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.SslConnectionFactory;
import org.eclipse.jetty.util.ssl.SslContextFactory;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Function;

/**
 * The HTTP query API of one tspipe instance (docs/design.md §6, {@code docs/query-api.md}), in the same
 * process as its Kafka Streams instance. Any instance answers any query: it reads the partition
 * that owns the series here, or forwards the request to the instance that owns it (one hop at
 * most), or answers from a caught-up standby replica during a rebalance.
 *
 * <pre>{@code
 * QueryServer server = QueryServer.builder()
 *         .streams(kafkaStreams)          // application.server = the advertised host:port
 *         .pipelineConfig(pipelineConfig)
 *         .bindHost("0.0.0.0").port(8080)
 *         .advertised(new HostInfo("127.0.0.1", 8080))
 *         .start();
 * }</pre>
 */
public final class QueryServer implements AutoCloseable {

    /** Marks an answer served from a standby replica (or a restoring task); {@link #LAG_HEADER} says how far behind. */
    public static final String STALE_HEADER = "X-Tspipe-Stale";
    public static final String LAG_HEADER = "X-Tspipe-Lag";
    /** The OpenAPI document, in the classpath and at {@code GET /openapi.json}. */
    public static final String OPENAPI_RESOURCE = "/openapi.json";

    private static final Logger LOG = LoggerFactory.getLogger(QueryServer.class);
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String JSON_TYPE = "application/json";
    /** The request attribute that holds the {@link Grant} of its token. */
    private static final String GRANT = "tspipe.grant";
    /** The chunk in which an answer's bytes are copied to the connection (most answers are smaller). */
    private static final int RESPONSE_COPY_BYTES = 8 * 1024;

    private final Javalin http;
    private final QueryMetrics metrics;
    private final String url;
    private final Forwarder forwarder;
    private final SeriesRouting routing;
    private final TokenFile tokens;
    private final PrometheusApi prometheus;

    private QueryServer(Javalin http, QueryMetrics metrics, String url, Forwarder forwarder, SeriesRouting routing,
                        TokenFile tokens, PrometheusApi prometheus) {
        this.http = http;
        this.prometheus = prometheus;
        this.metrics = metrics;
        this.url = url;
        this.forwarder = forwarder;
        this.routing = routing;
        this.tokens = tokens;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** The port the server listens on (the chosen one when the builder was given port 0). */
    public int port() {
        return http.port();
    }

    /** The advertised base URL, e.g. {@code http://127.0.0.1:8080} ({@code https://} with TLS). */
    public String url() {
        return url;
    }

    @Override
    public void close() {
        http.stop();
        prometheus.close();
        forwarder.close();
        routing.close();
        metrics.close();
        if (tokens != null) {
            tokens.close();
        }
    }

    /** Options of a query server; {@link #start()} binds the port and serves. */
    public static final class Builder {
        private KafkaStreams streams;
        private PipelineConfig pipelineConfig;
        private String bindHost = "0.0.0.0";
        private int port = 8080;
        private HostInfo advertised;
        private MeterRegistry meterRegistry;
        private long maxStandbyLag = 10_000;
        private Duration connectTimeout = Duration.ofSeconds(2);
        private Duration requestTimeout = Duration.ofSeconds(5);
        private Duration failoverWait = Duration.ofSeconds(1);
        private Path authTokens;
        private Duration tokensPoll = TokenFile.DEFAULT_POLL;
        private HttpTls tls;
        private ReadingProducer writes;
        private InfluxMapping influx = InfluxMapping.DEFAULT;
        private RemoteWrite remoteWrite = RemoteWrite.defaults();
        private long volumeGuidelineBytes = LocalPartitionStatistics.VOLUME_GUIDELINE_BYTES;

        private Builder() {
        }

        /**
         * Takes writes of InfluxDB line protocol ({@code POST /api/v2/write}, {@code POST /write}) and produces them with
         * this producer (owned by the caller); without it, the API takes no writes.
         */
        public Builder writes(ReadingProducer producer) {
            this.writes = producer;
            return this;
        }

        /** How line protocol and remote-write name devices and metrics (docs/ingest.md); the defaults otherwise. */
        public Builder writeMappings(InfluxMapping influx, RemoteWrite remoteWrite) {
            this.influx = Objects.requireNonNull(influx, "influx");
            this.remoteWrite = Objects.requireNonNull(remoteWrite, "remoteWrite");
            return this;
        }

        /**
         * Requires a bearer token on every route but {@code /health}, {@code /ready}, {@code /openapi.json} and the web
         * console ({@link Console}):
         * the tokens of this file ({@link dev.tspipe.query.auth.ApiTokens}), read again when it changes.
         */
        public Builder authTokens(Path file) {
            this.authTokens = file;
            return this;
        }

        /** How often the tokens file is read again; default 1 s. */
        public Builder tokensPoll(Duration poll) {
            this.tokensPoll = Objects.requireNonNull(poll, "poll");
            return this;
        }

        /** Serves HTTPS (and forwards to the other instances over HTTPS) instead of HTTP. */
        public Builder tls(HttpTls tls) {
            this.tls = tls;
            return this;
        }

        /** The Kafka Streams instance of the topology, with {@code application.server} = {@link #advertised}. */
        public Builder streams(KafkaStreams streams) {
            this.streams = streams;
            return this;
        }

        public Builder pipelineConfig(PipelineConfig pipelineConfig) {
            this.pipelineConfig = pipelineConfig;
            return this;
        }

        /** The interface to listen on; default {@code 0.0.0.0}. */
        public Builder bindHost(String bindHost) {
            this.bindHost = bindHost;
            return this;
        }

        /** The port to listen on; 0 picks a free one. Default 8080. */
        public Builder port(int port) {
            this.port = port;
            return this;
        }

        /** How other instances reach this one: the {@code application.server} of the streams instance. */
        public Builder advertised(HostInfo advertised) {
            this.advertised = advertised;
            return this;
        }

        /** Where meters go; a {@link PrometheusMeterRegistry} is created when absent. {@code /metrics} needs a Prometheus one. */
        public Builder meterRegistry(MeterRegistry meterRegistry) {
            this.meterRegistry = meterRegistry;
            return this;
        }

        /** The largest changelog lag, in records, of a standby replica that may answer; default 10,000. */
        public Builder maxStandbyLag(long maxStandbyLag) {
            if (maxStandbyLag < 0) {
                throw new IllegalArgumentException("maxStandbyLag must be >= 0, was " + maxStandbyLag);
            }
            this.maxStandbyLag = maxStandbyLag;
            return this;
        }

        /** Timeouts of requests forwarded to other instances; defaults 2 s to connect, 5 s in all. */
        public Builder forwardTimeouts(Duration connect, Duration request) {
            this.connectTimeout = Objects.requireNonNull(connect, "connect");
            this.requestTimeout = Objects.requireNonNull(request, "request");
            return this;
        }

        /**
         * How long a read that no instance can answer keeps trying before it is a 503: while partitions move,
         * a standby that becomes active is briefly queryable nowhere. Default 1 s; zero answers 503 at once.
         */
        public Builder failoverWait(Duration failoverWait) {
            if (failoverWait.isNegative()) {
                throw new IllegalArgumentException("failoverWait must be >= 0, was " + failoverWait);
            }
            this.failoverWait = failoverWait;
            return this;
        }

        /** The per-key volume over a lifecycle above which partition statistics flag a device (default 10 GB). */
        public Builder volumeGuidelineBytes(long bytes) {
            if (bytes <= 0) {
                throw new IllegalArgumentException("the volume guideline must be > 0 bytes, was " + bytes);
            }
            this.volumeGuidelineBytes = bytes;
            return this;
        }

        public QueryServer start() {
            Objects.requireNonNull(streams, "streams");
            Objects.requireNonNull(pipelineConfig, "pipelineConfig");
            Objects.requireNonNull(advertised, "advertised");
            MeterRegistry registry = meterRegistry != null ? meterRegistry : new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
            // Both read their files now: a wrong file stops the start with a message that names it.
            SslContextFactory.Server serverTls = tls == null ? null : tls.server();
            TokenFile tokens = authTokens == null ? null
                    : TokenFile.open(authTokens, pipelineConfig.keyLayout().multiTenant(), tokensPoll);
            QueryMetrics metrics = new QueryMetrics(registry, streams, tokens);
            Forwarder forwarder = new Forwarder(connectTimeout, requestTimeout, tls == null ? null : tls.client());
            SeriesRouting routing = new SeriesRouting(streams, advertised, pipelineConfig.readingsTopic(), maxStandbyLag);
            Routes routes = new Routes(streams, pipelineConfig.keyLayout(), registry, metrics, routing, forwarder,
                    requestTimeout, failoverWait, tokens, writes == null ? null
                    : new HttpWrites(writes, influx, remoteWrite, registry, Clock.systemUTC()), volumeGuidelineBytes);
            Javalin http = Javalin.create(config -> {
                config.startup.showJavalinBanner = false;
                config.startup.showOldJavalinVersionWarning = false;
                config.jetty.host = bindHost;
                config.jetty.port = port;
                config.jetty.threadPool = threadPool();
                config.jetty.modifyHttpConfiguration(HttpEdge::configure);
                // Javalin copies each answer into Jetty's output through a buffer of this size, allocated per
                // answer: its default (32 KiB) was half of what a query allocated, against answers of a few KiB.
                config.http.responseBufferSize = RESPONSE_COPY_BYTES;
                config.http.maxRequestSize = HttpWrites.MAX_BODY_BYTES;
                config.jetty.modifyServer(server -> server.setErrorHandler(JsonErrorPages.forServer()));
                config.jetty.modifyServletContextHandler(context -> {
                    context.setErrorHandler(JsonErrorPages.forServletContext());
                    context.addFilter(routes.bodyLimit, "/*", EnumSet.of(DispatcherType.REQUEST));
                });
                if (serverTls != null) {
                    // The only connector: Javalin adds its plain HTTP one only when none is configured.
                    config.jetty.addConnector((server, httpConfig) -> httpsConnector(server, httpConfig, serverTls));
                }
                config.requestLogger.http((ctx, millis) ->
                        metrics.request(ctx.method().name(), routeOf(ctx), ctx.statusCode(), millis));
                routes.addTo(config);
            });
            try {
                http.start();
            } catch (RuntimeException e) {
                routes.prometheus.close();
                forwarder.close();
                routing.close();
                metrics.close();
                if (tokens != null) {
                    tokens.close();
                }
                throw e;
            }
            QueryServer server = new QueryServer(http, metrics, (tls == null ? "http" : "https") + "://" + advertised.host()
                    + ":" + advertised.port(), forwarder, routing, tokens, routes.prometheus);
            LOG.info("Query API listening on {}:{}, advertised as {}; {}", bindHost, http.port(), server.url(),
                    tokens == null ? "no authentication (anyone who reaches the port reads every series)"
                            : "bearer tokens of " + tokens.path() + " required");
            if (tokens != null && tls == null) {
                LOG.warn("Bearer tokens over plain HTTP: anyone on the network path can read and reuse them; serve HTTPS "
                        + "(--tls-cert, --tls-key) outside a trusted network (docs/security.md)");
            }
            return server;
        }

        private ServerConnector httpsConnector(Server server, HttpConfiguration plain, SslContextFactory.Server tls) {
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

        private static String routeOf(Context ctx) {
            try {
                return ctx.endpoint().path;
            } catch (RuntimeException unmatched) {
                return "unmatched";
            }
        }
    }

    /** The endpoints: parameter parsing, routing plans and store reads put together. */
    static final class Routes {
        private final KafkaStreams streams;
        private final KeyLayout layout;
        private final MeterRegistry registry;
        private final QueryMetrics metrics;
        private final SeriesRouting routing;
        private final RoutedRead router;
        private final RoutedRead forwardedRouter;
        private final Forwarder forwarder;
        private final Duration statisticsTimeout;
        private final SeriesReader reader;
        private final LocalPartitionStatistics statistics;
        private final KeyspaceHeatmap heatmap;
        /** Null when the API is open. */
        private final TokenFile tokens;
        /** Null when the API takes no writes. */
        private final HttpWrites writes;
        private final PrometheusApi prometheus;
        private final DevicesApi devices;
        private final BodyLimit bodyLimit;

        Routes(KafkaStreams streams, KeyLayout layout, MeterRegistry registry, QueryMetrics metrics,
               SeriesRouting routing, Forwarder forwarder, Duration statisticsTimeout, Duration failoverWait,
               TokenFile tokens, HttpWrites writes, long volumeGuidelineBytes) {
            this.streams = streams;
            this.layout = layout;
            this.registry = registry;
            this.metrics = metrics;
            this.routing = routing;
            this.router = new RoutedRead(forwarder::get, routing::acceptableLocalLag, failoverWait);
            // A forwarded read does not wait: the instance that sent it tries its next target, and waits itself.
            this.forwardedRouter = new RoutedRead(forwarder::get, routing::acceptableLocalLag, Duration.ZERO);
            this.forwarder = forwarder;
            this.statisticsTimeout = statisticsTimeout;
            this.reader = new SeriesReader(layout);
            this.heatmap = new KeyspaceHeatmap(streams, layout);
            this.statistics = new LocalPartitionStatistics(streams, routing.self().host() + ":" + routing.self().port(),
                    heatmap::name, volumeGuidelineBytes);
            this.tokens = tokens;
            this.writes = writes;
            this.bodyLimit = new BodyLimit(writes == null ? List.of() : WRITE_PATHS);
            DeviceDirectory deviceTable = new DeviceDirectory(streams);
            this.prometheus = new PrometheusApi(layout, new Partitions(), reader, this::tenantAllowed, Clock.systemUTC(),
                    deviceTable::labels);
            this.devices = devicesApi(deviceTable, failoverWait);
        }

        /** The device routes, reading partitions as the other reads do (docs/query-api.md, "Devices"). */
        private DevicesApi devicesApi(DeviceDirectory directory, Duration failoverWait) {
            // Requests to other instances wait here, one per instance at a time; idle threads end after a minute.
            ExecutorService fanOutThreads = Executors.newCachedThreadPool(task -> {
                Thread thread = new Thread(task, "devices-fan-out");
                thread.setDaemon(true);
                return thread;
            });
            PartitionFanOut fanOut = new PartitionFanOut(p -> routing.planPartition(StoreNames.LATEST, p, false),
                    routing::acceptableLocalLag, StoreNames.LATEST, failoverWait, fanOutThreads);
            PartitionFanOut forwardedFanOut = new PartitionFanOut(p -> routing.planPartition(StoreNames.LATEST, p, true),
                    routing::acceptableLocalLag, StoreNames.LATEST, Duration.ZERO, fanOutThreads);
            DevicesApi.Tenants tenants = new DevicesApi.Tenants() {
                @Override
                public String allowed(Context ctx, String named) {
                    return tenantAllowed(ctx, named);
                }

                @Override
                public String required(Context ctx) {
                    return tenant(ctx);
                }
            };
            return new DevicesApi(directory, layout, reader, tenants, (read, p, stale) -> local(read, p, stale), fanOut,
                    forwardedFanOut, routing::partitionCount, forwarder::get,
                    new DevicesApi.Counters(metrics::forwarded, metrics::stale));
        }

        /** Every route, as {@code GET <path>}; the OpenAPI test compares it with the document. */
        static final List<String> PATHS = List.of(
                "/api/v1/series/{device}/{metric}/readings",
                "/api/v1/series/{device}/{metric}/latest",
                "/api/v1/series/{device}/{metric}/rollups",
                "/api/v1/series/{device}/{metric}/downsample",
                "/api/v1/devices/{device}/metrics",
                "/api/v1/stats/partitions",
                "/health", "/ready", "/metrics", "/openapi.json",
                "/api/v1/stats/keyspace",
                "/api/v1/devices", "/api/v1/devices/{device}", "/api/v1/metrics/{metric}/latest");

        /** The write routes (POST): InfluxDB 2's and InfluxDB 1's line protocol, Prometheus remote-write. */
        static final List<String> WRITE_PATHS = List.of("/api/v2/write", "/write", "/api/v1/write");

        private static final String PROMETHEUS_PREFIX = "/prometheus/";

        /** With tokens, the scope a route needs; {@code OPEN}: anyone (probes, the API's description). */
        private static final Scope OPEN = null;

        void addTo(io.javalin.config.JavalinConfig config) {
            get(config, PATHS.get(0), Scope.READ, this::readings);
            get(config, PATHS.get(1), Scope.READ, this::latest);
            get(config, PATHS.get(2), Scope.READ, this::rollups);
            get(config, PATHS.get(3), Scope.READ, this::downsample);
            get(config, PATHS.get(4), Scope.READ, this::deviceMetrics);
            get(config, PATHS.get(5), Scope.ADMIN, this::partitionStatistics);
            get(config, PATHS.get(6), OPEN, this::health);
            get(config, PATHS.get(7), OPEN, this::ready);
            get(config, PATHS.get(8), Scope.ADMIN, this::prometheus);
            get(config, PATHS.get(9), OPEN, this::openApi);
            get(config, PATHS.get(10), Scope.ADMIN, this::keyspace);
            Console.routes().forEach((path, handler) -> get(config, path, OPEN, handler));
            devices.routes().forEach((path, handler) -> get(config, path, Scope.READ, handler));
            devices.internalRoutes().forEach((path, handler) -> config.routes.post(path, guarded(Scope.READ, handler)));
            prometheus.routes().forEach((path, handler) -> {
                get(config, path, Scope.READ, handler);
                config.routes.post(path, guarded(Scope.READ, handler));
            });
            if (writes != null) {
                config.routes.post(WRITE_PATHS.get(0), ctx -> write(ctx, ctx.queryParam("bucket"), "bucket"));
                config.routes.post(WRITE_PATHS.get(1), ctx -> write(ctx, ctx.queryParam("db"), "db"));
                config.routes.post(WRITE_PATHS.get(2), this::remoteWrite);
            }

            config.routes.exception(ApiException.class, (e, ctx) -> error(ctx, e));
            config.routes.exception(InvalidStateStoreException.class, (e, ctx) ->
                    error(ctx, ApiException.unavailable("the store is not queryable right now (" + e.getMessage() + "); retry")));
            // Javalin's own refusals: no route (404, or 405 for a method other than GET), or a 4xx it found.
            config.routes.exception(HttpResponseException.class, (e, ctx) -> {
                String method = ctx.req().getMethod();
                boolean prometheusRoute = ctx.path().startsWith(PROMETHEUS_PREFIX);
                if (e.getStatus() == 404 && prometheusRoute && !Set.of("GET", "HEAD", "POST").contains(method)) {
                    ctx.header("Allow", "GET, HEAD, POST");
                    error(ctx, 405, "method-not-allowed", "Prometheus' API answers GET, and POST with a form body");
                } else if (e.getStatus() == 404 && !prometheusRoute && !method.equals("GET") && !method.equals("HEAD")) {
                    ctx.header("Allow", "GET, HEAD");
                    error(ctx, 405, "method-not-allowed", "this API answers GET (and HEAD) only; the routes are listed "
                            + "at GET /openapi.json");
                } else if (e.getStatus() == 404) {
                    error(ctx, 404, "not-found", noRoute(ctx));
                } else {
                    Answers.Error body = JsonErrorPages.describe(JsonErrorPages.statusFor(e.getStatus()), e.getMessage());
                    error(ctx, JsonErrorPages.statusFor(e.getStatus()), body.error(), body.message());
                }
            });
            // Only a fault of the server gets here: every bad input is refused above as a 4xx.
            config.routes.exception(Exception.class, (e, ctx) -> {
                LOG.error("Query {} {} failed", ctx.method(), ctx.path(), e);
                error(ctx, 500, "internal", "the server failed to answer; the error is logged on "
                        + routing.self().host() + ":" + routing.self().port());
            });
            config.routes.error(404, ctx -> {
                String body = ctx.result();
                if (body == null || body.isEmpty()) {
                    error(ctx, 404, "not-found", noRoute(ctx));
                }
            });
            config.routes.after(Routes::closesAfterAnswer);
            config.routes.before(ctx -> {
                MethodOverride.refuse(ctx);
                UriCheck.requireWellFormedPath(ctx.path());
                UriCheck.requireWellFormedQuery(ctx.queryString());
                bodyLimit.requireDeclaredWithin(ctx);
            });
        }

        /**
         * {@code Connection: close} on an answer after which Jetty closes the connection (and on no other, or no
         * connection would be kept): after HTTP/1.0 without keep-alive, and when the route left a declared body unread
         * or unfinished: Jetty reads what has arrived once the answer is written and closes the
         * connection if the body is not at its end, without saying so in the answer it already sent; a client that
         * keeps the connection sends its next request into a closed socket (HttpFuzzIT found these). Said here, the
         * client opens a new connection instead.
         */
        private static void closesAfterAnswer(Context ctx) {
            if (!persistent(ctx) || !bodyFinished(ctx)) {
                ctx.header("Connection", "close");
            }
        }

        /**
         * Whether the connection outlives the exchange as far as the request goes: not for HTTP/1.0 without
         * keep-alive, whose answer Jetty sends under an HTTP/1.1 status line without {@code Connection: close}.
         */
        private static boolean persistent(Context ctx) {
            return ServletContextRequest.getServletContextRequest(ctx.req()).getConnectionMetaData().isPersistent();
        }

        private static boolean bodyFinished(Context ctx) {
            long declared = ctx.req().getContentLengthLong();
            if (declared == 0 || declared < 0 && ctx.header("Transfer-Encoding") == null) {
                // No body: Jetty's isFinished() is false until a read has seen the end, which no route does.
                return true;
            }
            try {
                return ctx.req().getInputStream().isFinished();
            } catch (IllegalStateException readThroughTheReader) {
                return true;   // the route read the body as text, to its end
            } catch (java.io.IOException e) {
                return false;
            }
        }

        /**
         * A GET route, and the same handler for HEAD: by itself Javalin answers the HEAD of a GET route with an
         * empty 200 without running it, so a HEAD of /ready would say ready while Kafka Streams is not. With tokens,
         * the handler runs only for a token of scope {@code needed}: the check belongs to the route, so no spelling
         * of a path (a trailing slash, another case) reaches a handler without it.
         */
        private void get(io.javalin.config.JavalinConfig config, String path, Scope needed, Handler handler) {
            Handler guarded = guarded(needed, handler);
            config.routes.get(path, guarded);
            config.routes.head(path, guarded);
        }

        /** The handler, run only for a token of scope {@code needed} when tokens are on. */
        private Handler guarded(Scope needed, Handler handler) {
            return tokens == null || needed == OPEN ? handler : ctx -> {
                authorize(ctx, needed);
                handler.handle(ctx);
            };
        }

        /** The grant of the request's bearer token, kept for {@link #tenant}; 401 or 403 when the token does not allow the route. */
        private void authorize(Context ctx, Scope needed) {
            String header = ctx.header("Authorization");
            if (header == null || header.isBlank()) {
                throw ApiException.unauthorized("this API needs a token: send the header 'Authorization: Bearer <token>' "
                        + "(tspipe tokens create makes one)");
            }
            String token = BearerTokens.token(header);
            if (token == null) {
                throw ApiException.unauthorized("the Authorization header must be 'Bearer <token>'");
            }
            Grant grant = tokens.tokens().find(token).orElseThrow(() -> ApiException.unauthorized(
                    "the token is not known here: revoked, mistyped, or made for another deployment"));
            if (!grant.scope().includes(needed)) {
                throw ApiException.forbidden("this token may " + grant.scope().label() + "; " + ctx.path() + " needs a token of "
                        + "scope " + needed.label());
            }
            ctx.attribute(GRANT, grant);
        }

        private static String noRoute(Context ctx) {
            String path = ctx.path();
            return "no route GET " + (path.length() > 200 ? path.substring(0, 200) + "..." : path)
                    + "; the routes are listed at GET /openapi.json";
        }

        // -----------------------------------------------------------------------------------
        // Series endpoints

        private void readings(Context ctx) {
            SeriesId series = series(ctx);
            PageRequest request = page(ctx, "readings", series);
            routed(ctx, StoreNames.RAW, series.distributionKey(), stores -> reader.readings(stores, request));
        }

        private void rollups(Context ctx) {
            SeriesId series = series(ctx);
            RollupStep step = step(ctx.queryParam("step"));
            PageRequest request = page(ctx, "rollups-" + step.label(), series);
            routed(ctx, StoreNames.rollup(step), series.distributionKey(), stores -> reader.rollups(stores, step, request));
        }

        /**
         * A write of line protocol: a token of scope write when tokens are on (InfluxDB's {@code Token} scheme taken too);
         * 204 once Kafka acknowledged every reading.
         */
        private void write(Context ctx, String namedTenant, String tenantParameter) {
            if (tokens != null) {
                authorize(ctx, Scope.WRITE);
            }
            String tenant = writeTenant(ctx, namedTenant, tenantParameter);
            int written = writes.lineProtocol(ctx.bodyAsBytes(), ctx.header("Content-Encoding"), ctx.queryParam("precision"),
                    tenant);
            LOG.debug("Wrote {} readings of line protocol", written);
            ctx.status(204);
        }

        /** Prometheus remote-write 1.0: the tenant from the token, or {@code tenant=} with a token for every tenant. */
        private void remoteWrite(Context ctx) {
            if (tokens != null) {
                authorize(ctx, Scope.WRITE);
            }
            String tenant = writeTenant(ctx, ctx.queryParam("tenant"), "tenant");
            int written = writes.remoteWrite(ctx.bodyAsBytes(), tenant);
            LOG.debug("Wrote {} readings of remote-write", written);
            ctx.status(204);
        }

        /**
         * The tenant of a write: none in a single-tenant deployment (the bucket or database is then only a name); else the
         * token's tenant, or with a token for every tenant (or no tokens) the one the bucket or database names.
         */
        private String writeTenant(Context ctx, String named, String parameter) {
            if (!layout.multiTenant()) {
                return null;
            }
            Grant grant = ctx.attribute(GRANT);
            boolean namesOne = named != null && !named.isEmpty();
            if (grant != null && !grant.everyTenant()) {
                if (namesOne && !named.equals(grant.tenant())) {
                    throw ApiException.forbidden("this token writes tenant '" + grant.tenant() + "' only; leave " + parameter
                            + " out, or name " + grant.tenant());
                }
                return grant.tenant();
            }
            if (!namesOne) {
                throw ApiException.badParameter(parameter, "this deployment is multi-tenant: " + parameter + " names the tenant");
            }
            return named;
        }

        /** Buckets of any step, from the coarsest stored resolution that answers exactly (docs/query-api.md). */
        private void downsample(Context ctx) {
            SeriesId series = series(ctx);
            Downsampler.Request request = DownsampleParameters.parse(ctx.queryParam("from"), ctx.queryParam("to"),
                    ctx.queryParam("step"), ctx.queryParam("align"), ctx.queryParam("fn"), ctx.queryParam("fill"));
            Resolution source = Resolution.choose(request);
            routed(ctx, source.store(), series.distributionKey(), stores -> reader.downsample(stores, series, request, source));
        }

        private void latest(Context ctx) {
            SeriesId series = series(ctx);
            routed(ctx, StoreNames.LATEST, series.distributionKey(), stores -> reader.latest(stores, series)
                    .orElseThrow(() -> ApiException.notFound("unknown-series", "no reading of series '" + series.metric()
                            + "' of device '" + series.device() + "' is stored; check the names "
                            + "(GET /api/v1/devices/{device}/metrics lists a device's metrics)")));
        }

        private void deviceMetrics(Context ctx) {
            String tenant = tenant(ctx);
            String device = ctx.pathParam("device");
            try {
                RowKey.deviceRange(layout, tenant, device);
            } catch (InvalidKeyException e) {
                throw ApiException.badParameter("device", e.getMessage());
            }
            routed(ctx, StoreNames.LATEST, DistributionKey.of(tenant, device), stores -> {
                Answers.DeviceMetrics answer = reader.deviceMetrics(stores, tenant, device);
                if (answer.metrics().isEmpty()) {
                    throw ApiException.notFound("unknown-device", "no reading of device '" + device + "' is stored");
                }
                return answer.withMetadata(devices.metadata(tenant, device));
            });
        }

        private SeriesId series(Context ctx) {
            SeriesId series = new SeriesId(tenant(ctx), ctx.pathParam("device"), ctx.pathParam("metric"));
            try {
                RowKey.seriesPrefix(layout, series);
            } catch (InvalidKeyException e) {
                throw ApiException.badParameter("device/metric", e.getMessage());
            }
            return series;
        }

        /**
         * The tenant asked for. A token bound to a tenant reads that tenant only: without a tenant parameter the
         * request is for the token's tenant, with another one it is refused (403, whether or not that tenant has
         * data: the answer tells nothing about other tenants).
         */
        private String tenant(Context ctx) {
            String tenant = tenantAllowed(ctx, ctx.queryParam("tenant"));
            if (layout.multiTenant() && tenant == null) {
                throw ApiException.badParameter("tenant", "this deployment is multi-tenant: add ?tenant=<tenant id>");
            }
            return tenant;
        }

        /**
         * The one tenant a request may read: none in a single-tenant deployment (naming one is a 400); else the
         * tenant of its token (naming another is a 403), or the one it names, or null when it names none.
         */
        private String tenantAllowed(Context ctx, String named) {
            boolean namesOne = named != null && !named.isEmpty();
            if (!layout.multiTenant()) {
                if (named != null) {
                    throw ApiException.badParameter("tenant", "this deployment is single-tenant: remove the tenant parameter");
                }
                return null;
            }
            Grant grant = ctx.attribute(GRANT);
            if (grant != null && !grant.everyTenant()) {
                if (namesOne && !named.equals(grant.tenant())) {
                    throw ApiException.forbidden("this token reads tenant '" + grant.tenant() + "' only; ask without the "
                            + "tenant parameter, or with tenant=" + grant.tenant());
                }
                return grant.tenant();
            }
            return namesOne ? named : null;
        }

        private static PageRequest page(Context ctx, String kind, SeriesId series) {
            return PageRequest.parse(kind, series, ctx.queryParam("from"), ctx.queryParam("to"), ctx.queryParam("limit"),
                    ctx.queryParam("order"), ctx.queryParam("cursor"));
        }

        static RollupStep step(String text) {
            if (text == null || text.isEmpty()) {
                throw ApiException.badParameter("step", "missing; use one of 1m, 1h, 1d");
            }
            try {
                return RollupStep.fromLabel(text);
            } catch (IllegalArgumentException e) {
                throw ApiException.badParameter("step", "'" + text + "' is not a rollup step; use one of 1m, 1h, 1d");
            }
        }

        /** Answers from the first target of the routing plan that can; 503 when none can. */
        private void routed(Context ctx, String store, String distributionKey, Function<SeriesReader.Stores, Object> read) {
            boolean forwarded = ctx.header(Forwarder.FORWARDED_HEADER) != null;
            byte[] key = distributionKey.getBytes(StandardCharsets.UTF_8);
            String query = ctx.queryString();
            RoutedAnswer<Object> answer = (forwarded ? forwardedRouter : router).answer(store,
                    () -> routing.plan(store, key, forwarded),
                    (partition, stale) -> local(read, partition, stale),
                    new Forwarder.Request(ctx.path() + (query == null ? "" : "?" + query), ctx.header("Authorization")));
            if (answer instanceof RoutedAnswer.Local<Object> local) {
                if (local.stale()) {
                    metrics.stale();
                    ctx.header(STALE_HEADER, "true");
                    ctx.header(LAG_HEADER, Long.toString(local.lag().getAsLong()));
                }
                json(ctx, 200, local.value());
            } else if (answer instanceof RoutedAnswer.Forwarded<Object> remote) {
                metrics.forwarded();
                remote.answer().headers().forEach((name, values) -> values.forEach(value -> ctx.header(name, value)));
                ctx.status(remote.answer().status()).result(remote.answer().body());
            } else if (answer instanceof RoutedAnswer.NoneAnswered<Object> none) {
                throw ApiException.unavailable("no instance can answer for '" + distributionKey + "' right now ("
                        + String.join("; ", none.attempts()) + "); retry");
            }
        }

        private <T> Optional<T> local(Function<SeriesReader.Stores, T> read, int partition, boolean stale) {
            return LocalCopy.read(() -> read.apply(name -> store(name, partition, stale)), stale);
        }

        /** Whole partitions for the Prometheus API, read as a series is: active task, standbys, other instances. */
        private final class Partitions implements PartitionReads {
            @Override
            public OptionalInt partitionCount() {
                return routing.partitionCount();
            }

            @Override
            public Answer read(int partition, Function<SeriesReader.Stores, PartitionSeries> read, Forwarder.Request remote) {
                return answerOf(router.answer(StoreNames.LATEST, () -> routing.planPartition(StoreNames.LATEST, partition, false),
                        (p, stale) -> local(read, p, stale), remote));
            }

            @Override
            public Answer readHere(int partition, Function<SeriesReader.Stores, PartitionSeries> read) {
                return answerOf(forwardedRouter.answer(StoreNames.LATEST,
                        () -> routing.planPartition(StoreNames.LATEST, partition, true), (p, stale) -> local(read, p, stale), null));
            }

            private Answer answerOf(RoutedAnswer<PartitionSeries> answer) {
                if (answer instanceof RoutedAnswer.Local<PartitionSeries> local) {
                    return new Answer(local.value(), local.lag(), List.of());
                }
                if (answer instanceof RoutedAnswer.Forwarded<PartitionSeries> forwarded) {
                    Forwarder.Answer remote = forwarded.answer();
                    String who = forwarded.host().host() + ":" + forwarded.host().port();
                    if (remote.status() != 200) {
                        // A 4xx of the instance that has the partition (too many series, say) is the answer.
                        throw PrometheusApi.relayedError(remote.status(), remote.body());
                    }
                    metrics.forwarded();
                    try {
                        String lag = header(remote, LAG_HEADER);
                        return new Answer(PartitionSeries.fromJson(remote.body()),
                                lag == null ? OptionalLong.empty() : OptionalLong.of(Long.parseLong(lag)), List.of());
                    } catch (IOException | NumberFormatException e) {
                        return new Answer(null, OptionalLong.empty(), List.of(who + " sent an answer that is not a "
                                + "partition's series: " + e.getMessage()));
                    }
                }
                return new Answer(null, OptionalLong.empty(), ((RoutedAnswer.NoneAnswered<PartitionSeries>) answer).attempts());
            }

            private static String header(Forwarder.Answer answer, String name) {
                return answer.headers().entrySet().stream().filter(e -> e.getKey().equalsIgnoreCase(name))
                        .flatMap(e -> e.getValue().stream()).findFirst().orElse(null);
            }
        }

        private ReadOnlyKeyValueStore<Bytes, byte[]> store(String name, int partition, boolean stale) {
            StoreQueryParameters<ReadOnlyKeyValueStore<Bytes, byte[]>> parameters = StoreQueryParameters
                    .fromNameAndType(name, QueryableStoreTypes.<Bytes, byte[]>keyValueStore()).withPartition(partition);
            return streams.store(stale ? parameters.enableStaleStores() : parameters);
        }

        // -----------------------------------------------------------------------------------
        // Statistics, health, metrics, OpenAPI

        /** Every instance's local statistics of its partitions, merged ({@link #fromEveryInstance}). */
        private void partitionStatistics(Context ctx) {
            ObjectNode answer = JSON.createObjectNode();
            ArrayNode partitions = answer.putArray("partitions");
            List<JsonNode> all = new ArrayList<>();
            statistics.collect().forEach(p -> all.add(JSON.valueToTree(p)));
            answer.set("instances", fromEveryInstance(ctx, "/api/v1/stats/partitions", all));
            all.sort(Comparator.comparingInt(p -> p.path("partition").asInt()));
            partitions.addAll(all);
            json(ctx, 200, answer);
        }

        /** The key-space heatmap of every instance's partitions (docs/query-api.md, "Key-space heatmap"). */
        private void keyspace(Context ctx) {
            KeyspaceHeatmap.Request request = KeyspaceHeatmap.Request.parse(ctx.queryParam("from"), ctx.queryParam("to"),
                    ctx.queryParam("metric"), ctx.queryParam("ranges"), System.currentTimeMillis());
            List<JsonNode> partitions = new ArrayList<>();
            heatmap.local(request).forEach(p -> partitions.add(JSON.valueToTree(p)));
            if (ctx.header(Forwarder.FORWARDED_HEADER) != null) {
                json(ctx, 200, JSON.createObjectNode().set("partitions", JSON.valueToTree(partitions)));
                return;
            }
            ArrayNode instances = fromEveryInstance(ctx, "/api/v1/stats/keyspace?" + request.query(), partitions);
            ObjectNode answer = KeyspaceHeatmap.answer(JSON, request, partitions, routing.partitionCount());
            answer.set("instances", instances);
            json(ctx, 200, answer);
        }

        /**
         * Adds the {@code partitions} of every other instance's answer to {@code pathAndQuery} to {@code partitions}, and
         * lists the instances (this one first) with {@code reachable: true|false}. This instance asks the others all at
         * once, with the forwarding header (which makes them answer with their own partitions only), and waits for them
         * at most the forwarding request timeout; one that has not answered by then is unreachable. A forwarded request
         * asks nobody.
         */
        private ArrayNode fromEveryInstance(Context ctx, String pathAndQuery, List<JsonNode> partitions) {
            ArrayNode instances = JSON.createArrayNode();
            instances.addObject().put("host", routing.self().host() + ":" + routing.self().port()).put("reachable", true);
            if (ctx.header(Forwarder.FORWARDED_HEADER) != null) {
                return instances;
            }
            List<HostInfo> others = otherClients().stream().map(StreamsMetadata::hostInfo).toList();
            forwarder.getAll(others, new Forwarder.Request(pathAndQuery, ctx.header("Authorization")), statisticsTimeout)
                    .forEach((host, remote) -> {
                        boolean reachable = false;
                        if (remote.isPresent() && remote.get().status() == 200) {
                            try {
                                JsonNode body = JSON.readTree(remote.get().body());
                                body.path("partitions").forEach(partitions::add);
                                reachable = true;
                            } catch (IOException e) {
                                LOG.warn("Instance {} sent statistics that are not JSON: {}", host, e.toString());
                            }
                        }
                        instances.addObject().put("host", host.host() + ":" + host.port()).put("reachable", reachable);
                    });
            return instances;
        }

        private List<StreamsMetadata> otherClients() {
            try {
                return streams.metadataForAllStreamsClients().stream()
                        .filter(client -> !client.hostInfo().equals(routing.self())).toList();
            } catch (RuntimeException notYet) {
                return List.of();
            }
        }

        /**
         * Liveness: up while Kafka Streams is CREATED (the server starts before it), REBALANCING or RUNNING;
         * 503 once it is in or on its way to ERROR or NOT_RUNNING, states it never leaves by itself.
         */
        private void health(Context ctx) {
            KafkaStreams.State state = streams.state();
            if (StreamsStates.alive(state)) {
                json(ctx, 200, JSON.createObjectNode().put("status", "up").put("streams", state.name())
                        .put("message", StreamsStates.meaning(state)));
            } else {
                json(ctx, 503, JSON.createObjectNode().put("error", "down").put("message", StreamsStates.meaning(state))
                        .put("streams", state.name()));
            }
        }

        /** Readiness: 200 only while Kafka Streams is RUNNING, else 503 with {@code Retry-After}. */
        private void ready(Context ctx) {
            KafkaStreams.State state = streams.state();
            if (state == KafkaStreams.State.RUNNING) {
                json(ctx, 200, JSON.createObjectNode().put("status", "ready").put("streams", state.name())
                        .put("message", StreamsStates.meaning(state)));
            } else {
                ctx.header("Retry-After", "1");
                json(ctx, 503, JSON.createObjectNode().put("error", "unavailable")
                        .put("message", "not ready: " + StreamsStates.meaning(state)).put("streams", state.name()));
            }
        }

        private void prometheus(Context ctx) {
            if (!(registry instanceof PrometheusMeterRegistry prometheus)) {
                throw ApiException.notFound("no-prometheus", "this server's meters go to a "
                        + registry.getClass().getSimpleName() + ", not to a Prometheus registry");
            }
            ctx.contentType("text/plain; version=0.0.4; charset=utf-8").result(prometheus.scrape());
        }

        private void openApi(Context ctx) {
            ctx.contentType(JSON_TYPE).result(openApiDocument());
        }

        static byte[] openApiDocument() {
            try (InputStream in = QueryServer.class.getResourceAsStream(OPENAPI_RESOURCE)) {
                if (in == null) {
                    throw new IllegalStateException(OPENAPI_RESOURCE + " is missing from the classpath");
                }
                return in.readAllBytes();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        // -----------------------------------------------------------------------------------

        private static void json(Context ctx, int status, Object body) {
            try {
                ctx.status(status).contentType(JSON_TYPE).result(JSON.writeValueAsBytes(body));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        /** InfluxDB 2's error code of a status (its API's {@code Error.code}). */
        private static String influxCode(int status) {
            return switch (status) {
                case 400 -> "invalid";
                case 401 -> "unauthorized";
                case 403 -> "forbidden";
                case 404 -> "not found";
                case 413 -> "request too large";
                case 429 -> "too many requests";
                case 503 -> "unavailable";
                default -> status >= 500 ? "internal error" : "invalid";
            };
        }

        static void error(Context ctx, ApiException e) {
            if (e.retryAfterSeconds() != null) {
                ctx.header("Retry-After", e.retryAfterSeconds());
            }
            if (e.wwwAuthenticate() != null) {
                ctx.header("WWW-Authenticate", e.wwwAuthenticate());
            }
            error(ctx, e.status(), e.code(), e.getMessage(), e.line());
        }

        private static void error(Context ctx, int status, String code, String message) {
            error(ctx, status, code, message, null);
        }

        /**
         * The error in the shape the route's clients read: Prometheus' envelope under {@code /prometheus/}, InfluxDB 2's
         * ({@code code}, {@code message}, {@code line}) on {@code /api/v2/write}, InfluxDB 1's ({@code error}, {@code line})
         * on {@code /write}, tspipe's ({@code error}: a code, {@code message}) elsewhere.
         */
        private static void error(Context ctx, int status, String code, String message, Integer line) {
            if (ctx.path().equals(WRITE_PATHS.get(0)) || ctx.path().equals(WRITE_PATHS.get(1))) {
                ObjectNode body = JSON.createObjectNode();
                if (ctx.path().equals(WRITE_PATHS.get(0))) {
                    body.put("code", influxCode(status)).put("message", message);
                } else {
                    body.put("error", message);
                }
                if (line != null) {
                    body.put("line", line);
                }
                json(ctx, status, body);
                return;
            }
            if (ctx.path().startsWith(PROMETHEUS_PREFIX)) {
                // Prometheus' clients (Grafana, promtool) read its envelope, errors included.
                ctx.status(status).contentType(JSON_TYPE).result(PrometheusApi.error(status, code, message));
                return;
            }
            json(ctx, status, new Answers.Error(code, message));
        }
    }
}
