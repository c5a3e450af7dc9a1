package dev.tspipe.query;

import dev.tspipe.query.server.QueryServer;
import dev.tspipe.ingest.ReadingProducer;
import dev.tspipe.processor.topology.PipelineConfig;
import dev.tspipe.processor.topology.TspipeStreams;
import dev.tspipe.query.auth.ApiTokens;
import dev.tspipe.query.auth.Grant;
import dev.tspipe.query.auth.Scope;
import dev.tspipe.schemas.serde.AvroSerdeConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.state.HostInfo;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;

/**
 * A multi-tenant node with tokens and HTTP writes, without a broker (Kafka Streams is created, never started; the
 * writes' producer points at a closed port): one token per scope, bound to tenant acme but the admin's, which is for
 * every tenant. Each token has a letter, so that it has a case variant. For tests of the HTTP edge.
 */
final class TokenedNode implements AutoCloseable {

    private static final SecureRandom RANDOM = new SecureRandom();

    private final KafkaStreams streams;
    private final ReadingProducer writes;
    private final QueryServer server;
    private final Map<Scope, String> tokens;

    private TokenedNode(KafkaStreams streams, ReadingProducer writes, QueryServer server, Map<Scope, String> tokens) {
        this.streams = streams;
        this.writes = writes;
        this.server = server;
        this.tokens = tokens;
    }

    /** Starts a node named {@code name} with its files in {@code dir}. */
    static TokenedNode start(Path dir, String name) throws IOException {
        Map<Scope, String> tokens = new EnumMap<>(Scope.class);
        StringBuilder file = new StringBuilder();
        for (Scope scope : Scope.values()) {
            String token = letteredToken();
            tokens.put(scope, token);
            String tenant = scope == Scope.ADMIN ? Grant.EVERY_TENANT : "acme";
            file.append(ApiTokens.line(token, new Grant(tenant, scope, scope.label()))).append('\n');
        }
        Path tokenFile = dir.resolve("tokens");
        Files.writeString(tokenFile, file);
        String registry = "mock://" + name;
        PipelineConfig config = new PipelineConfig(Map.of(PipelineConfig.SCHEMA_REGISTRY_URL, registry,
                PipelineConfig.READINGS_PARTITIONS, 1, PipelineConfig.MULTI_TENANT, true));
        KafkaStreams streams = TspipeStreams.create(config, Map.of(
                StreamsConfig.APPLICATION_ID_CONFIG, name,
                StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:1",
                StreamsConfig.STATE_DIR_CONFIG, dir.resolve("state").toString(),
                StreamsConfig.APPLICATION_SERVER_CONFIG, "127.0.0.1:1"));
        // Nothing is sent: a write with the right token and an empty body has no reading to produce.
        ReadingProducer writes = ReadingProducer.create("readings", Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:1",
                AvroSerdeConfig.SCHEMA_REGISTRY_URL, registry, ProducerConfig.MAX_BLOCK_MS_CONFIG, 1_000));
        QueryServer server = QueryServer.builder().streams(streams).pipelineConfig(config).bindHost("127.0.0.1").port(0)
                .advertised(new HostInfo("127.0.0.1", 1)).authTokens(tokenFile).tokensPoll(Duration.ofHours(1))
                .writes(writes).start();
        return new TokenedNode(streams, writes, server, tokens);
    }

    /** A new token with at least one letter. */
    private static String letteredToken() {
        while (true) {
            String token = ApiTokens.newToken(RANDOM);
            if (!token.toUpperCase(Locale.ROOT).equals(token.toLowerCase(Locale.ROOT))) {
                return token;
            }
        }
    }

    QueryServer server() {
        return server;
    }

    int port() {
        return server.port();
    }

    /** The token of {@code scope}. */
    String token(Scope scope) {
        return tokens.get(scope);
    }

    @Override
    public void close() {
        server.close();
        writes.close();
        streams.close();
    }
}
