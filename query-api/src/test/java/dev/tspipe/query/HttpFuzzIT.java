package dev.tspipe.query;

import dev.tspipe.query.http.JsonErrorPages;
import dev.tspipe.query.series.SeriesReader;
import dev.tspipe.query.server.QueryServer;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tspipe.embedded.EmbeddedSchemaRegistry;
import dev.tspipe.embedded.junit.EmbeddedKafkaExtension;
import dev.tspipe.processor.topology.PipelineConfig;
import dev.tspipe.processor.topology.Topics;
import dev.tspipe.schemas.Reading;
import dev.tspipe.schemas.serde.AvroSerdeConfig;
import dev.tspipe.schemas.serde.AvroSerializer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.regex.Pattern;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Seeded random requests, malformed ones included, sent over raw sockets to one running node (the
 * real topology in Kafka Streams on the embedded broker, with readings stored, and its query server):
 * every request the node reads whole is answered (nothing is sent twice), no answer is a 5xx (the node is healthy:
 * a 503 here is a bad request taken for a transient fault), no body shows a stack trace or a Java class name, every error answer is the JSON error shape, and the node answers correctly afterwards. A fifth of
 * the requests go to the Prometheus API (GET, and POST with form bodies, malformed ones included): its every answer
 * is Prometheus' envelope, {@code {"status":"success","data":...}} for a 200, else
 * {@code {"status":"error","errorType":...,"error":...}}.
 *
 * <p>The seed is printed; {@code -Dtspipe.seed=N} replays a run, {@code -Dtspipe.fuzz.requests=N}
 * changes its length (default 10,000).
 */
class HttpFuzzIT {

    @RegisterExtension
    static final EmbeddedKafkaExtension KAFKA = new EmbeddedKafkaExtension();

    private static final String APP = "fuzz-it";
    private static final String TOPIC = APP + "-readings";
    private static final long BASE = Instant.parse("2026-11-01T00:00:00Z").toEpochMilli();
    private static final List<String> DEVICES = List.of("fuzz-0", "fuzz-1", "fuzz-2", "fuzz-3", "Caf\u00e9 5");
    private static final List<String> METRICS = List.of("temperature", "humidity");
    private static final int READINGS = 30;
    private static final ObjectMapper JSON = new ObjectMapper();
    /** What a stack trace or a leaked class name looks like in a body. */
    private static final Pattern LEAK = Pattern.compile("\\b(java|javax|jakarta|org|io|com|sun)\\.[a-z]+\\.[A-Za-z]|Exception|at dev\\.tspipe");

    @TempDir
    static Path stateDir;

    private static EmbeddedSchemaRegistry registry;
    private static TestNode node;
    private static QueryServer server;

