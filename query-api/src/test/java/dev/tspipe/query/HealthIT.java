package dev.tspipe.query;

import dev.tspipe.query.server.QueryServer;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tspipe.embedded.EmbeddedSchemaRegistry;
import dev.tspipe.embedded.junit.EmbeddedKafkaExtension;
import dev.tspipe.processor.topology.PipelineConfig;
import dev.tspipe.processor.topology.Topics;
import dev.tspipe.processor.topology.TspipeStreams;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse;
import org.apache.kafka.streams.state.HostInfo;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@code /health} and {@code /ready} of nodes on the embedded broker: one that runs, and one whose Kafka
 * Streams instance went to ERROR (its input topic does not exist, and its uncaught-exception handler shuts
 * the client down).
 */
class HealthIT {

    @RegisterExtension
    static final EmbeddedKafkaExtension KAFKA = new EmbeddedKafkaExtension();

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient CLIENT = HttpClient.newHttpClient();

    @TempDir
    static Path stateDir;

    private static EmbeddedSchemaRegistry registry;

    @BeforeAll
    static void startRegistry() {
        registry = EmbeddedSchemaRegistry.builder().bootstrapServers(KAFKA.broker().bootstrapServers()).start();
        KAFKA.broker().createTopic(Topics.DEVICES, 1);
    }

    @AfterAll
    static void stopRegistry() {
        if (registry != null) {
            registry.close();
        }
    }

    private static KafkaStreams streams(String app, String topic) {
        PipelineConfig config = config(topic);
        Map<String, Object> props = new HashMap<>();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, app);
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, KAFKA.broker().bootstrapServers());
        props.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.resolve(app).toString());
        props.put(StreamsConfig.NUM_STREAM_THREADS_CONFIG, 1);
        props.put(StreamsConfig.REPLICATION_FACTOR_CONFIG, 1);
        props.put(StreamsConfig.APPLICATION_SERVER_CONFIG, "127.0.0.1:1");
        return TspipeStreams.create(config, props);
    }

    private static PipelineConfig config(String topic) {
        // The partition count is given: TspipeStreams would otherwise ask the broker, and refuse a missing topic.
        return new PipelineConfig(Map.of(PipelineConfig.SCHEMA_REGISTRY_URL, registry.url(),
                PipelineConfig.READINGS_TOPIC, topic, PipelineConfig.DLQ_TOPIC, topic + "-dlq",
                PipelineConfig.READINGS_PARTITIONS, 2));
    }

    private static QueryServer server(KafkaStreams streams, String topic) {
        return QueryServer.builder().streams(streams).pipelineConfig(config(topic)).bindHost("127.0.0.1").port(0)
                .advertised(new HostInfo("127.0.0.1", 1)).start();
    }

    private static HttpResponse<String> get(QueryServer server, String path) throws Exception {
        return CLIENT.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + path)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void aRunningNodeIsUpAndReady() throws Exception {
        KAFKA.broker().createTopic("health-ok-readings", 2);
        KAFKA.broker().createTopic("health-ok-readings-dlq", 1);
        try (KafkaStreams streams = streams("health-ok", "health-ok-readings");
             QueryServer server = server(streams, "health-ok-readings")) {
            streams.start();
            await().atMost(Duration.ofMinutes(1)).until(() -> streams.state() == KafkaStreams.State.RUNNING);
            HttpResponse<String> health = get(server, "/health");
            assertThat(health.statusCode()).isEqualTo(200);
            assertThat(JSON.readTree(health.body()).get("streams").asText()).isEqualTo("RUNNING");
            HttpResponse<String> ready = get(server, "/ready");
            assertThat(ready.statusCode()).isEqualTo(200);
            assertThat(JSON.readTree(ready.body()).get("status").asText()).isEqualTo("ready");
        }
    }

    @Test
    void aNodeWhoseStreamsAreInErrorIsDownAndNotReadyAndSaysToRestart() throws Exception {
        try (KafkaStreams streams = streams("health-error", "health-error-no-such-topic");
             QueryServer server = server(streams, "health-error-no-such-topic")) {
            // tspipe replaces a failed stream thread (StreamThreadReplacement); a user's handler that shuts the
            // client down instead is how a node reaches ERROR.
            streams.setUncaughtExceptionHandler(exception -> StreamThreadExceptionResponse.SHUTDOWN_CLIENT);
            streams.start();
            await().atMost(Duration.ofMinutes(1)).until(() -> streams.state() == KafkaStreams.State.ERROR);
            HttpResponse<String> health = get(server, "/health");
            assertThat(health.statusCode()).isEqualTo(503);
            assertThat(health.headers().firstValue("Content-Type")).hasValueSatisfying(t -> assertThat(t).startsWith("application/json"));
            JsonNode body = JSON.readTree(health.body());
            assertThat(body.get("error").asText()).isEqualTo("down");
            assertThat(body.get("streams").asText()).isEqualTo("ERROR");
            assertThat(body.get("message").asText()).contains("ERROR", "restart the instance");

            HttpResponse<String> ready = get(server, "/ready");
            assertThat(ready.statusCode()).isEqualTo(503);
            assertThat(ready.headers().firstValue("Retry-After")).contains("1");
            assertThat(JSON.readTree(ready.body()).get("message").asText()).contains("ERROR", "restart the instance");
        }
    }
}
