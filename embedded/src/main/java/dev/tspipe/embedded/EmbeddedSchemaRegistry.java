package dev.tspipe.embedded;

import dev.tspipe.embedded.registry.RegistryRoutes;
import dev.tspipe.embedded.registry.RegistryServer;
import dev.tspipe.embedded.registry.RegistryUsers;
import dev.tspipe.embedded.registry.SchemasTopic;
import dev.tspipe.schemas.registry.SchemaRegistryCore;

import dev.tspipe.schemas.tls.PemFiles;
import io.javalin.Javalin;
import org.apache.kafka.clients.CommonClientConfigs;
import org.eclipse.jetty.util.ssl.SslContextFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * A Confluent-compatible schema registry (Avro) running in this JVM: the REST API that Avro
 * serdes use, over HTTP (on {@code 127.0.0.1} unless told otherwise), durable in a Kafka topic as
 * Confluent's is.
 *
 * <p>Every change is written to the compacted single-partition topic {@code _schemas} before
 * it is applied; on start the registry reads that topic from the beginning, so a registry
 * started again on the same broker data serves the same ids, subjects, versions and
 * compatibility levels. One registry per topic: it is the only writer.
 *
 * <pre>{@code
 * try (EmbeddedSchemaRegistry registry = EmbeddedSchemaRegistry.builder()
 *         .bootstrapServers(kafka.bootstrapServers()).port(8081).start()) {
 *     String url = registry.url();   // "http://127.0.0.1:8081"
 * }
 * }</pre>
 *
 * @see RegistryRoutes for the routes and the error shapes
 */
public final class EmbeddedSchemaRegistry implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(EmbeddedSchemaRegistry.class);
    private static final String ANY_ADDRESS = "0.0.0.0";

    private final Javalin http;
    private final SchemasTopic journal;
    private final String host;
    private final int port;
    private final String scheme;
    private boolean closed;

    private EmbeddedSchemaRegistry(Javalin http, SchemasTopic journal, String host, int port, String scheme) {
        this.scheme = scheme;
        this.http = http;
        this.journal = journal;
        this.host = host;
        this.port = port;
    }

    public static Builder builder() {
        return new Builder();
    }

    /**
     * The base URL, e.g. {@code http://127.0.0.1:8081}, as serdes on this machine take it in
     * {@code schema.registry.url} (loopback when the registry listens on every address).
     */
    public String url() {
        return scheme + "://" + (host.equals(ANY_ADDRESS) ? EmbeddedKafka.HOST : host) + ":" + port;
    }

    public int port() {
        return port;
    }

    /** Stops serving HTTP, then closes the journal's producer. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            http.stop();
        } finally {
            journal.close();
        }
        log.info("Schema registry on {} stopped", url());
    }

    /** Options of an embedded registry; {@link #start()} replays the journal, then serves. */
    public static final class Builder {
        private String bootstrapServers;
        private Map<String, Object> clientSettings = Map.of();
        private RegistryUsers users;
        private String host = EmbeddedKafka.HOST;
        private int port;
        private String topic = SchemasTopic.DEFAULT_NAME;
        private Path tlsCertificate;
        private Path tlsKey;
        private Predicate<String> writers;

        private Builder() {
        }

        /**
         * Requires, for every request that changes the registry (registering a schema, deleting a subject, setting a
         * compatibility level), an {@code Authorization} header that {@code writers} accepts; reads stay open.
         */
        public Builder writers(Predicate<String> writers) {
            this.writers = Objects.requireNonNull(writers, "writers");
            return this;
        }

        /** Serves HTTPS with this certificate (PEM, chain after it) and its unencrypted PKCS#8 key (PEM). */
        public Builder tls(Path certificatePem, Path keyPem) {
            this.tlsCertificate = Objects.requireNonNull(certificatePem, "certificatePem");
            this.tlsKey = Objects.requireNonNull(keyPem, "keyPem");
            return this;
        }

        /** The Kafka cluster that holds the registry's topic; required. */
        public Builder bootstrapServers(String bootstrapServers) {
            this.bootstrapServers = Objects.requireNonNull(bootstrapServers, "bootstrapServers");
            return this;
        }

        /** Kafka client settings of the journal's clients (security, ...); {@code bootstrapServers} wins over theirs. */
        public Builder clientSettings(Map<String, Object> clientSettings) {
            this.clientSettings = Map.copyOf(clientSettings);
            return this;
        }

        /** Requires HTTP basic authentication by one of these users for every request (Confluent's {@code BASIC}). */
        public Builder users(RegistryUsers users) {
            this.users = Objects.requireNonNull(users, "users");
            return this;
        }

        /** The address HTTP listens on: {@code 127.0.0.1} by default, {@code 0.0.0.0} for every address (a container). */
        public Builder host(String host) {
            this.host = Objects.requireNonNull(host, "host");
            return this;
        }

        /** The HTTP port; 0 (the default) picks a free port. */
        public Builder port(int port) {
            if (port < 0 || port > 65_535) {
                throw new IllegalArgumentException("port must be between 0 and 65535, got " + port);
            }
            this.port = port;
            return this;
        }

        /** The journal topic (Confluent's {@code kafkastore.topic}); {@code _schemas} by default. */
        public Builder topic(String topic) {
            this.topic = Objects.requireNonNull(topic, "topic");
            return this;
        }

        public EmbeddedSchemaRegistry start() {
            if (bootstrapServers == null) {
                throw new IllegalStateException("bootstrapServers is required");
            }
            // Read before anything starts: a certificate or key that cannot be used stops the start with its name.
            SslContextFactory.Server tls = null;
            if (tlsCertificate != null) {
                tls = new SslContextFactory.Server();
                tls.setSslContext(PemFiles.serverContext(tlsCertificate, tlsKey));
            }
            SslContextFactory.Server serverTls = tls;
            Map<String, Object> settings = new HashMap<>(clientSettings);
            settings.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
            SchemasTopic journal = SchemasTopic.open(settings, topic);
            try {
                SchemaRegistryCore core = new SchemaRegistryCore(journal);
                journal.replayInto(core);
                RegistryRoutes routes = new RegistryRoutes(core, Optional.ofNullable(users), Optional.ofNullable(writers));
                Javalin http = RegistryServer.start(routes, host, port, Optional.ofNullable(serverTls));
                EmbeddedSchemaRegistry registry = new EmbeddedSchemaRegistry(http, journal, host, http.port(),
                        serverTls == null ? "http" : "https");
                log.info("Schema registry ready on {} (journal topic {} on {})", registry.url(), topic, bootstrapServers);
                return registry;
            } catch (RuntimeException | Error e) {
                journal.close();
                throw e;
            }
        }
    }
}