    @BeforeAll
    static void startNode() throws IOException {
        registry = EmbeddedSchemaRegistry.builder().bootstrapServers(KAFKA.broker().bootstrapServers()).start();
        KAFKA.broker().createTopic(TOPIC, 3);
        KAFKA.broker().createTopic(APP + "-dlq", 1);
        KAFKA.broker().createTopic(Topics.DEVICES, 1);
        PipelineConfig config = new PipelineConfig(Map.of(PipelineConfig.SCHEMA_REGISTRY_URL, registry.url(),
                PipelineConfig.READINGS_TOPIC, TOPIC, PipelineConfig.DLQ_TOPIC, APP + "-dlq"));
        produce();
        node = TestNode.start(KAFKA.broker().bootstrapServers(), config, APP, stateDir);
        server = node.server();
        await().atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(300)).until(HttpFuzzIT::allStored);
    }

    @AfterAll
    static void stopNode() {
        if (node != null) {
            node.close();
        }
        if (registry != null) {
            registry.close();
        }
    }

    private static void produce() {
        Map<String, Object> producerConfig = KAFKA.broker().clientConfig();
        producerConfig.put(ProducerConfig.ACKS_CONFIG, "all");
        AvroSerializer<Object> avro = new AvroSerializer<>();
        avro.configure(Map.of(AvroSerdeConfig.SCHEMA_REGISTRY_URL, registry.url()), false);
        try (KafkaProducer<String, byte[]> producer = new KafkaProducer<>(producerConfig, new StringSerializer(), new ByteArraySerializer())) {
            for (String device : DEVICES) {
                for (String metric : METRICS) {
                    for (int i = 0; i < READINGS; i++) {
                        producer.send(new ProducerRecord<>(TOPIC, device, avro.serialize(TOPIC, Reading.newBuilder()
                                .setDeviceId(device).setMetric(metric).setTimestamp(Instant.ofEpochMilli(BASE + i * 60_000L))
                                .setValue(i + 0.25).build())));
                    }
                }
            }
            producer.flush();
        }
    }

    private static String seriesPath(String device, String metric) {
        return "/api/v1/series/" + encode(device) + "/" + metric;
    }

    private static String encode(String text) {
        return java.net.URLEncoder.encode(text, StandardCharsets.UTF_8).replace("+", "%20");
    }

    private static boolean allStored() throws IOException {
        try (RawHttp http = new RawHttp("127.0.0.1", server.port())) {
            for (String device : DEVICES) {
                for (String metric : METRICS) {
                    RawHttp.Answer answer = http.exchange(get(seriesPath(device, metric) + "/latest"), false);
                    if (answer.status() != 200 || JSON.readTree(answer.body()).get("timestamp").asLong() != BASE + (READINGS - 1) * 60_000L) {
                        return false;
                    }
                }
            }
            return true;
        }
    }

    private static byte[] get(String target) {
        return ("GET " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1);
    }

    /**
     * Each limit of docs/security.md ("Limits"), just past it: a 4xx JSON answer that says the limit, and the
     * node answers the next request.
     */
    @Test
    void aRequestPastALimitGetsA4xxThatSaysTheLimit() throws Exception {
        String path = seriesPath(DEVICES.get(0), METRICS.get(0));
        try (RawHttp http = new RawHttp("127.0.0.1", server.port())) {
            RawHttp.Answer longUrl = http.exchange(get(path + "/readings?from=0&x=" + "a".repeat(9 * 1024)), false);
            assertThat(longUrl.status()).isEqualTo(414);
            assertThat(JSON.readTree(longUrl.body()).get("message").asText()).contains("longer than 8192 bytes");

            RawHttp.Answer bigHeader = http.exchange(("GET " + path + "/latest HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: "
                    + "b".repeat(9 * 1024) + "\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1), false);
            assertThat(bigHeader.status()).isEqualTo(431);
            assertThat(JSON.readTree(bigHeader.body()).get("message").asText()).contains("8192");

            // Only the head of a 2 MiB body is sent: the answer comes before the body is read.
            RawHttp.Answer bigBody = http.exchange(("GET " + path + "/latest HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                    + "Content-Type: application/json\r\nContent-Length: " + 2 * 1024 * 1024 + "\r\n\r\n{\"a\":1")
                    .getBytes(StandardCharsets.ISO_8859_1), false);
            assertThat(bigBody.status()).isEqualTo(413);
            assertThat(JSON.readTree(bigBody.body()).get("message").asText()).contains("at most 1048576");

            RawHttp.Answer bigPage = http.exchange(get(path + "/readings?limit=10001"), false);
            assertThat(bigPage.status()).isEqualTo(400);
            assertThat(JSON.readTree(bigPage.body()).get("message").asText()).contains("outside 1..10000");
        }
        try (RawHttp http = new RawHttp("127.0.0.1", server.port())) {
            assertThat(http.exchange(get(path + "/latest"), false).status()).isEqualTo(200);
        }
    }

    /** A device with more metrics than an answer holds: the first ones in metric order, marked truncated. */
    @Test
    void aDeviceWithMoreMetricsThanAnAnswerHoldsIsListedTruncated() throws Exception {
        int metrics = SeriesReader.MAX_DEVICE_METRICS + 1;
        Map<String, Object> producerConfig = KAFKA.broker().clientConfig();
        producerConfig.put(ProducerConfig.ACKS_CONFIG, "all");
        producerConfig.put(ProducerConfig.LINGER_MS_CONFIG, 20);
        AvroSerializer<Object> avro = new AvroSerializer<>();
        avro.configure(Map.of(AvroSerdeConfig.SCHEMA_REGISTRY_URL, registry.url()), false);
        try (KafkaProducer<String, byte[]> producer = new KafkaProducer<>(producerConfig, new StringSerializer(), new ByteArraySerializer())) {
            for (int m = 0; m < metrics; m++) {
                producer.send(new ProducerRecord<>(TOPIC, "wide", avro.serialize(TOPIC, Reading.newBuilder().setDeviceId("wide")
                        .setMetric(String.format("m%05d", m)).setTimestamp(Instant.ofEpochMilli(BASE)).setValue(m).build())));
            }
            producer.flush();
        }
        try (RawHttp http = new RawHttp("127.0.0.1", server.port())) {
            String last = "/api/v1/series/wide/" + String.format("m%05d", metrics - 1) + "/latest";
            await().atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(300))
                    .until(() -> http.exchange(get(last), false).status() == 200);
            RawHttp.Answer answer = http.exchange(get("/api/v1/devices/wide/metrics"), false);
            assertThat(answer.status()).isEqualTo(200);
            JsonNode body = JSON.readTree(answer.body());
            assertThat(body.get("truncated").asBoolean()).isTrue();
            assertThat(body.get("metrics")).hasSize(SeriesReader.MAX_DEVICE_METRICS);
            assertThat(body.get("metrics").get(0).get("metric").asText()).isEqualTo("m00000");
            RawHttp.Answer narrow = http.exchange(get("/api/v1/devices/" + encode(DEVICES.get(0)) + "/metrics"), false);
            assertThat(JSON.readTree(narrow.body()).has("truncated")).isFalse();
        }
    }

    @Test
    void randomRequestsNeverGetA5xxAStackTraceOrAnHtmlPageAndTheNodeAnswersAfterwards() throws Exception {
        long seed = Long.getLong("tspipe.seed", System.nanoTime());
        int requests = Integer.getInteger("tspipe.fuzz.requests", 10_000);
        System.out.println("HttpFuzzIT seed " + seed + " (rerun with -Dtspipe.seed=" + seed + ")");
        RequestGenerator generator = new RequestGenerator(new Random(seed));
        Map<Integer, Integer> statuses = new TreeMap<>();
        Map<String, Integer> kinds = new TreeMap<>();
        List<String> problems = new ArrayList<>();
        int unanswered = 0;
        // kept (the default): requests follow one another on a kept-alive connection, as a client's do; each: one
        // connection per request.
        boolean connectionEach = "each".equals(System.getProperty("tspipe.fuzz.connections", "kept"));
        long started = System.nanoTime();
        try (RawHttp http = new RawHttp("127.0.0.1", server.port())) {
            FuzzRequest previous = null;
            for (int i = 0; i < requests && problems.size() < 20; i++) {
                FuzzRequest request = generator.next();
                kinds.merge(request.kind(), 1, Integer::sum);
                if (connectionEach) {
                    http.close();
                }
                RawHttp.Answer answer;
                try {
                    answer = http.exchange(request.bytes(), request.head());
                } catch (IOException e) {
                    http.close();
                    // Nothing is sent twice: a connection closed without an answer is what this test looks for. Only
                    // a request larger than the server reads may meet a connection closed before its answer is read.
                    if (request.bytes().length <= JsonErrorPages.REQUEST_HEADER_BYTES) {
                        unanswered++;
                        problems.add("#" + i + " no answer (" + e.getMessage() + ") to " + request.shown()
                                + (previous == null ? "" : "\n    after " + previous.shown()));
                    }
                    previous = request;
                    continue;
                }
                previous = request;
                statuses.merge(answer.status(), 1, Integer::sum);
                String problem = problemOf(request, answer);
                if (problem != null) {
                    problems.add("#" + i + " " + problem + " for " + request.shown() + "\n    got " + answer.status() + " "
                            + answer.headers() + " " + abbreviate(answer.text()));
                }
                generator.learn(answer);
            }
        }
        long millis = (System.nanoTime() - started) / 1_000_000;
        System.out.println("HttpFuzzIT: " + requests + " requests (connections " + (connectionEach ? "each" : "kept")
                + ") in " + millis + " ms, by status " + statuses + ", closed without an answer " + unanswered
                + ", by kind " + kinds);
        assertThat(problems).as("seed " + seed + " (rerun with -Dtspipe.seed=" + seed + ")").isEmpty();
        assertThat(unanswered).as("connections closed without an answer").isZero();

        try (RawHttp http = new RawHttp("127.0.0.1", server.port())) {
            RawHttp.Answer health = http.exchange(get("/health"), false);
            assertThat(health.status()).isEqualTo(200);
            assertThat(JSON.readTree(health.body()).get("streams").asText()).isEqualTo("RUNNING");
            RawHttp.Answer page = http.exchange(get(seriesPath("Caf\u00e9 5", "humidity") + "/readings?order=asc&limit=10000"), false);
            assertThat(page.status()).isEqualTo(200);
            List<Long> timestamps = new ArrayList<>();
            JSON.readTree(page.body()).get("readings").forEach(r -> timestamps.add(r.get("timestamp").asLong()));
            List<Long> expected = new ArrayList<>();
            for (int i = 0; i < READINGS; i++) {
                expected.add(BASE + i * 60_000L);
            }
            assertThat(timestamps).isEqualTo(expected);
        }
    }

    /** What is wrong with an answer, or null. */
    private static String problemOf(FuzzRequest request, RawHttp.Answer answer) {
        int status = answer.status();
        if (status >= 500) {
            return "a " + status;
        }
        String body = answer.text();
        if (LEAK.matcher(body).find()) {
            return "a stack trace or class name in the body";
        }
        if (request.envelope() != Envelope.TSPIPE) {
            return prometheusProblemOf(request, answer);
        }
        if (status >= 400 && !request.head()) {
            String type = answer.header("content-type");
            if (type == null || !type.startsWith("application/json")) {
                return "an error that is not JSON";
            }
            try {
                JsonNode json = JSON.readTree(body);
                if (json == null || !json.path("error").isTextual() || !json.path("message").isTextual()
                        || json.path("message").asText().isEmpty()) {
                    return "an error without error and message";
                }
            } catch (IOException e) {
                return "an error body that does not parse as JSON";
            }
        }
        return null;
    }

    /**
     * What is wrong with an answer of the Prometheus API, or null: every answer is JSON, a 200 is
     * {@code {"status":"success","data":...}} (the internal route's too, around the partitions it read), any other status
     * Prometheus' error envelope.
     */
    private static String prometheusProblemOf(FuzzRequest request, RawHttp.Answer answer) {
        String type = answer.header("content-type");
        if (type == null || !type.startsWith("application/json")) {
            return "an answer that is not JSON";
        }
        JsonNode json;
        try {
            json = JSON.readTree(answer.body());
        } catch (IOException e) {
            return "an answer that does not parse as JSON";
        }
        if (json == null || !json.isObject()) {
            return "an answer that is not a JSON object";
        }
        if (answer.status() == 200) {
            boolean success = json.path("status").asText().equals("success") && json.has("data");
            return success ? null : "a 200 that is not Prometheus' success";
        }
        if (!json.path("status").asText().equals("error") || !json.path("errorType").isTextual()
                || json.path("errorType").asText().isEmpty() || !json.path("error").isTextual()
                || json.path("error").asText().isEmpty()) {
            return "an error that is not Prometheus' envelope with errorType and error";
        }
        return null;
    }

    private static String abbreviate(String text) {
        return text.length() > 300 ? text.substring(0, 300) + "..." : text;
    }

    /** The shape every answer to a request must have. */
    enum Envelope {
        /** tspipe's: errors are {@code {"error":...,"message":...}}. */
        TSPIPE,
        /**
         * Prometheus': {@code {"status":"success","data":...}}, or {@code {"status":"error","errorType":...,"error":...}}
         * (the internal partition route's too).
         */
        PROMETHEUS
    }

    /** A request as sent, with what generated it and the shape its answer must have. */
    record FuzzRequest(String kind, byte[] bytes, boolean head, Envelope envelope) {
        String shown() {
            String text = new String(bytes, StandardCharsets.ISO_8859_1);
            StringBuilder shown = new StringBuilder();
            for (char c : (text.length() > 200 ? text.substring(0, 200) + "...(" + text.length() + " bytes)" : text).toCharArray()) {
                shown.append(c >= 0x20 && c < 0x7F ? String.valueOf(c) : String.format("\\x%02x", (int) c));
            }
            return kind + ": " + shown;
        }
    }

    /**
     * Whether a request, as sent or with its percent escapes decoded, looks like a stack trace or a class name: an
     * answer may quote the request, so such a request would prove nothing.
     */
    private static boolean quotesALeak(byte[] request) {
        String sent = new String(request, StandardCharsets.ISO_8859_1);
        StringBuilder decoded = new StringBuilder(sent.length());
        for (int i = 0; i < sent.length(); i++) {
            char c = sent.charAt(i);
            if (c == '%' && i + 2 < sent.length() && Character.digit(sent.charAt(i + 1), 16) >= 0
                    && Character.digit(sent.charAt(i + 2), 16) >= 0) {
                decoded.append((char) Integer.parseInt(sent.substring(i + 1, i + 3), 16));
                i += 2;
            } else {
                decoded.append(c == '+' ? ' ' : c);
            }
        }
        return LEAK.matcher(sent).find() || LEAK.matcher(decoded).find();
    }

    /** Random requests: mostly API queries with parameters of every kind, and every sort of malformed request. */
    static final class RequestGenerator {
        private static final String[] ROUTES = {"readings", "latest", "rollups"};
        private static final String[] ESCAPES = {"%00", "%C3%28", "%C0%AF", "%E0%80%AF", "%F8%88%80%80%80", "%ED%A0%80", "%FF",
                "%2F", "%5C", "%2E", "%2E%2E", "%25", "%", "%G1", "%e2%82%ac", "%F0%9F%98%80", "%20", "%0A", "%0D%0A", "%7F",
                "%3B", "%3F", "%23", "%C3%A9", "%1", "%%", "+"};
        private static final String[] METHODS = {"FOO", "PUT", "DELETE", "POST", "PATCH", "get", "Get", "OPTIONS", "TRACE",
                "CONNECT", "HEAD", "PRI", "M-SEARCH", "PROPFIND", "GETT", "X", "GET\u0000", "\u00c4GET", ""};
        private static final String[] VERSIONS = {"HTTP/1.2", "HTTP/2.0", "HTTP/0.9", "HTTP/1", "http/1.1", "HTTP/1.1 extra",
                "HTTP/3", "FOO/1.1", "HTTP/1.01", "HTTP/9.9", "HTTP /1.1", ""};
        private static final String[] DATES = {"2026-11-01T00:00:00Z", "2026-02-30T00:00:00Z", "2026-11-01T25:00:00Z",
                "2026-11-01", "2026-11-01T00:00Z", "+10000-01-01T00:00:00Z", "-2026-11-01T00:00:00Z", "9999-12-31T23:59:59.999Z",
                "1970-01-01T00:00:00Z", "1969-12-31T23:59:59Z", "2026-11-01T00:00:00+01:00", "2026-11-01T00:00:00.123456789Z",
                "T00:00:00Z", "2026-W44", "now", "yesterday"};
        private static final String[] NUMBERS = {"0", "1", "-1", "-0", "100", "10000", "10001", "2147483647", "2147483648",
                "-2147483649", "9223372036854775807", "9223372036854775808", "-9223372036854775808", "99999999999999999999999",
                "253402300800000", "253402300800001", "1793491200000", "1e10", "0x10", "1.5", "١٢٣", " 5", "5 ", "+5", "00005"};
        private static final String[] PARAMETERS = {"from", "to", "limit", "order", "cursor", "step", "tenant"};

        private final Random random;
        private final List<String> cursors = new ArrayList<>();
        private final PrometheusRequests prometheus;

        RequestGenerator(Random random) {
            this.random = random;
            this.prometheus = new PrometheusRequests(random);
        }

        /** Keeps the cursors that answers hand out, to send them back (with other queries, or altered). */
        void learn(RawHttp.Answer answer) {
            if (answer.status() == 200 && cursors.size() < 50 && answer.text().contains("\"nextCursor\":\"")) {
                String text = answer.text();
                int start = text.indexOf("\"nextCursor\":\"") + 14;
                cursors.add(text.substring(start, text.indexOf('"', start)));
            }
        }

        FuzzRequest next() {
            if (random.nextInt(5) == 0) {
                return prometheus.next();
            }
            int dice = random.nextInt(100);
            String kind;
            String method = "GET";
            String target;
            String version = "HTTP/1.1";
            boolean host = true;
            List<String> headers = new ArrayList<>();
            byte[] body = new byte[0];
            if (dice < 45) {
                kind = "query";
                target = apiPath() + query();
            } else if (dice < 60) {
                kind = "path";
                target = randomPath();
            } else if (dice < 70) {
                kind = "method";
                method = pick(METHODS);
                target = random.nextBoolean() ? apiPath() + query() : pick(new String[] {"/health", "/ready", "*", "/", "/metrics"});
                if (random.nextBoolean()) {
                    body = ascii(random.nextInt(64)).getBytes(StandardCharsets.ISO_8859_1);
                    headers.add("Content-Length: " + body.length);
                }
            } else if (dice < 75) {
                kind = "version";
                version = pick(VERSIONS);
                target = apiPath();
            } else if (dice < 80) {
                kind = "no-host";
                host = false;
                target = random.nextBoolean() ? "/health" : apiPath() + query();
                if (random.nextInt(4) == 0) {
                    version = "HTTP/1.0";
                }
            } else if (dice < 85) {
                kind = "big-headers";
                target = random.nextBoolean() ? "/health" : apiPath() + query();
                if (random.nextBoolean()) {
                    headers.add("X-Big: " + ascii(8_200 + random.nextInt(20_000)));
                } else {
                    for (int i = 0, n = 150 + random.nextInt(300); i < n; i++) {
                        headers.add("X-H" + i + ": " + ascii(60));
                    }
                }
            } else if (dice < 89) {
                kind = "long-uri";
                target = random.nextBoolean() ? "/api/v1/series/" + ascii(8_200 + random.nextInt(20_000)) + "/m/latest"
                        : apiPath() + "?from=" + "1".repeat(8_200 + random.nextInt(20_000));
            } else if (dice < 95) {
                kind = "headers";
                target = apiPath() + query();
                headers.addAll(oddHeaders());
            } else {
                kind = "junk";
                return new FuzzRequest(kind, junk(), false, Envelope.TSPIPE);
            }
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            String head = method + " " + target + (version.isEmpty() ? "" : " " + version) + "\r\n"
                    + (host ? "Host: 127.0.0.1\r\n" : "") + String.join("", headers.stream().map(h -> h + "\r\n").toList()) + "\r\n";
            bytes.writeBytes(head.getBytes(StandardCharsets.ISO_8859_1));
            bytes.writeBytes(body);
            byte[] request = bytes.toByteArray();
            if (quotesALeak(request)) {
                return next();
            }
            return new FuzzRequest(kind, request, method.equals("HEAD"), Envelope.TSPIPE);
        }

        private String apiPath() {
            int dice = random.nextInt(10);
            String device = dice < 6 ? encode(pick(DEVICES)) : segment();
            String metric = random.nextInt(10) < 7 ? pick(METRICS.toArray(new String[0])) : segment();
            return switch (random.nextInt(8)) {
                case 0 -> "/api/v1/devices/" + device + "/metrics";
                case 1 -> pick(new String[] {"/api/v1/stats/partitions", "/health", "/ready", "/openapi.json"});
                default -> "/api/v1/series/" + device + "/" + metric + "/" + pick(ROUTES);
            };
        }

        private String query() {
            int count = random.nextInt(6);
            if (count == 0) {
                return "";
            }
            List<String> pairs = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                int dice = random.nextInt(20);
                String name = dice == 0 ? segment() : dice == 1 ? "" : pick(PARAMETERS);
                pairs.add(dice == 2 ? name : name + "=" + value(name));
            }
            return "?" + String.join(random.nextInt(30) == 0 ? "&&" : "&", pairs);
        }

        private String value(String parameter) {
            int dice = random.nextInt(10);
            if (dice == 0) {
                return segment();
            }
            if (dice == 1) {
                return "";
            }
            return switch (parameter) {
                case "from", "to" -> random.nextBoolean() ? pick(NUMBERS) : encodeMostly(pick(DATES));
                case "limit" -> pick(NUMBERS);
                case "order" -> pick(new String[] {"asc", "desc", "ASC", "Desc", "sideways", "asc%00", "%61sc"});
                case "step" -> pick(new String[] {"1m", "1h", "1d", "2m", "1M", "%31m", "1w", "0m", "60s"});
                case "cursor" -> cursor();
                default -> segment();
            };
        }

        private String cursor() {
            if (!cursors.isEmpty() && random.nextInt(3) > 0) {
                char[] token = pick(cursors.toArray(new String[0])).toCharArray();
                if (random.nextBoolean()) {
                    token[random.nextInt(token.length)] = "ABCabc019-_".charAt(random.nextInt(11));
                }
                return new String(token);
            }
            StringBuilder token = new StringBuilder();
            for (int i = 0, n = random.nextBoolean() ? 19 : random.nextInt(40); i < n; i++) {
                token.append("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".charAt(random.nextInt(64)));
            }
            return token.toString();
        }

        /** A path segment: letters, digits, escapes of every kind, raw bytes outside ASCII now and then. */
        private String segment() {
            StringBuilder segment = new StringBuilder();
            int length = random.nextInt(20) == 0 ? 1_100 + random.nextInt(1_000) : random.nextInt(12);
            for (int i = 0; i < length; i++) {
                int dice = random.nextInt(20);
                if (dice < 3) {
                    segment.append(pick(ESCAPES));
                } else if (dice == 3) {
                    segment.append(pick(new String[] {".", "..", ";", ";a=b", "~", "!", "$", "'", "(", "*", ",", ":", "@", "=", "|"}));
                } else if (dice == 4 && random.nextInt(5) == 0) {
                    segment.append((char) (0x80 + random.nextInt(0x80)));    // raw, not percent-encoded
                } else {
                    segment.append("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_".charAt(random.nextInt(64)));
                }
            }
            return segment.toString();
        }

        private String randomPath() {
            StringBuilder path = new StringBuilder();
            for (int i = 0, n = 1 + random.nextInt(7); i < n; i++) {
                path.append(random.nextInt(12) == 0 ? "//" : "/").append(i < 2 && random.nextBoolean()
                        ? pick(new String[] {"api", "v1", "series", "devices", "stats", "..", ".", "WEB-INF", "META-INF"}) : segment());
            }
            if (random.nextInt(4) == 0) {
                path.append(query());
            }
            if (random.nextInt(10) == 0) {
                path.append('#').append(segment());
            }
            return path.toString();
        }

        private List<String> oddHeaders() {
            List<String> headers = new ArrayList<>();
            for (int i = 0, n = 1 + random.nextInt(4); i < n; i++) {
                headers.add(pick(new String[] {
                    "Accept: text/html", "Accept: */*", "Accept: application/xml", "Accept: image/png;q=0", "Accept: ,,,",
                    "Accept-Charset: ebcdic", "Accept-Encoding: gzip", "Accept-Encoding: br;q=2", "Connection: close",
                    "Connection: keep-alive, Upgrade", "Upgrade: h2c", "X-Tspipe-Forwarded: 1", "Content-Length: abc",
                    "Content-Length: -1", "Content-Length: 99999999999999999999", "Transfer-Encoding: gzip",
                    "Transfer-Encoding: chunked, identity", "Host: second", "Bad Header: x", ": empty name", "X-Nul: a\u0000b",
                    "X-High: \u00ff\u00fe", "Range: bytes=0-1", "If-None-Match: *", "Cookie: " + ascii(100),
                    "Content-Type: application/json", "X-Forwarded-For: 256.1.1.1", "Expect: 200-ok", "Authorization: Basic %%%"}));
            }
            return headers;
        }

        /**
         * Random bytes ending in an empty line. Bytes that a server skips before a request line (empty lines, and
         * Jetty skips {@code ':'} too) are no request yet, and a server rightly waits for one: junk made of them
         * alone is followed by a request for {@code /health}, which must then be answered.
         */
        private byte[] junk() {
            ByteArrayOutputStream junk = new ByteArrayOutputStream();
            boolean preambleOnly = true;
            for (int i = 0, n = 1 + random.nextInt(200); i < n; i++) {
                int b = random.nextInt(256);
                preambleOnly &= b == ':' || b == '\r' || b == '\n';
                junk.write(b);
            }
            junk.writeBytes("\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
            if (preambleOnly) {
                junk.writeBytes(get("/health"));
            }
            return junk.toByteArray();
        }

        private String encodeMostly(String text) {
            return random.nextInt(4) == 0 ? text : encode(text);
        }

        private String ascii(int length) {
            StringBuilder text = new StringBuilder(length);
            for (int i = 0; i < length; i++) {
                text.append((char) ('a' + random.nextInt(26)));
            }
            return text.toString();
        }

        private <T> T pick(T[] choices) {
            return choices[random.nextInt(choices.length)];
        }

        private String pick(List<String> choices) {
            return choices.get(random.nextInt(choices.size()));
        }
    }

    /**
     * Random requests to the Prometheus API: every route, by GET and by POST with a form body (sometimes both a query
     * string and a body, sometimes a malformed body or an odd content type); PromQL built from its tokens, valid
     * queries mutated, deep nesting and very long strings; times and steps valid, huge, negative, NaN, RFC 3339 and
     * garbage; repeated {@code match[]}; unknown label names; and the internal partition route with odd parameters.
     */
    static final class PrometheusRequests {
        private static final long BASE_SECONDS = BASE / 1000;
        private static final String[] ROUTES = {"query", "query", "query", "query_range", "query_range", "query_range",
                "series", "labels", "label", "metadata", "query_exemplars", "rules"};
        private static final String[] TOKENS = {"sum", "avg", "min", "max", "count", "by", "without", "(", ")", "(",
                ")", "{", "}", "[", "]", "=", "!=", "=~", "!~", "\"", "'", "`", ",", "[5m]", "[1m30s]", "[0s]", "[1y]",
                "[250ms]", "[99999999999999999y]", "[5m:1m]", "rate", "increase", "avg_over_time", "count_over_time",
                "last_over_time", "sum_over_time", "histogram_quantile", "temperature", "humidity", "__name__", "device",
                "tenant", "job", "\"fuzz-0\"", "\"Caf\u00e9 5\"", "\".+\"", "\"fuzz-.*\"", "\"((\"", "\"[\"", "\"\"",
                "\"\\u00e9\"", "1e308", "-1e308", "1e-400", "NaN", "Inf", "-Inf", "-", "+", "*", "/", "%", "^", "0", "1",
                ".5", "0x1f", "1_000", "offset", "@", "5m", ":", " ", "\\", "#", "\u00e9", "\u00ff", "\u20ac",
                "\ud83d\ude00", "\u0000", "\n", "\t"};
        private static final String[] QUERIES = {"sum by (device) (rate(temperature{device=~\"fuzz-.*\"}[5m]))",
                "count_over_time({__name__=~\".+\"}[1h])", "avg_over_time(humidity{device=\"fuzz-1\"}[10m])",
                "temperature", "max without (device) (last_over_time(temperature[30m]))",
                "increase(humidity{device!=\"fuzz-2\"}[1h])", "{device=~\"Caf.*\"}", "count(temperature)",
                "min(sum_over_time({device=~\".+\"}[2m])) by (__name__)", "1+1", "-2^2", "1e308*10",
                "sum(rate(humidity[1m])) / 2", "temperature offset 5m", "rate(temperature)"};
        private static final String[] SELECTORS = {"temperature", "humidity", "{device=\"fuzz-0\"}",
                "{__name__=~\".+\"}", "{device=~\"fuzz-[12]\"}", "up{job=\"x\"}", "{job=\"\"}", "{device!=\"\"}",
                "temperature{device=\"Caf\u00e9 5\"}", "{__name__=~\"hum.*\",device=~\".*\"}", "rate(temperature[5m])",
                "{}", "{tenant=\"acme\"}", "{unknown_label=~\"(\"}"};
        /** Times: unix seconds as Grafana sends them, around the readings, and every odd kind. */
        private static final String[] TIMES = {BASE_SECONDS + "", BASE_SECONDS + ".5", BASE_SECONDS + ".123456",
                BASE_SECONDS + 3600 + "", BASE_SECONDS + 86400 + "", BASE_SECONDS + "e0", "0", "-1", "-0", "0.0001",
                "1e308", "-1e308", "1e10000", "-1e10000", "1e999999999", "1e-999999999", "NaN", "Inf", "+Inf", "-Inf",
                "9223372036854775.807", "-9223372036854775.808", "9223372036854775807", "-9223372036854775808",
                "99999999999999999999999", "2026-11-01T00:00:00Z", "2026-11-01T00:30:00.5+01:00", "2026-02-30T00:00:00Z",
                "+999999999-12-31T23:59:59Z", "-999999999-01-01T00:00:00Z", "+10000-01-01T00:00:00Z", "2026-11-01",
                "now", "now-1h", " 1", "0x10", "1_000", "\u0661\u0662\u0663"};
        private static final String[] STEPS = {"1", "15", "60", "300", "0.5", "0.001", "0.0001", "0", "-1", "-15s",
                "15s", "1m30s", "5m", "1h", "1d", "1y", "0s", "1e308", "1e10000", "NaN", "Inf", "1e-9",
                "99999999999999999999", "9223372036854775807", "9223372036854775.807", "abc", "1m1", "1.5m", "PT1M", "15S",
                "\u0661"};
        /** Label names for the path of label/{name}/values; control characters there are the HTTP layer's 400. */
        private static final String[] LABELS = {"device", "tenant", "__name__", "job", "unknown_label", "_", "a.b",
                "%C3%A9", "a%20b", "%2F", "9lives", "__meta", "exported_device", "Device"};
        private static final String[] NUMBERS = {"0", "1", "2", "3", "-1", "99", "2147483647", "2147483648",
                "-2147483649", "9223372036854775807", "-9223372036854775808", "9223372036854775808", "1.5", "x", "1e3", " 1"};
        private static final String FORM = "application/x-www-form-urlencoded";
        private static final String[] CONTENT_TYPES = {FORM, FORM + "; charset=UTF-8", FORM + "; charset=ISO-8859-1",
                FORM + "; charset=nope", FORM + ";charset=", "APPLICATION/X-WWW-FORM-URLENCODED", "text/plain",
                "application/json", "multipart/form-data; boundary=x", FORM + ", text/plain"};
        /** Form bodies that a strict decoder refuses: bad escapes, bytes that are not UTF-8, odd separators. */
        private static final String[] MALFORMED = {"%", "%G1", "%C3%28", "%FF%FE", "%ED%A0%80", "%00", "&&", "=", "==",
                "&=&", "query", "query=%", "query=%%31", "match[]=%E0%80%AF", "start=1%", ";", "+", "%2B%",
                "query=\u00e9\u00ff"};
        private static final String TEXT = "abcdefghijklmnopqrstuvwxyz0123456789_-.:\"'{}()=~ ";
        private static final String[] OUTSIDE_ASCII = {"\u00e9", "\u20ac", "\ud83d\ude00", "\u0000", "\u00ff"};
        private static final String[] PLAUSIBLE_STEPS = {"1", "15", "60", "300", "15s", "1m"};

        private final Random random;

        PrometheusRequests(Random random) {
            this.random = random;
        }

        FuzzRequest next() {
            boolean internal = random.nextInt(10) == 0;
            String route = internal ? "internal" : ROUTES[random.nextInt(ROUTES.length)];
            String path = internal ? "/prometheus/internal/partition" : route.equals("label")
                    ? "/prometheus/api/v1/label/" + label() + "/values" : "/prometheus/api/v1/" + route;
            List<String[]> parameters = internal ? internalParameters() : parameters(route);
            boolean post = random.nextInt(5) < 3;
            String kind = "prometheus-" + route + (post ? "-post" : "-get");
            StringBuilder url = new StringBuilder();
            StringBuilder form = new StringBuilder();
            // A request line longer than the HTTP layer takes is its 414, which the other requests try: by GET the
            // query string is cut, by POST what does not fit goes in the form body (where clients may mix them).
            int urlRoom = 7_000 - path.length();
            for (String[] parameter : parameters) {
                String pair = formEncode(parameter[0]) + (parameter.length == 1 ? "" : "=" + formEncode(parameter[1]));
                boolean inForm = post && (random.nextInt(6) > 0 || url.length() + pair.length() >= urlRoom);
                StringBuilder into = inForm ? form : url;
                into.append(into.isEmpty() ? "" : "&").append(pair);
            }
            if (post && random.nextInt(6) == 0) {
                kind += "-malformed";
                for (int i = 0, n = 1 + random.nextInt(3); i < n; i++) {
                    form.insert(random.nextInt(form.length() + 1), pick(MALFORMED));
                }
            }
            url.setLength(Math.min(url.length(), urlRoom));
            String target = path + (url.isEmpty() ? "" : "?" + url);
            byte[] body = form.toString().getBytes(StandardCharsets.UTF_8);
            StringBuilder head = new StringBuilder((post ? "POST " : "GET ") + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\n");
            if (post) {
                head.append("Content-Type: ").append(random.nextInt(5) == 0 ? pick(CONTENT_TYPES) : FORM).append("\r\n")
                        .append("Content-Length: ").append(body.length).append("\r\n");
            }
            head.append("\r\n");
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            bytes.writeBytes(head.toString().getBytes(StandardCharsets.ISO_8859_1));
            if (post) {
                bytes.writeBytes(body);
            }
            byte[] request = bytes.toByteArray();
            if (quotesALeak(request)) {
                return next();
            }
            return new FuzzRequest(kind, request, false, Envelope.PROMETHEUS);
        }

        /** The parameters of a route, as name and value ({@code {name}} alone: a name without '='). */
        private List<String[]> parameters(String route) {
            List<String[]> parameters = new ArrayList<>();
            boolean plausible = random.nextBoolean();
            long start = BASE_SECONDS + random.nextInt(4 * 3600) - 3600;
            switch (route) {
                case "query" -> {
                    optionally(parameters, "query", query());
                    optionally(parameters, "time", plausible ? Long.toString(start) : time());
                }
                case "query_range" -> {
                    optionally(parameters, "query", query());
                    optionally(parameters, "start", plausible ? Long.toString(start) : time());
                    optionally(parameters, "end", plausible ? Long.toString(start + random.nextInt(3 * 3600)) : time());
                    optionally(parameters, "step", plausible ? pick(PLAUSIBLE_STEPS) : step());
                }
                default -> {
                    for (int i = 0, n = random.nextInt(4) == 0 ? random.nextInt(40) : random.nextInt(3); i < n; i++) {
                        parameters.add(new String[] {"match[]", random.nextInt(3) == 0 ? query() : pick(SELECTORS)});
                    }
                    if (random.nextBoolean()) {
                        parameters.add(new String[] {"start", plausible ? Long.toString(start) : time()});
                        parameters.add(new String[] {"end", plausible ? Long.toString(start + 3600) : time()});
                    }
                }
            }
            for (int i = 0, n = random.nextInt(3); i < n; i++) {
                parameters.add(switch (random.nextInt(8)) {
                    case 0 -> new String[] {"lookback_delta", step()};
                    case 1 -> new String[] {"limit", pick(NUMBERS)};
                    case 2 -> new String[] {"timeout", step()};
                    case 3 -> new String[] {"tenant", pick(new String[] {"acme", "", "*"})};
                    case 4 -> new String[] {"metric", pick(new String[] {"temperature", "", "nope", "\u00e9"})};
                    case 5 -> new String[] {text(1 + random.nextInt(12))};
                    case 6 -> new String[] {pick(new String[] {"query", "time", "start", "end", "step"}), time()};
                    default -> new String[] {text(1 + random.nextInt(12)), text(random.nextInt(20))};
                });
            }
            Collections.shuffle(parameters, random);
            return parameters;
        }

        /** The internal route's parameters, as another instance sends them, or odd. */
        private List<String[]> internalParameters() {
            List<String[]> parameters = new ArrayList<>();
            optionally(parameters, "partition", random.nextBoolean() ? Integer.toString(random.nextInt(3)) : pick(NUMBERS));
            optionally(parameters, "mode", pick(new String[] {"values", "values", "series", "series", "", "VALUES", "x"}));
            optionally(parameters, "query", query());
            long start = BASE + random.nextInt(3600) * 1000L;
            optionally(parameters, "start_ms", random.nextBoolean() ? Long.toString(start) : pick(NUMBERS));
            optionally(parameters, "end_ms", random.nextBoolean() ? Long.toString(start + random.nextInt(3600) * 1000L)
                    : pick(NUMBERS));
            optionally(parameters, "step_ms", random.nextBoolean() ? "60000" : pick(NUMBERS));
            optionally(parameters, "lookback_ms", random.nextBoolean() ? "300000" : pick(NUMBERS));
            optionally(parameters, "since_ms", random.nextBoolean() ? "-9223372036854775808" : pick(NUMBERS));
            for (int i = 0, n = random.nextInt(3); i < n; i++) {
                parameters.add(new String[] {"match[]", pick(SELECTORS)});
            }
            return parameters;
        }

        private void optionally(List<String[]> parameters, String name, String value) {
            if (random.nextInt(12) > 0) {
                parameters.add(new String[] {name, value});
            }
            if (random.nextInt(30) == 0) {
                parameters.add(new String[] {name, random.nextBoolean() ? value : ""});
            }
        }

        /** PromQL: a valid query, mutated or not; tokens at random; deep nesting; a long string; nothing. */
        private String query() {
            int dice = random.nextInt(20);
            if (dice < 8) {
                List<String> tokens = new ArrayList<>(List.of(pick(QUERIES).split("(?<=[(){}\\[\\],])|(?=[(){}\\[\\],])")));
                for (int i = 0, n = random.nextInt(4); i < n; i++) {
                    int at = random.nextInt(tokens.size() + 1);
                    switch (random.nextInt(3)) {
                        case 0 -> tokens.add(at, pick(TOKENS));
                        case 1 -> tokens.remove(Math.min(at, tokens.size() - 1));
                        default -> tokens.set(Math.min(at, tokens.size() - 1), pick(TOKENS));
                    }
                    if (tokens.isEmpty()) {
                        break;
                    }
                }
                return String.join("", tokens);
            }
            if (dice < 16) {
                StringBuilder query = new StringBuilder();
                for (int i = 0, n = 1 + random.nextInt(25); i < n; i++) {
                    query.append(pick(TOKENS)).append(random.nextBoolean() ? " " : "");
                }
                return query.toString();
            }
            if (dice < 18) {
                // Nesting as deep as a query may sensibly be, and deep enough to exhaust a recursive parser's stack.
                int depth = random.nextBoolean() ? 50 + random.nextInt(500) : 10_000 + random.nextInt(100_000);
                return switch (random.nextInt(4)) {
                    case 0 -> "(".repeat(depth) + "1" + ")".repeat(depth);
                    case 1 -> "-".repeat(depth) + "1";
                    case 2 -> "sum(".repeat(depth) + "temperature" + ")".repeat(depth);
                    default -> "2" + "^2".repeat(depth);
                };
            }
            if (dice == 18) {
                return "temperature{device=\"" + text(1_000 + random.nextInt(100_000)) + "\"}";
            }
            return "";
        }

        private String time() {
            return random.nextInt(10) == 0 ? text(random.nextInt(30)) : pick(TIMES);
        }

        private String step() {
            return random.nextInt(10) == 0 ? text(random.nextInt(10)) : pick(STEPS);
        }

        private String label() {
            if (random.nextInt(5) > 0) {
                return pick(LABELS);
            }
            return formEncode(text(1 + random.nextInt(random.nextInt(20) == 0 ? 2_000 : 20)).replace("\u0000", ""));
        }

        /** Letters, digits, punctuation and now and then a character outside ASCII. */
        private String text(int length) {
            StringBuilder text = new StringBuilder(length);
            for (int i = 0; i < length; i++) {
                text.append(random.nextInt(30) == 0 ? pick(OUTSIDE_ASCII) : TEXT.charAt(random.nextInt(TEXT.length())));
            }
            return text.toString();
        }

        private static String formEncode(String text) {
            return java.net.URLEncoder.encode(text, StandardCharsets.UTF_8);
        }

        private String pick(String[] choices) {
            return choices[random.nextInt(choices.length)];
        }
    }
}
