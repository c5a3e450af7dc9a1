package dev.tspipe.query;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tspipe.embedded.EmbeddedSchemaRegistry;
import dev.tspipe.embedded.junit.EmbeddedKafkaExtension;
import dev.tspipe.ingest.ReadingProducer;
import dev.tspipe.ingest.prometheus.RemoteWrite;
import dev.tspipe.processor.topology.PipelineConfig;
import dev.tspipe.processor.topology.Topics;
import dev.tspipe.query.promql.PromOracle;
import dev.tspipe.schemas.serde.AvroSerdeConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.streams.KafkaStreams;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Predicate;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;
import static org.awaitility.Awaitility.await;

/**
 * The Prometheus API of two instances (6 partitions, one standby each) on the embedded broker, asked the way Grafana
 * and promtool ask (POST forms with unix seconds and a step in seconds; GET): every answer equals the oracle computed
 * from the readings written, reading by reading, from either instance, for every function, from raw readings and
 * from rollups, through selectors on one device (one partition) and regexes (all partitions, both instances);
 * readings written as line protocol and remote-write are answered too; bad input gets Prometheus' error envelope.
 */
class PrometheusApiIT {

    @RegisterExtension
    static final EmbeddedKafkaExtension KAFKA = new EmbeddedKafkaExtension();

    private static final String APP = "prom-it";
    private static final String TOPIC = APP + "-readings";
    private static final long BASE = Instant.parse("2026-11-01T00:00:00Z").toEpochMilli();
    private static final long MINUTE = 60_000;
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient CLIENT = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    private static final List<String> DEVICES = List.of("press-0", "press-1", "press-2", "press-3", "press-4", "kiln-0",
            "kiln-1", "kiln-2");

    @TempDir
    static Path stateDir;

    private static EmbeddedSchemaRegistry registry;
    private static ReadingProducer producer;
    /** Every reading written, by series "device/metric", timestamp to value. */
    private static final Map<String, TreeMap<Long, Double>> WRITTEN = new LinkedHashMap<>();
    private static TestNode a;
    private static TestNode b;

