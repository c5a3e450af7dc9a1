package dev.tspipe.query;

import dev.tspipe.query.server.QueryServer;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tspipe.processor.topology.PipelineConfig;
import dev.tspipe.processor.topology.TspipeStreams;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.state.HostInfo;
import dev.tspipe.query.prometheus.PrometheusApi;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import dev.tspipe.query.http.Route;
import dev.tspipe.query.write.WriteRoutes;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
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
                Map.entry(series + "readings?limit=%C3%28", "limit"),
                Map.entry(series + "readings?from=%00", "from"),
                Map.entry(series + "readings?%E2%82=1", "query string"),
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

    /**
     * The console's page and assets (docs/console.md): each with its content type, {@code Cache-Control: no-cache} and
     * an ETag that a browser's revalidation gets a 304 for; HEAD as GET; an unknown asset is the JSON 404; and the page
     * loads nothing from another origin (its only absolute URL is SVG's namespace name, which is never fetched).
     */
    @Test
    void theConsoleIsServedWithItsTypesAndRevalidatedByItsETag() throws Exception {
        Map<String, String> types = Map.of("/", "text/html;charset=utf-8", "/console/console.js",
                "text/javascript;charset=utf-8", "/console/console.css", "text/css;charset=utf-8");
        for (Map.Entry<String, String> asset : types.entrySet()) {
            String path = asset.getKey();
            HttpResponse<String> answer = get(path).raw();
            assertThat(answer.statusCode()).as(path).isEqualTo(200);
            assertThat(answer.headers().firstValue("Content-Type")).as(path).contains(asset.getValue());
            assertThat(answer.headers().firstValue("Cache-Control")).as(path).contains("no-cache");
            assertThat(answer.headers().firstValue("X-Content-Type-Options")).as(path).contains("nosniff");
            assertThat(answer.headers().firstValue("Content-Security-Policy").orElse("")).as(path)
                    .contains("default-src 'none'", "script-src 'self'", "connect-src 'self'");
            assertThat(answer.body().replace("http://www.w3.org/2000/svg", "")).as(path).doesNotContain("http://", "https://");
            String etag = answer.headers().firstValue("ETag").orElseThrow();
            HttpResponse<String> revalidated = CLIENT.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port()
                    + path)).header("If-None-Match", etag).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(revalidated.statusCode()).as(path).isEqualTo(304);
            assertThat(revalidated.body()).isEmpty();
            HttpResponse<String> head = CLIENT.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + path))
                    .method("HEAD", HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(head.statusCode()).as(path).isEqualTo(200);
            assertThat(head.headers().firstValue("ETag")).contains(etag);
            assertThat(head.body()).isEmpty();
        }
        assertThat(get("/").raw().body()).contains("src=\"console/console.js\"", "href=\"console/console.css\"");
        Answer unknown = get("/console/other.js");
        assertThat(unknown.status()).isEqualTo(404);
        assertThat(unknown.body().get("error").asText()).isEqualTo("not-found");
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
        Answer health = get("/health");
        assertThat(health.status()).isEqualTo(200);
        assertThat(health.body().get("status").asText()).isEqualTo("up");
        assertThat(health.body().get("streams").asText()).isEqualTo("CREATED");
        Answer ready = get("/ready");
        assertThat(ready.status()).isEqualTo(503);
        assertThat(ready.raw().headers().firstValue("Retry-After")).contains("1");
        assertThat(ready.body().get("error").asText()).isEqualTo("unavailable");
        assertThat(ready.body().get("streams").asText()).isEqualTo("CREATED");
        assertThat(ready.body().get("message").asText()).contains("CREATED", "wait");
        // HEAD runs the same handler (Javalin alone would answer it 200) and has no body.
        try (RawHttp http = new RawHttp("127.0.0.1", server.port())) {
            RawHttp.Answer head = http.exchange("HEAD /ready HTTP/1.1\r\nHost: t\r\n\r\n".getBytes(StandardCharsets.US_ASCII), true);
            assertThat(head.status()).isEqualTo(503);
            assertThat(head.header("retry-after")).isEqualTo("1");
        }
        Answer metrics = get("/metrics");
        assertThat(metrics.status()).isEqualTo(200);
        assertThat(metrics.raw().body()).contains("jvm_memory_used_bytes", "http_server_requests_seconds", "tspipe_store_rows");
        Answer statistics = get("/api/v1/stats/partitions");
        assertThat(statistics.status()).isEqualTo(200);
        assertThat(statistics.body().get("partitions").isArray()).isTrue();
    }

    /** A Kafka Streams instance that was closed is down for good: /health and /ready say so and what to do. */
    @Test
    void healthAndReadinessAre503OnceKafkaStreamsIsClosed() throws Exception {
        PipelineConfig config = new PipelineConfig(Map.of(PipelineConfig.SCHEMA_REGISTRY_URL, "mock://query-server-test-closed",
                PipelineConfig.READINGS_PARTITIONS, 1));
        try (KafkaStreams closed = TspipeStreams.create(config, Map.of(
                StreamsConfig.APPLICATION_ID_CONFIG, "query-server-test-closed",
                StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:1",
                StreamsConfig.STATE_DIR_CONFIG, stateDir.resolve("closed").toString(),
                StreamsConfig.APPLICATION_SERVER_CONFIG, "127.0.0.1:2"))) {
            closed.close();
            assertThat(closed.state()).isEqualTo(KafkaStreams.State.NOT_RUNNING);
            try (QueryServer down = QueryServer.builder().streams(closed).pipelineConfig(config).bindHost("127.0.0.1")
                    .port(0).advertised(new HostInfo("127.0.0.1", 2)).start()) {
                for (String path : List.of("/health", "/ready")) {
                    HttpResponse<String> response = CLIENT.send(HttpRequest.newBuilder(
                            URI.create("http://127.0.0.1:" + down.port() + path)).build(), HttpResponse.BodyHandlers.ofString());
                    assertThat(response.statusCode()).as(path).isEqualTo(503);
                    assertThat(response.headers().firstValue("Content-Type")).hasValueSatisfying(
                            type -> assertThat(type).startsWith("application/json"));
                    JsonNode body = JSON.readTree(response.body());
                    assertThat(body.get("error").asText()).isEqualTo(path.equals("/health") ? "down" : "unavailable");
                    assertThat(body.get("streams").asText()).isEqualTo("NOT_RUNNING");
                    assertThat(body.get("message").asText()).as(path).contains("NOT_RUNNING", "restart the instance");
                }
            }
        }
    }

    /**
     * Requests that Jetty refuses before any route (unparseable, oversized, badly encoded, other methods)
     * are answered with the API's JSON error shape and a 4xx, never an HTML page or a stack trace.
     */
    @Test
    void errorsFoundByJettyAreJsonErrorsWithA4xx() throws Exception {
        String longPath = "/api/v1/series/" + "d".repeat(9_000) + "/m/latest";
        Map<String, Integer> cases = new java.util.LinkedHashMap<>();
        cases.put("GET " + longPath + " HTTP/1.1\r\nHost: t\r\n\r\n", 414);
        cases.put("GET /health HTTP/1.1\r\nHost: t\r\nX-Big: " + "x".repeat(9_000) + "\r\n\r\n", 431);
        cases.put("GET /api/v1/series/a%00b/m/latest HTTP/1.1\r\nHost: t\r\n\r\n", 400);
        cases.put("GET /api/v1/series/a%C3%28/m/latest HTTP/1.1\r\nHost: t\r\n\r\n", 400);
        cases.put("GET /api/v1/series/a%C0%AF/m/latest HTTP/1.1\r\nHost: t\r\n\r\n", 400);
        cases.put("GET /api/v1/series/a%zz/m/latest HTTP/1.1\r\nHost: t\r\n\r\n", 400);
        cases.put("GET /api/v1/series/d/m/readings?limit=%zz HTTP/1.1\r\nHost: t\r\n\r\n", 400);
        cases.put("GET /api/v1/series/d/m/readings?li%mit=1 HTTP/1.1\r\nHost: t\r\n\r\n", 400);
        cases.put("GET /api/v1/series/d/m;a=b%/latest HTTP/1.1\r\nHost: t\r\n\r\n", 400);
        cases.put("GET /api/v1/series/d;%G1/m/latest HTTP/1.1\r\nHost: t\r\n\r\n", 400);
        cases.put("GET /he\u0000alth HTTP/1.1\r\nHost: t\r\n\r\n", 400);
        cases.put("GET /health HTTP/1.1\r\n\r\n", 400);
        cases.put("GET /health HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", 400);
        cases.put("GET /health HTTP/1.2\r\nHost: t\r\n\r\n", 400);
        cases.put("GET /health HTTP/2.0\r\nHost: t\r\n\r\n", 426);
        cases.put("GET /health\r\n\r\n", 400);
        cases.put("GET /health HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: gzip\r\n\r\n", 400);
        cases.put("GET /health HTTP/1.1\r\nHost: t\r\nContent-Length: -1\r\n\r\n", 400);
        cases.put("GET /health HTTP/1.1\r\nHost: t\r\nBad Header: y\r\n\r\n", 400);
        cases.put("FOO /health HTTP/1.1\r\nHost: t\r\n\r\n", 405);
        cases.put("get /health HTTP/1.1\r\nHost: t\r\n\r\n", 405);
        cases.put("DELETE /api/v1/series/d/m/latest HTTP/1.1\r\nHost: t\r\n\r\n", 405);
        cases.put("POST /health HTTP/1.1\r\nHost: t\r\nContent-Length: 2\r\n\r\n{}", 405);
        cases.put("OPTIONS * HTTP/1.1\r\nHost: t\r\n\r\n", 404);
        cases.put("GET /WEB-INF/web.xml HTTP/1.1\r\nHost: t\r\n\r\n", 404);
        cases.put("GET /META-INF/MANIFEST.MF HTTP/1.1\r\nHost: t\r\nAccept: text/html\r\n\r\n", 404);
        cases.put("GET /nope HTTP/1.1\r\nHost: t\r\nAccept: text/html\r\n\r\n", 404);
        cases.put("\u0016\u0003\u0001\u0002\u0000\u0001\u0000\u0001\u00fc\u0003\u0003", 400);
        for (Map.Entry<String, Integer> c : cases.entrySet()) {
            String shown = c.getKey().length() > 80 ? c.getKey().substring(0, 80) + "..." : c.getKey();
            try (RawHttp http = new RawHttp("127.0.0.1", server.port())) {
                RawHttp.Answer answer = http.exchange(c.getKey().getBytes(StandardCharsets.ISO_8859_1), false);
                assertThat(answer.status()).as(shown).isEqualTo(c.getValue());
                assertThat(answer.header("content-type")).as(shown).startsWith("application/json");
                JsonNode body = JSON.readTree(answer.body());
                assertThat(body.get("error").asText()).as(shown).isNotEmpty();
                assertThat(body.get("message").asText()).as(shown).isNotEmpty();
                assertThat(answer.text()).as(shown).doesNotContain("<html", "Exception", "org.eclipse", "at org.");
            }
        }
    }

    /**
     * A server that closes a connection after an answer says so first ({@code Connection: close}): a client that
     * keeps the connection alive otherwise sends its next request into a closed socket. Each request here is one
     * after which Jetty closes (one it cannot parse, HTTP/1.0 without keep-alive, a body left unread or unfinished);
     * the plain GET sent after it, on the same connection unless the answer said close, is answered.
     */
    @Test
    void aConnectionIsClosedOnlyAfterAnAnswerThatSaysSo() throws Exception {
        Map<String, Integer> cases = new java.util.LinkedHashMap<>();
        cases.put("GET /health HTTP/1.1\r\nHost: t\r\nBad Header: y\r\n\r\n", 400);
        cases.put("GET /he\u0000alth HTTP/1.1\r\nHost: t\r\n\r\n", 400);
        cases.put("GET /health HTTP/1.2\r\nHost: t\r\n\r\n", 400);
        cases.put("GET /health HTTP/2.0\r\nHost: t\r\n\r\n", 426);
        cases.put("GET /health HTTP/1.1\r\nHost: t\r\nContent-Length: -1\r\n\r\n", 400);
        cases.put("GET /health HTTP/1.1\r\n\r\n", 400);
        cases.put("GET /health HTTP/1.0\r\n\r\n", 200);
        cases.put("GET /api/v1/stats/partitions HTTP/1.0\r\n\r\n", 200);
        cases.put("GET /health HTTP/1.1\r\nHost: t\r\nContent-Length: 100\r\n\r\nabc", 200);
        cases.put("GET /health HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nab", 200);
        cases.put("POST /health HTTP/1.1\r\nHost: t\r\nContent-Length: 40\r\n\r\n{\"a\":", 405);
        cases.put("GET /health HTTP/1.1\r\nHost: t\r\nContent-Length: " + 2 * 1024 * 1024 + "\r\n\r\n{}", 413);
        byte[] plain = "GET /api/v1/stats/partitions HTTP/1.1\r\nHost: t\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
        for (Map.Entry<String, Integer> c : cases.entrySet()) {
            String shown = c.getKey().replace("\r\n", " ").replace("\u0000", "\\0");
            try (RawHttp http = new RawHttp("127.0.0.1", server.port())) {
                RawHttp.Answer first = http.exchange(c.getKey().getBytes(StandardCharsets.ISO_8859_1), false);
                assertThat(first.status()).as(shown).isEqualTo(c.getValue());
                assertThat(http.exchange(plain, false).status()).as("a GET after " + shown).isEqualTo(200);
            }
        }
    }

    /** Every documented route is served, and every served route is documented. */
    @Test
    void theOpenApiDocumentAndTheServerAgree() throws Exception {
        Answer document = get("/openapi.json");
        assertThat(document.status()).isEqualTo(200);
        assertThat(document.body().get("openapi").asText()).startsWith("3.");
        TreeSet<String> documented = new TreeSet<>();
        TreeSet<String> writes = new TreeSet<>();
        TreeSet<String> prometheus = new TreeSet<>();
        Iterator<Map.Entry<String, JsonNode>> paths = document.body().get("paths").fields();
        while (paths.hasNext()) {
            Map.Entry<String, JsonNode> path = paths.next();
            List<String> methods = new ArrayList<>();
            path.getValue().fieldNames().forEachRemaining(methods::add);
            if (methods.equals(List.of("post"))) {
                writes.add(path.getKey());
            } else if (methods.equals(List.of("get", "post"))) {
                prometheus.add(path.getKey());
            } else {
                assertThat(methods).as(path.getKey()).containsExactly("get");
                documented.add(path.getKey());
            }
        }
        // The route table the server registered from: GET routes, POST-only ones (writes), GET-and-POST ones (Prometheus').
        Map<String, Set<String>> served = new TreeMap<>();
        List<Route> routes = new ArrayList<>(server.routes().documented());
        // This server takes no writes; a server that does registers these groups.
        new WriteRoutes(null, null).routes().forEach(group -> routes.addAll(group.routes()));
        for (Route route : routes) {
            served.computeIfAbsent(route.path(), path -> new TreeSet<>()).add(route.method().name());
        }
        TreeSet<String> servedGets = new TreeSet<>();
        TreeSet<String> servedPosts = new TreeSet<>();
        TreeSet<String> servedBoth = new TreeSet<>();
        served.forEach((path, methods) -> (methods.size() == 2 ? servedBoth
                : methods.contains("POST") ? servedPosts : servedGets).add(path));
        assertThat(documented).isEqualTo(servedGets);
        assertThat(writes).isEqualTo(servedPosts);
        assertThat(prometheus).isEqualTo(servedBoth);
        assertThat(prometheus).isEqualTo(new TreeSet<>(PrometheusApi.PATHS));
        for (String path : prometheus) {
            Answer answer = get(path.replace("{name}", "device") + "?match[]=up&query=1");
            assertThat(answer.status()).as(path + ": " + answer.body()).isNotEqualTo(404);
        }
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
