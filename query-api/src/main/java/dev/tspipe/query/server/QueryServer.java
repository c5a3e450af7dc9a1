package dev.tspipe.query.server;

import dev.tspipe.ingest.ReadingProducer;
import dev.tspipe.ingest.influx.InfluxMapping;
import dev.tspipe.ingest.prometheus.RemoteWrite;
import dev.tspipe.processor.topology.PipelineConfig;
import dev.tspipe.query.auth.TokenFile;
import dev.tspipe.query.http.Guard;
import dev.tspipe.query.http.HttpEdge;
import dev.tspipe.query.http.RouteTable;
import dev.tspipe.query.routing.Forwarder;
import dev.tspipe.query.routing.ScatterGather;
import dev.tspipe.query.routing.SeriesRouting;
import dev.tspipe.query.stats.LocalPartitionStatistics;
import dev.tspipe.query.tls.HttpTls;
import dev.tspipe.query.write.HttpWrites;
import io.javalin.Javalin;
import io.javalin.http.Context;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.state.HostInfo;
import org.eclipse.jetty.util.ssl.SslContextFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Objects;

/**
 * The HTTP query API of one tspipe instance (docs/design.md §6, {@code docs/query-api.md}), in the same
 * process as its Kafka Streams instance. Any instance answers any query: it reads the partition
 * that owns the series here, or forwards the request to the instance that owns it (one hop at
 * most), or answers from a caught-up standby replica during a rebalance.
 *
 * <p>This class puts the node together and owns what it made: the route groups ({@link RouteGroups}) behind one
 * route table ({@link RouteTable}), and every client, watcher and executor they use, closed together.
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

    private static final Logger LOG = LoggerFactory.getLogger(QueryServer.class);

    private final Javalin http;
    private final String url;
    private final RouteTable routes;
    private final Resources owned;

    private QueryServer(Javalin http, String url, RouteTable routes, Resources owned) {
        this.http = http;
        this.url = url;
        this.routes = routes;
        this.owned = owned;
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

    /** The routes this server registered, by group. */
    public RouteTable routes() {
        return routes;
    }

    @Override
    public void close() {
        http.stop();
        owned.close();
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
        private int readsInFlightPerQuery = ScatterGather.DEFAULT_PER_QUERY;

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
         * console ({@link dev.tspipe.query.console.Console}):
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

        /**
         * The most reads of one query in flight at once (partitions read here, requests to other instances), for a query
         * that needs many partitions or every instance; default {@value ScatterGather#DEFAULT_PER_QUERY}.
         */
        public Builder readsInFlightPerQuery(int reads) {
            if (reads < 1) {
                throw new IllegalArgumentException("readsInFlightPerQuery must be >= 1, was " + reads);
            }
            this.readsInFlightPerQuery = reads;
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
            Resources owned = new Resources();
            try {
                TokenFile tokens = owned.add(authTokens == null ? null
                        : TokenFile.open(authTokens, pipelineConfig.keyLayout().multiTenant(), tokensPoll));
                QueryMetrics metrics = owned.add(new QueryMetrics(registry, streams, tokens));
                Forwarder forwarder = owned.add(new Forwarder(connectTimeout, requestTimeout, tls == null ? null : tls.client()));
                SeriesRouting routing = owned.add(new SeriesRouting(streams, advertised, pipelineConfig.readingsTopic(),
                        maxStandbyLag));
                ScatterGather gather = owned.add(new ScatterGather(readsInFlightPerQuery));
                RouteTable routes = new RouteTable(RouteGroups.of(streams, pipelineConfig.keyLayout(), registry, metrics,
                        routing, forwarder, gather, requestTimeout, failoverWait, writes == null ? null
                                : new HttpWrites(writes, influx, remoteWrite, registry, Clock.systemUTC()),
                        volumeGuidelineBytes));
                Guard guard = new Guard(tokens);
                String self = advertised.host() + ":" + advertised.port();
                Javalin http = Javalin.create(config -> {
                    HttpEdge.configure(config, bindHost, port, serverTls);
                    config.requestLogger.http((ctx, millis) ->
                            metrics.request(ctx.method().name(), routeOf(ctx), ctx.statusCode(), millis));
                    routes.register(config, guard, self);
                });
                http.start();
                QueryServer server = new QueryServer(http, (tls == null ? "http" : "https") + "://" + self, routes, owned);
                LOG.info("Query API listening on {}:{}, advertised as {}; {}", bindHost, http.port(), server.url(),
                        tokens == null ? "no authentication (anyone who reaches the port reads every series)"
                                : "bearer tokens of " + tokens.path() + " required");
                if (tokens != null && tls == null) {
                    LOG.warn("Bearer tokens over plain HTTP: anyone on the network path can read and reuse them; serve "
                            + "HTTPS (--tls-cert, --tls-key) outside a trusted network (docs/security.md)");
                }
                return server;
            } catch (RuntimeException e) {
                owned.close();
                throw e;
            }
        }

        private static String routeOf(Context ctx) {
            try {
                return ctx.endpoint().path;
            } catch (RuntimeException unmatched) {
                return "unmatched";
            }
        }
    }
}
