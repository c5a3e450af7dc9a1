package dev.tspipe.query;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tspipe.processor.topology.PipelineConfig;
import dev.tspipe.processor.topology.TspipeStreams;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.state.HostInfo;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The HTTP edge without a broker: a server over a Kafka Streams instance that was never started.
 * Parameters are checked before any store is touched, so every error shape can be tested here;
 * reads answer 503 (nothing is queryable yet).
 */
class QueryServerTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient CLIENT = HttpClient.newHttpClient();

    @TempDir
    static Path stateDir;

    private static KafkaStreams streams;
    private static QueryServer server;

    @BeforeAll
    static void start() {
        // No broker behind this instance: the partition count is given, not looked up.
        PipelineConfig config = new PipelineConfig(Map.of(PipelineConfig.SCHEMA_REGISTRY_URL, "mock://query-server-test",
                PipelineConfig.READINGS_PARTITIONS, 1));
        streams = TspipeStreams.create(config, Map.of(
                StreamsConfig.APPLICATION_ID_CONFIG, "query-server-test",
                StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:1",
                StreamsConfig.STATE_DIR_CONFIG, stateDir.toString(),
                StreamsConfig.APPLICATION_SERVER_CONFIG, "127.0.0.1:1"));
        server = QueryServer.builder().streams(streams).pipelineConfig(config).bindHost("127.0.0.1").port(0)
                .advertised(new HostInfo("127.0.0.1", 1)).start();
    }

    @AfterAll
    static void stop() {
        server.close();
        streams.close();
    }

    record Answer(int status, JsonNode body, HttpResponse<String> raw) {
    }

    static Answer get(String pathAndQuery) throws Exception {
        HttpResponse<String> response = CLIENT.send(HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + server.port() + pathAndQuery)).build(), HttpResponse.BodyHandlers.ofString());
        JsonNode body = response.headers().firstValue("Content-Type").orElse("").startsWith("application/json")
                ? JSON.readTree(response.body()) : null;
        return new Answer(response.statusCode(), body, response);
    }

    @Test
    void badParametersAre400WithTheParameterNamed() throws Exception {
        String series = "/api/v1/series/dev-1/temp/";
        Map<String, String> cases = Map.ofEntries(
                Map.entry(series + "readings?from=yesterday", "from"),
                Map.entry(series + "readings?to=soon", "to"),
                Map.entry(series + "readings?from=10&to=10", "from"),
                Map.entry(series + "readings?limit=0", "limit"),
                Map.entry(series + "readings?limit=abc", "limit"),
                Map.entry(series + "readings?order=sideways", "order"),
                Map.entry(series + "readings?cursor=garbage", "cursor"),
                Map.entry(series + "readings?tenant=acme", "tenant"),
                Map.entry(series + "rollups", "step"),
                Map.entry(series + "rollups?step=2m", "step"),
                Map.entry("/api/v1/series/" + "x".repeat(1100) + "/temp/latest", "device/metric"));
        for (Map.Entry<String, String> c : cases.entrySet()) {
            Answer answer = get(c.getKey());
            assertThat(answer.status()).as(c.getKey()).isEqualTo(400);
            assertThat(answer.body().get("error").asText()).isEqualTo("bad-parameter");
            assertThat(answer.body().get("message").asText()).as(c.getKey()).startsWith(c.getValue() + ": ");
        }
    }

    @Test
    void unknownRoutesAre404InJson() throws Exception {
        for (String path : List.of("/nope", "/api/v1/series/d/m", "/api/v1/series/d/m/readings/extra", "/api/v2/x")) {
            Answer answer = get(path);
            assertThat(answer.status()).as(path).isEqualTo(404);
            assertThat(answer.body().get("error").asText()).isEqualTo("not-found");
            assertThat(answer.raw().body()).doesNotContain("<html", "Exception");
        }
    }

    @Test
    void readsWhileNothingIsQueryableAre503WithRetryAfter() throws Exception {
        for (String path : List.of("/api/v1/series/d/m/readings", "/api/v1/series/d/m/latest",
                "/api/v1/series/d/m/rollups?step=1m", "/api/v1/devices/d/metrics")) {
            Answer answer = get(path);
            assertThat(answer.status()).as(path).isEqualTo(503);
            assertThat(answer.raw().headers().firstValue("Retry-After")).contains("1");
            assertThat(answer.body().get("error").asText()).isEqualTo("unavailable");
        }
    }

    @Test
    void healthReadinessMetricsAndStatistics() throws Exception {
        assertThat(get("/health").status()).isEqualTo(200);
        Answer ready = get("/ready");
        assertThat(ready.status()).isEqualTo(503);
        assertThat(ready.raw().headers().firstValue("Retry-After")).contains("1");
        Answer metrics = get("/metrics");
        assertThat(metrics.status()).isEqualTo(200);
        assertThat(metrics.raw().body()).contains("jvm_memory_used_bytes", "http_server_requests_seconds", "tspipe_store_rows");
        Answer statistics = get("/api/v1/stats/partitions");
        assertThat(statistics.status()).isEqualTo(200);
        assertThat(statistics.body().get("partitions").isArray()).isTrue();
    }

    /** Every documented route is served, and every served route is documented. */
    @Test
    void theOpenApiDocumentAndTheServerAgree() throws Exception {
        Answer document = get("/openapi.json");
        assertThat(document.status()).isEqualTo(200);
        assertThat(document.body().get("openapi").asText()).startsWith("3.");
        TreeSet<String> documented = new TreeSet<>();
        Iterator<Map.Entry<String, JsonNode>> paths = document.body().get("paths").fields();
        while (paths.hasNext()) {
            Map.Entry<String, JsonNode> path = paths.next();
            assertThat(path.getValue().fieldNames()).toIterable().as(path.getKey()).containsExactly("get");
            documented.add(path.getKey());
        }
        assertThat(documented).isEqualTo(new TreeSet<>(QueryServer.Routes.PATHS));
        List<String> missing = new ArrayList<>();
        for (String path : documented) {
            Answer answer = get(path.replace("{device}", "d").replace("{metric}", "m"));
            if (answer.body() != null && answer.body().path("error").asText().equals("not-found")) {
                missing.add(path);
            }
        }
        assertThat(missing).as("documented routes that the server does not have").isEmpty();
    }
}