    @BeforeAll
    static void startTwoInstances() throws Exception {
        registry = EmbeddedSchemaRegistry.builder().bootstrapServers(KAFKA.broker().bootstrapServers()).start();
        KAFKA.broker().createTopic(TOPIC, 6);
        KAFKA.broker().createTopic(APP + "-dlq", 1);
        KAFKA.broker().createTopic(Topics.DEVICES, 1);
        PipelineConfig config = new PipelineConfig(Map.of(PipelineConfig.SCHEMA_REGISTRY_URL, registry.url(),
                PipelineConfig.READINGS_TOPIC, TOPIC, PipelineConfig.DLQ_TOPIC, APP + "-dlq"));
        Map<String, Object> settings = new HashMap<>(KAFKA.broker().clientConfig());
        settings.put(ProducerConfig.LINGER_MS_CONFIG, 5);
        java.util.Random random = new java.util.Random(20261202);
        for (String device : DEVICES) {
            // Two hours: a gauge every 20 s with jitter (some readings on whole minutes), a counter with a reset.
            TreeMap<Long, Double> temperature = new TreeMap<>();
            TreeMap<Long, Double> requests = new TreeMap<>();
            double count = random.nextInt(100);
            for (long t = BASE; t < BASE + 120 * MINUTE; t += 20_000) {
                long at = t % MINUTE == 0 ? t : t + random.nextInt(5_000);
                temperature.put(at, Math.round(random.nextGaussian() * 1000) / 100.0 + 20);
                count = t == BASE + 61 * MINUTE ? 3 : count + random.nextInt(7);
                requests.put(at, count);
            }
            WRITTEN.put(device + "/temperature", temperature);
            WRITTEN.put(device + "/requests", requests);
        }
        SeriesProducer.produce(settings, registry.url(), TOPIC, WRITTEN);
        settings.put(AvroSerdeConfig.SCHEMA_REGISTRY_URL, registry.url());
        producer = ReadingProducer.create(TOPIC, settings);
        a = TestNode.start(KAFKA.broker().bootstrapServers(), config, APP, stateDir.resolve("a"), s -> s.writes(producer));
        b = TestNode.start(KAFKA.broker().bootstrapServers(), config, APP, stateDir.resolve("b"));
        await().atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(500)).until(() ->
                a.streams().state() == KafkaStreams.State.RUNNING && b.streams().state() == KafkaStreams.State.RUNNING
                        && allStored(a) && allStored(b));
    }

    @AfterAll
    static void stopAll() {
        for (AutoCloseable closeable : new AutoCloseable[] {a, b, producer, registry}) {
            if (closeable != null) {
                try {
                    closeable.close();
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            }
        }
    }

    private static boolean allStored(TestNode instance) throws Exception {
        for (Map.Entry<String, TreeMap<Long, Double>> series : WRITTEN.entrySet()) {
            HttpResponse<String> latest = get(instance, "/api/v1/series/" + series.getKey() + "/latest");
            if (latest.statusCode() != 200 || JSON.readTree(latest.body()).get("timestamp").asLong() != series.getValue().lastKey()) {
                return false;
            }
        }
        return true;
    }

    // -----------------------------------------------------------------------------------

    @Test
    void rangeQueriesEqualTheOracleForEveryFunctionFromBothInstances() throws Exception {
        String[] functions = {"avg_over_time", "min_over_time", "max_over_time", "sum_over_time", "count_over_time",
                "last_over_time", "rate", "increase"};
        // [start, end, step, range]: 1-minute rollups, raw readings (a 15 s step), 1-hour rollups, an unaligned start.
        long[][] windows = {
                {BASE + 10 * MINUTE, BASE + 110 * MINUTE, MINUTE, 5 * MINUTE},
                {BASE + 50 * MINUTE, BASE + 70 * MINUTE, 15_000, 30_000},
                {BASE + 60 * MINUTE, BASE + 120 * MINUTE, 60 * MINUTE, 60 * MINUTE},
                {BASE + 7 * MINUTE + 500, BASE + 33 * MINUTE + 500, 2 * MINUTE, 3 * MINUTE}};
        int compared = 0;
        for (String function : functions) {
            String metric = function.equals("rate") || function.equals("increase") ? "requests" : "temperature";
            for (long[] w : windows) {
                String query = function + "(" + metric + "{device=\"press-1\"}[" + w[3] / 1000 + "s])";
                for (TestNode instance : List.of(a, b)) {
                    JsonNode answer = rangeQuery(instance, query, w[0], w[1], w[2]);
                    compared += compare(answer, function, metric, Set.of("press-1"), w, false);
                }
            }
        }
        // A regex picks series of every partition, of both instances; the plain selector keeps the name.
        long[] w = windows[0];
        for (TestNode instance : List.of(a, b)) {
            compared += compare(rangeQuery(instance, "max_over_time(temperature{device=~\"press-.*\"}[5m])", w[0], w[1], w[2]),
                    "max_over_time", "temperature", Set.of("press-0", "press-1", "press-2", "press-3", "press-4"), w, false);
            compared += compare(rangeQuery(instance, "temperature{device!~\"press-.*\"}", w[0], w[1], w[2]),
                    "selector", "temperature", Set.of("kiln-0", "kiln-1", "kiln-2"), new long[] {w[0], w[1], w[2], 5 * MINUTE}, true);
        }
        assertThat(compared).as("points compared").isGreaterThan(2_000);
    }

    @Test
    void aggregationsOverEveryPartitionEqualTheOracle() throws Exception {
        long start = BASE + 20 * MINUTE;
        long end = BASE + 100 * MINUTE;
        JsonNode sums = rangeQuery(b, "sum by (device) (increase(requests[10m]))", start, end, 10 * MINUTE);
        assertThat(sums.at("/data/result")).hasSize(DEVICES.size());
        for (JsonNode series : sums.at("/data/result")) {
            assertThat(series.get("metric").properties()).hasSize(1);
            String device = series.at("/metric/device").asText();
            for (JsonNode point : series.get("values")) {
                long t = Math.round(point.get(0).asDouble() * 1000);
                assertThat(point.get(1).asDouble()).as(device + " at " + t)
                        .isEqualTo(PromOracle.at("increase", WRITTEN.get(device + "/requests"), t, 10 * MINUTE));
            }
        }
        // All devices in one line: the average of the per-device averages... of kilns only.
        JsonNode average = rangeQuery(a, "avg(avg_over_time(temperature{device=~\"kiln-.*\"}[1m]))", start, end, MINUTE);
        assertThat(average.at("/data/result")).hasSize(1);
        assertThat(average.at("/data/result/0/metric").isEmpty()).isTrue();
        for (JsonNode point : average.at("/data/result/0/values")) {
            long t = Math.round(point.get(0).asDouble() * 1000);
            double sum = 0;
            int present = 0;
            for (String kiln : List.of("kiln-0", "kiln-1", "kiln-2")) {
                double value = PromOracle.at("avg_over_time", WRITTEN.get(kiln + "/temperature"), t, MINUTE);
                if (!Double.isNaN(value)) {
                    sum += value;
                    present++;
                }
            }
            assertThat(point.get(1).asDouble()).as("at " + t).isCloseTo(sum / present, within(1e-9));
        }
        JsonNode counted = rangeQuery(a, "count without (device) (last_over_time(temperature[2h]))", end, end, MINUTE);
        assertThat(counted.at("/data/result/0/values/0/1").asText()).isEqualTo(Integer.toString(DEVICES.size()));
    }

    @Test
    void instantQueriesVectorsAndGrafanasHealthCheck() throws Exception {
        long time = BASE + 90 * MINUTE;
        JsonNode vector = form(b, "/prometheus/api/v1/query", Map.of("query", "last_over_time(temperature{device=\"kiln-2\"}[1h])",
                "time", Long.toString(time / 1000)));
        assertThat(vector.at("/data/resultType").asText()).isEqualTo("vector");
        assertThat(vector.at("/data/result/0/metric")).isEqualTo(JSON.readTree("{\"device\":\"kiln-2\"}"));
        assertThat(vector.at("/data/result/0/value/0").asLong()).isEqualTo(time / 1000);
        assertThat(vector.at("/data/result/0/value/1").asDouble())
                .isEqualTo(WRITTEN.get("kiln-2/temperature").lowerEntry(time).getValue());
        // Grafana's "Save & test": POST query=1+1, time=4; any status but 200 fails it.
        JsonNode health = form(a, "/prometheus/api/v1/query", Map.of("query", "1+1", "time", "4"));
        assertThat(health).isEqualTo(JSON.readTree("{\"status\":\"success\",\"data\":{\"resultType\":\"scalar\",\"result\":[4,\"2\"]}}"));
    }

    @Test
    void seriesLabelsAndLabelValuesAsTheQueryEditorAsks() throws Exception {
        String window = "&start=" + BASE / 1000 + "&end=" + (BASE + 120 * MINUTE) / 1000;
        JsonNode series = getJson(a, "/prometheus/api/v1/series?match[]=" + encode("temperature{device=~\"kiln-.*\"}") + window);
        assertThat(series.get("status").asText()).isEqualTo("success");
        List<JsonNode> expected = new ArrayList<>();
        for (String kiln : List.of("kiln-0", "kiln-1", "kiln-2")) {
            expected.add(JSON.readTree("{\"__name__\":\"temperature\",\"device\":\"" + kiln + "\"}"));
        }
        assertThat(series.get("data")).containsExactlyElementsOf(expected);
        assertThat(texts(getJson(b, "/prometheus/api/v1/labels?match[]=temperature" + window).get("data")))
                .containsExactly("__name__", "device");
        Set<String> names = new TreeSet<>();
        WRITTEN.keySet().forEach(k -> names.add(k.substring(k.indexOf('/') + 1)));
        assertThat(texts(getJson(b, "/prometheus/api/v1/label/__name__/values").get("data"))).containsAll(names);
        assertThat(texts(getJson(a, "/prometheus/api/v1/label/device/values?match[]=" + encode("requests{device=~\"press-[0-2]\"}"))
                .get("data"))).containsExactly("press-0", "press-1", "press-2");
        assertThat(getJson(a, "/prometheus/api/v1/metadata").at("/data/temperature/0/type").asText()).isEqualTo("unknown");
        // Nothing newer than start: a series whose newest reading is older is left out.
        assertThat(getJson(a, "/prometheus/api/v1/series?match[]=temperature&start=" + (BASE + 200 * MINUTE) / 1000).get("data"))
                .isEmpty();
    }

    @Test
    void lineProtocolAndRemoteWriteReadingsAreAnsweredExactly() throws Exception {
        long t = BASE + 30 * MINUTE;
        String lines = "cpu,host=web-1 usage_idle=92.5 " + t + "\ncpu,host=web-1 usage_idle=90.25 " + (t + 10_000) + "\n";
        assertThat(post(a, "/api/v2/write?bucket=b&precision=ms", lines.getBytes(StandardCharsets.UTF_8), "text/plain", null)
                .statusCode()).isEqualTo(204);
        byte[] request = RemoteWrite.request(List.of(new RemoteWrite.Series(Map.of("__name__", "node_load1",
                "instance", "web-2:9100", "job", "node"), List.of(new RemoteWrite.Sample(t, 0.5), new RemoteWrite.Sample(t + 15_000, 0.75)))));
        assertThat(post(a, "/api/v1/write", request, "application/x-protobuf", "snappy").statusCode()).isEqualTo(204);
        await().atMost(Duration.ofSeconds(30)).until(() -> get(b, "/api/v1/series/web-2%3A9100/" + encode("node_load1{job=\"node\"}") + "/latest").statusCode() == 200
                && get(b, "/api/v1/series/web-1/cpu.usage_idle/latest").statusCode() == 200);
        JsonNode idle = rangeQuery(b, "{__name__=\"cpu.usage_idle\", device=\"web-1\"}", t + 5_000, t + 20_000, 15_000);
        assertThat(idle.at("/data/result/0/values").toString()).isEqualTo("[[" + (t + 5_000) / 1000 + ",\"92.5\"],["
                + (t + 20_000) / 1000 + ",\"90.25\"]]");
        // Prometheus' labels other than the device are the series' labels again.
        JsonNode load = rangeQuery(a, "max_over_time(node_load1{device=\"web-2:9100\", job=\"node\"}[1m])", t + MINUTE,
                t + MINUTE, MINUTE);
        assertThat(load.at("/data/result/0/metric")).isEqualTo(JSON.readTree("{\"device\":\"web-2:9100\",\"job\":\"node\"}"));
        assertThat(load.at("/data/result/0/values/0/1").asText()).isEqualTo("0.75");
        assertThat(texts(getJson(b, "/prometheus/api/v1/labels?match[]=node_load1").get("data")))
                .containsExactly("__name__", "device", "job");
    }

    /** docs/grafana/tspipe-demo-dashboard.json: every panel's query, with Grafana's variables as it expands them, is answered. */
    @Test
    void theDemoDashboardsQueriesAreAnswered() throws Exception {
        JsonNode dashboard = JSON.readTree(Path.of("..", "docs", "grafana", "tspipe-demo-dashboard.json").toFile());
        // The variable: label_values(temperature, device), which Grafana asks as label values with match[].
        String variable = dashboard.at("/templating/list/0/query/query").asText();
        assertThat(variable).isEqualTo("label_values(temperature, device)");
        assertThat(texts(getJson(a, "/prometheus/api/v1/label/device/values?match[]=temperature").get("data")))
                .containsExactlyInAnyOrderElementsOf(DEVICES);
        int panels = 0;
        for (JsonNode panel : dashboard.get("panels")) {
            for (JsonNode target : panel.path("targets")) {
                // A multi-value variable in a regex is (a|b); $__interval is the panel's step.
                String query = target.get("expr").asText().replace("$device", "(press-1|kiln-2)")
                        .replace("$__interval", "1m").replace("$__rate_interval", "1m");
                long end = BASE + 60 * MINUTE;
                JsonNode answer = target.path("instant").asBoolean()
                        ? form(b, "/prometheus/api/v1/query", Map.of("query", query, "time", seconds(end)))
                        : rangeQuery(b, query, end - 15 * MINUTE, end, MINUTE);
                assertThat(answer.get("status").asText()).as(panel.get("title").asText()).isEqualTo("success");
                if (query.contains("temperature{")) {
                    assertThat(answer.at("/data/result")).as(query).hasSize(2);
                }
                panels++;
            }
        }
        assertThat(panels).isGreaterThanOrEqualTo(5);
    }

    @Test
    void badInputGetsPrometheusErrorsThatSayWhatToFix() throws Exception {
        String range = "&start=" + BASE / 1000 + "&end=" + (BASE + MINUTE) / 1000 + "&step=15";
        assertError(get(a, "/prometheus/api/v1/query_range?query=" + encode("rate(x[5m]") + range), 400, "bad_data",
                "query: parse error at char 11: expected ')'");
        assertError(get(a, "/prometheus/api/v1/query_range?query=" + encode("temperature / 2") + range), 400, "bad_data",
                "with a vector on either side is not in the subset");
        assertError(get(a, "/prometheus/api/v1/query_range?query=up&start=" + BASE / 1000 + "&end=" + BASE / 1000), 400,
                "bad_data", "step: missing");
        assertError(get(a, "/prometheus/api/v1/query_range?query=up&start=10&end=5&step=1"), 400, "bad_data",
                "end timestamp must not be before start time");
        assertError(get(a, "/prometheus/api/v1/query_range?query=up&start=0&end=100000&step=1"), 400, "bad_data",
                "exceeded maximum resolution of 11000 points per timeseries");
        assertError(get(a, "/prometheus/api/v1/query?query=up&time=yesterday"), 400, "bad_data", "cannot parse \"yesterday\"");
        assertError(get(a, "/prometheus/api/v1/series?start=0"), 400, "bad_data", "no match[] parameter provided");
        assertError(get(a, "/prometheus/api/v1/query_range?query=" + encode("temperature{device=~\"(\"}") + range), 400,
                "bad_data", "regular expression");
        assertError(get(a, "/prometheus/api/v1/status/buildinfo"), 404, "not_found", "no route");
        // A query longer than a request line may be (8 KiB) is asked of the other instance in a form body: answered fresh.
        String longQuery = "count_over_time(temperature{device=~\"" + "x".repeat(8_200) + "|press-.*\"}[5m])";
        HttpResponse<String> longOne = post(a, "/prometheus/api/v1/query", ("query=" + encode(longQuery) + "&time="
                + (BASE + 30 * MINUTE) / 1000).getBytes(StandardCharsets.UTF_8), "application/x-www-form-urlencoded", null);
        assertThat(longOne.statusCode()).as(longOne.body()).isEqualTo(200);
        assertThat(JSON.readTree(longOne.body()).at("/data/result")).hasSize(5);
        assertThat(JSON.readTree(longOne.body()).has("warnings")).as("no partition read stale: " + longOne.body()).isFalse();
    }

    // -----------------------------------------------------------------------------------

    /**
     * Checks every point of {@code answer} against the oracle, and that every point the oracle has is there; returns how
     * many points were compared.
     */
    private static int compare(JsonNode answer, String function, String metric, Set<String> devices, long[] w, boolean named)
            throws Exception {
        assertThat(answer.get("status").asText()).as(answer.toString()).isEqualTo("success");
        assertThat(answer.at("/data/resultType").asText()).isEqualTo("matrix");
        Map<String, JsonNode> byDevice = new TreeMap<>();
        for (JsonNode series : answer.at("/data/result")) {
            byDevice.put(series.at("/metric/device").asText(), series);
            assertThat(series.at("/metric/__name__").isMissingNode()).as("name kept only by a plain selector").isEqualTo(!named);
        }
        assertThat(byDevice.keySet()).as(function + " devices").isEqualTo(new TreeSet<>(devices));
        int compared = 0;
        for (String device : devices) {
            TreeMap<Long, Double> readings = WRITTEN.get(device + "/" + metric);
            Map<Long, Double> points = new LinkedHashMap<>();
            for (JsonNode point : byDevice.get(device).get("values")) {
                points.put(Math.round(point.get(0).asDouble() * 1000), Double.parseDouble(point.get(1).asText()));
            }
            for (long t = w[0]; t <= w[1]; t += w[2]) {
                double expected = PromOracle.at(function, readings, t, w[3]);
                String what = function + " of " + device + " at " + t;
                if (Double.isNaN(expected)) {
                    assertThat(points).as(what).doesNotContainKey(t);
                } else {
                    assertThat(points).as(what).containsKey(t);
                    assertThat(points.get(t)).as(what).isCloseTo(expected, within(1e-9 * Math.max(1, Math.abs(expected))));
                    compared++;
                }
            }
        }
        return compared;
    }

    /** A range query as Grafana sends it: POST, a form body, unix seconds (decimals when needed), the step in seconds. */
    private static JsonNode rangeQuery(TestNode instance, String query, long start, long end, long step) throws Exception {
        return form(instance, "/prometheus/api/v1/query_range", Map.of("query", query, "start", seconds(start),
                "end", seconds(end), "step", seconds(step)));
    }

    private static String seconds(long millis) {
        return java.math.BigDecimal.valueOf(millis, 3).stripTrailingZeros().toPlainString();
    }

    private static JsonNode form(TestNode instance, String path, Map<String, String> parameters) throws Exception {
        StringBuilder body = new StringBuilder();
        parameters.forEach((k, v) -> body.append(body.isEmpty() ? "" : "&").append(encode(k)).append('=').append(encode(v)));
        HttpResponse<String> response = post(instance, path, body.toString().getBytes(StandardCharsets.UTF_8),
                "application/x-www-form-urlencoded", null);
        assertThat(response.statusCode()).as(path + " " + body + ": " + response.body()).isEqualTo(200);
        return JSON.readTree(response.body());
    }

    private static JsonNode getJson(TestNode instance, String pathAndQuery) throws Exception {
        HttpResponse<String> response = get(instance, pathAndQuery);
        assertThat(response.statusCode()).as(pathAndQuery + ": " + response.body()).isEqualTo(200);
        return JSON.readTree(response.body());
    }

    private static void assertError(HttpResponse<String> response, int status, String errorType, String message) throws Exception {
        assertThat(response.statusCode()).as(response.body()).isEqualTo(status);
        JsonNode body = JSON.readTree(response.body());
        assertThat(body.get("status").asText()).isEqualTo("error");
        assertThat(body.get("errorType").asText()).isEqualTo(errorType);
        assertThat(body.get("error").asText()).contains(message);
    }

    private static List<String> texts(JsonNode array) {
        List<String> texts = new ArrayList<>();
        array.forEach(n -> texts.add(n.asText()));
        return texts;
    }

    private static String encode(String text) {
        return URLEncoder.encode(text, StandardCharsets.UTF_8);
    }

    static HttpResponse<String> get(TestNode instance, String pathAndQuery) throws Exception {
        return CLIENT.send(HttpRequest.newBuilder(URI.create(instance.server().url() + pathAndQuery)).timeout(Duration.ofSeconds(30))
                .GET().build(), HttpResponse.BodyHandlers.ofString());
    }

    private static HttpResponse<String> post(TestNode instance, String path, byte[] body, String type, String encoding)
            throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(instance.server().url() + path))
                .timeout(Duration.ofSeconds(30)).header("Content-Type", type).POST(HttpRequest.BodyPublishers.ofByteArray(body));
        if (encoding != null) {
            request.header("Content-Encoding", encoding);
        }
        return CLIENT.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }
}
