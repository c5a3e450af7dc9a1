package dev.tspipe.query;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.ThrowableProxyUtil;
import ch.qos.logback.core.AppenderBase;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tspipe.embedded.EmbeddedSchemaRegistry;
import dev.tspipe.embedded.SelfSignedCertificate;
import dev.tspipe.embedded.junit.EmbeddedKafkaExtension;
import dev.tspipe.ingest.ReadingProducer;
import dev.tspipe.processor.topology.PipelineConfig;
import dev.tspipe.processor.topology.Topics;
import dev.tspipe.query.auth.ApiTokens;
import dev.tspipe.query.auth.Grant;
import dev.tspipe.query.auth.Scope;
import dev.tspipe.query.routing.Forwarder;
import dev.tspipe.query.tls.HttpTls;
import dev.tspipe.schemas.serde.AvroSerdeConfig;
import dev.tspipe.schemas.tls.PemFiles;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.streams.KafkaStreams;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Two instances of a multi-tenant deployment with bearer tokens and HTTPS, on the embedded broker:
 * a tenant's token reads its own series from either instance (so through forwarding, over HTTPS, too),
 * never another tenant's, and cannot tell whether another tenant's series exist, in tspipe's API and in the
 * Prometheus API alike; the cluster-wide routes need an admin token; a token removed from the file stops
 * working on both instances without a restart; and no token appears in any log line of the run.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class SecuredInstancesIT {

    @RegisterExtension
    static final EmbeddedKafkaExtension KAFKA = new EmbeddedKafkaExtension();

    private static final String APP = "secured-it";
    private static final String TOPIC = APP + "-readings";
    private static final long BASE = Instant.parse("2026-11-01T00:00:00Z").toEpochMilli();
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final SecureRandom RANDOM = new SecureRandom();
    /** Series per tenant, as "device/metric"; the device names differ so that no name exists in both tenants. */
    private static final Map<String, Map<String, TreeMap<Long, Double>>> SERIES = new LinkedHashMap<>();

    private static final String ACME_READ = ApiTokens.newToken(RANDOM);
    private static final String GLOBEX_READ = ApiTokens.newToken(RANDOM);
    private static final String EVERY_TENANT_READ = ApiTokens.newToken(RANDOM);
    private static final String ADMIN = ApiTokens.newToken(RANDOM);
    private static final String LATER = ApiTokens.newToken(RANDOM);
    private static final String ACME_WRITE = ApiTokens.newToken(RANDOM);
    private static final List<String> ALL_TOKENS = List.of(ACME_READ, GLOBEX_READ, EVERY_TENANT_READ, ADMIN, LATER, ACME_WRITE);

    /** Every log line of the run, with its stack trace. */
    private static final List<String> LOG = new CopyOnWriteArrayList<>();
    private static AppenderBase<ILoggingEvent> logCapture;

    @TempDir
    static Path dir;

    private static EmbeddedSchemaRegistry registry;
    private static Path tokensFile;
    private static HttpClient client;
    private static TestNode a;
    private static TestNode b;
    private static ReadingProducer writes;

    @BeforeAll
    static void startTwoSecuredInstances() throws Exception {
        logCapture = new AppenderBase<>() {
            @Override
            protected void append(ILoggingEvent event) {
                LOG.add(event.getFormattedMessage() + (event.getThrowableProxy() == null ? ""
                        : "\n" + ThrowableProxyUtil.asString(event.getThrowableProxy())));
            }
        };
        logCapture.start();
        ((Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME)).addAppender(logCapture);

        SelfSignedCertificate certificate = SelfSignedCertificate.create(dir, "tspipe-node");
        client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).sslContext(trusting(certificate.certificatePem()))
                .build();
        tokensFile = dir.resolve("tokens");
        writeTokens(List.of(
                ApiTokens.line(ACME_READ, new Grant("acme", Scope.READ, "acme-dashboard")),
                ApiTokens.line(GLOBEX_READ, new Grant("globex", Scope.READ, "globex-dashboard")),
                ApiTokens.line(EVERY_TENANT_READ, new Grant(null, Scope.READ, "support")),
                ApiTokens.line(ADMIN, new Grant(null, Scope.ADMIN, "ops")),
                ApiTokens.line(ACME_WRITE, new Grant("acme", Scope.WRITE, "acme-telegraf"))));

        registry = EmbeddedSchemaRegistry.builder().bootstrapServers(KAFKA.broker().bootstrapServers()).start();
        KAFKA.broker().createTopic(TOPIC, 4);
        KAFKA.broker().createTopic(APP + "-dlq", 1);
        KAFKA.broker().createTopic(Topics.DEVICES, 1);
        PipelineConfig config = new PipelineConfig(Map.of(PipelineConfig.SCHEMA_REGISTRY_URL, registry.url(),
                PipelineConfig.READINGS_TOPIC, TOPIC, PipelineConfig.DLQ_TOPIC, APP + "-dlq", PipelineConfig.MULTI_TENANT, "true"));
        SERIES.put("acme", series("press"));
        SERIES.put("globex", series("pump"));
        Map<String, Object> producerConfig = KAFKA.broker().clientConfig();
        producerConfig.put(ProducerConfig.LINGER_MS_CONFIG, 5);
        SERIES.forEach((tenant, series) -> SeriesProducer.produce(producerConfig, registry.url(), TOPIC, tenant, series));

        Map<String, Object> writeSettings = new java.util.HashMap<>(KAFKA.broker().clientConfig());
        writeSettings.put(AvroSerdeConfig.SCHEMA_REGISTRY_URL, registry.url());
        writes = ReadingProducer.create(TOPIC, writeSettings);
        HttpTls tls = new HttpTls(certificate.certificatePem(), certificate.keyPem(), Optional.of(certificate.certificatePem()));
        a = TestNode.start(KAFKA.broker().bootstrapServers(), config, APP, dir.resolve("a"),
                builder -> builder.tls(tls).authTokens(tokensFile).tokensPoll(Duration.ofMillis(200)).writes(writes));
        b = TestNode.start(KAFKA.broker().bootstrapServers(), config, APP, dir.resolve("b"),
                builder -> builder.tls(tls).authTokens(tokensFile).tokensPoll(Duration.ofMillis(200)).writes(writes));
        await().atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(500)).until(() ->
                a.streams().state() == KafkaStreams.State.RUNNING && b.streams().state() == KafkaStreams.State.RUNNING
                        && allLatestStored(a) && allLatestStored(b));
    }

    @AfterAll
    static void stopAll() {
        for (TestNode instance : new TestNode[] {a, b}) {
            if (instance != null) {
                instance.close();
            }
        }
        if (writes != null) {
            writes.close();
        }
        if (registry != null) {
            registry.close();
        }
        ((Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME)).detachAppender(logCapture);
    }

    @Test
    @Order(1)
    void probesAndTheApiDescriptionAreOpenEverythingElseNeedsAKnownBearerToken() throws Exception {
        assertThat(a.server().url()).startsWith("https://");
        for (String open : List.of("/health", "/ready", "/openapi.json", "/", "/console/console.js", "/console/console.css")) {
            assertThat(get(a, open, null).status()).as(open).isEqualTo(200);
        }
        String path = "/api/v1/series/press-00/temperature/latest";
        for (String authorization : new String[] {null, "Bearer " + ApiTokens.newToken(RANDOM), "Basic YWNtZTpzZWNyZXQ=",
                "Bearer"}) {
            Answer refused = send(a, path, authorization, Map.of());
            assertThat(refused.status()).as(String.valueOf(authorization)).isEqualTo(401);
            assertThat(refused.header("WWW-Authenticate")).startsWith("Bearer");
            assertThat(refused.body().get("error").asText()).isEqualTo("unauthorized");
        }
        assertThat(get(a, "/metrics", null).status()).isEqualTo(401);
        assertThat(get(a, "/api/v1/stats/partitions", null).status()).isEqualTo(401);
    }

    @Test
    @Order(2)
    void aTenantsTokenReadsItsOwnSeriesFromEitherInstance() throws Exception {
        double forwardedBefore = forwarded(a) + forwarded(b);
        for (TestNode instance : List.of(a, b)) {
            for (Map.Entry<String, TreeMap<Long, Double>> series : SERIES.get("acme").entrySet()) {
                String path = "/api/v1/series/" + series.getKey() + "/latest";
                Answer implicit = get(instance, path, ACME_READ);
                assertThat(implicit.status()).as(path).isEqualTo(200);
                assertThat(implicit.body().get("timestamp").asLong()).isEqualTo(series.getValue().lastKey());
                assertThat(get(instance, path + "?tenant=acme", ACME_READ).body()).isEqualTo(implicit.body());
                assertThat(get(instance, path + "?tenant=acme", EVERY_TENANT_READ).body()).isEqualTo(implicit.body());
                String device = series.getKey().substring(0, series.getKey().indexOf('/'));
                assertThat(get(instance, "/api/v1/devices/" + device + "/metrics", ACME_READ).status()).isEqualTo(200);
            }
        }
        // Each series was asked of both instances: every one the other instance owns went over HTTPS to it.
        assertThat(forwarded(a) + forwarded(b) - forwardedBefore).isGreaterThanOrEqualTo(SERIES.get("acme").size());
        assertThat(get(a, "/api/v1/series/press-00/temperature/latest", EVERY_TENANT_READ).status())
                .as("a token for every tenant names the tenant").isEqualTo(400);
    }

    /**
     * Globex's token asks for each of acme's series on both instances (so half of them forwarded), also
     * with the forwarding header forged: without a tenant it reads globex's own data, where the series does not
     * exist, so it gets the very answer of an unknown series; naming acme is refused with one answer, the same
     * for acme's series as for one that exists nowhere.
     */
    @Test
    @Order(3)
    void anotherTenantsTokenNeitherReadsASeriesNorLearnsThatItExists() throws Exception {
        Answer forbiddenNowhere = get(a, "/api/v1/series/no-such-device/temperature/latest?tenant=acme", GLOBEX_READ);
        assertThat(forbiddenNowhere.status()).isEqualTo(403);
        for (TestNode instance : List.of(a, b)) {
            for (Map<String, String> headers : List.of(Map.<String, String>of(), Map.of(Forwarder.FORWARDED_HEADER, "1"))) {
                for (String series : SERIES.get("acme").keySet()) {
                    String path = "/api/v1/series/" + series + "/latest";
                    Answer asGlobex = send(instance, path, "Bearer " + GLOBEX_READ, headers);
                    // With the forged header, an instance that does not hold the partition says 503, as for any series.
                    Answer unknownSeries = send(instance, path + "?tenant=globex", "Bearer " + ADMIN, headers);
                    assertThat(unknownSeries.status()).isIn(headers.isEmpty() ? List.of(404) : List.of(404, 503));
                    assertThat(asGlobex.status()).as(path + " " + headers).isEqualTo(unknownSeries.status());
                    assertThat(asGlobex.body()).isEqualTo(unknownSeries.body());

                    Answer namingAcme = send(instance, path + "?tenant=acme", "Bearer " + GLOBEX_READ, headers);
                    assertThat(namingAcme.status()).isEqualTo(403);
                    assertThat(namingAcme.body()).isEqualTo(forbiddenNowhere.body());
                    String device = series.substring(0, series.indexOf('/'));
                    assertThat(send(instance, "/api/v1/devices/" + device + "/metrics", "Bearer " + GLOBEX_READ, headers)
                            .status()).isIn(headers.isEmpty() ? List.of(404) : List.of(404, 503));
                    assertThat(send(instance, "/api/v1/series/" + series + "/readings?tenant=acme", "Bearer " + GLOBEX_READ,
                            headers).body()).isEqualTo(forbiddenNowhere.body());
                }
            }
            for (String series : SERIES.get("globex").keySet()) {
                assertThat(get(instance, "/api/v1/series/" + series + "/readings", GLOBEX_READ).status()).isEqualTo(200);
            }
        }
    }

    @Test
    @Order(4)
    void metricsAndStatisticsNeedAnAdminToken() throws Exception {
        for (String token : List.of(ACME_READ, EVERY_TENANT_READ)) {
            assertThat(get(a, "/metrics", token).status()).isEqualTo(403);
            Answer statistics = get(b, "/api/v1/stats/partitions", token);
            assertThat(statistics.status()).isEqualTo(403);
            assertThat(statistics.body().get("message").asText()).contains("needs a token of scope admin");
        }
        assertThat(get(a, "/metrics", ADMIN).status()).isEqualTo(200);
        // The statistics of both instances: the fan-out to the other one carries the admin's token.
        JsonNode statistics = get(a, "/api/v1/stats/partitions", ADMIN).body();
        assertThat(statistics.get("instances")).hasSize(2).allSatisfy(instance ->
                assertThat(instance.get("reachable").asBoolean()).as(instance.toString()).isTrue());
        assertThat(statistics.get("partitions")).hasSize(4);
    }

    /** Writes need a token of scope write, and a tenant's write token writes its own tenant only. */
    @Test
    @Order(4)
    void aWriteTokenWritesItsTenantOnly() throws Exception {
        String line = "env,device=press-w temperature=19.5 " + BASE;
        assertThat(write(a, "/api/v2/write?bucket=acme&precision=ms", line, "Bearer " + ACME_READ).statusCode()).isEqualTo(403);
        assertThat(write(a, "/api/v2/write?bucket=acme&precision=ms", line, null).statusCode()).isEqualTo(401);
        assertThat(write(a, "/api/v2/write?bucket=globex&precision=ms", line, "Token " + ACME_WRITE).statusCode()).isEqualTo(403);
        // InfluxDB's scheme, and no bucket: the token's tenant.
        assertThat(write(b, "/api/v2/write?precision=ms", line, "Token " + ACME_WRITE).statusCode()).isEqualTo(204);
        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200)).until(() ->
                get(a, "/api/v1/series/press-w/env.temperature/latest", ACME_READ).status() == 200);
        assertThat(get(a, "/api/v1/series/press-w/env.temperature/latest", ACME_READ).body().get("value").asDouble())
                .isEqualTo(19.5);
        assertThat(get(a, "/api/v1/series/press-w/env.temperature/latest", GLOBEX_READ).status()).isEqualTo(404);
    }

    /**
     * The Prometheus API, asked as Grafana asks (POST forms, unix seconds): a regex reads every partition, on both
     * instances (so the other instance's partitions through the internal route, with the caller's token). A tenant's
     * token sees all of its own series and nothing of another tenant's, whether the query names no tenant, matches
     * the other tenant's label, or lists label values; naming another tenant is refused in Prometheus' envelope.
     */
    @Test
    @Order(4)
    void thePrometheusApiShowsATenantsTokenItsOwnSeriesOnly() throws Exception {
        Set<String> acme = devices("acme");
        Set<String> globex = devices("globex");
        for (TestNode instance : List.of(a, b)) {
            for (String selector : List.of("{__name__=~\".+\"}", "{device=~\"p.+\"}")) {
                String query = "count_over_time(" + selector + "[10m])";
                Answer own = rangeQuery(instance, query, Map.of(), ACME_READ);
                assertThat(own.status()).as(query + " " + own.raw().body()).isEqualTo(200);
                assertThat(tenantsOf(own)).as(query).containsOnly("acme");
                assertThat(devicesOf(own)).as(query).containsAll(acme).doesNotContainAnyElementsOf(globex);
                for (JsonNode series : own.body().at("/data/result")) {
                    String device = series.at("/metric/device").asText();
                    if (acme.contains(device)) {
                        // The last instant's window holds every reading written.
                        JsonNode values = series.get("values");
                        assertThat(values.get(values.size() - 1).get(1).asInt()).as(series.toString())
                                .isEqualTo(SERIES.get("acme").get(device + "/temperature").size());
                    }
                }

                Answer namingGlobex = rangeQuery(instance, query, Map.of("tenant", "globex"), ACME_READ);
                assertPrometheusError(namingGlobex, 403, "forbidden");
                assertPrometheusError(rangeQuery(instance, query, Map.of(), null), 401, "unauthorized");

                Answer everyTenant = rangeQuery(instance, query, Map.of(), EVERY_TENANT_READ);
                assertThat(tenantsOf(everyTenant)).as(query).containsOnly("acme", "globex");
                assertThat(devicesOf(everyTenant)).as(query).containsAll(acme).containsAll(globex);
                Answer everyTenantNamingAcme = rangeQuery(instance, query, Map.of("tenant", "acme"), EVERY_TENANT_READ);
                assertThat(tenantsOf(everyTenantNamingAcme)).as(query).containsOnly("acme");
                assertThat(devicesOf(everyTenantNamingAcme)).as(query).containsAll(acme);
            }
            String globexMatcher = "count_over_time({__name__=~\".+\",tenant=\"globex\"}[10m])";
            Answer matchingGlobex = rangeQuery(instance, globexMatcher, Map.of(), ACME_READ);
            assertThat(matchingGlobex.status()).isEqualTo(200);
            assertThat(matchingGlobex.body().get("status").asText()).isEqualTo("success");
            assertThat(matchingGlobex.body().at("/data/result")).as(matchingGlobex.raw().body()).isEmpty();
            assertThat(devicesOf(rangeQuery(instance, globexMatcher, Map.of(), EVERY_TENANT_READ)))
                    .as("the same matcher with a token for every tenant").containsAll(globex);

            assertThat(labelValues(instance, "tenant", "", ACME_READ)).containsExactly("acme");
            assertThat(labelValues(instance, "tenant", "", EVERY_TENANT_READ)).containsExactly("acme", "globex");
            assertThat(labelValues(instance, "tenant", "?tenant=acme", EVERY_TENANT_READ)).containsExactly("acme");
            assertThat(labelValues(instance, "device", "", GLOBEX_READ)).containsAll(globex)
                    .doesNotContainAnyElementsOf(acme);
            assertPrometheusError(get(instance, "/prometheus/api/v1/label/device/values?tenant=acme", GLOBEX_READ), 403,
                    "forbidden");
            assertPrometheusError(get(instance, "/prometheus/api/v1/label/tenant/values", null), 401, "unauthorized");
        }
    }

    /**
     * The web console opened without a token (docs/console.md) in a real browser: the page itself is open, and each
     * panel shows the API's own refusal, the 401's message, instead of data.
     */
    @Test
    @Order(4)
    void theConsoleWithoutATokenShowsTheApisRefusalInEachPanel() throws Exception {
        HeadlessChromium.assumeInstalled("SecuredInstancesIT.theConsoleWithoutATokenShowsTheApisRefusalInEachPanel");
        // The test's certificate is self-signed: the browser is told to accept it, as the test's HTTP client trusts it.
        HeadlessChromium.Page page = HeadlessChromium.open(dir, a.server().url() + "/?device=press-00&metric=temperature",
                Path.of("target", "console-without-token.png"), "--ignore-certificate-errors");
        assertThat(page.attributes("console")).containsEntry("data-state", "error");
        for (String panel : List.of("chart", "latest", "partitions", "heatmap")) {
            assertThat(page.attributes(panel)).as(panel).containsEntry("data-state", "error");
        }
        for (String error : List.of("pick-error", "chart-error", "latest-error", "partitions-error", "heatmap-error")) {
            assertThat(page.text(error)).as(error).contains("401 unauthorized: this API needs a token");
        }
        assertThat(page.attributes("chart-svg")).containsEntry("data-points", "0");
    }

    @Test
    @Order(5)
    void aTokenRemovedFromTheFileStopsWorkingOnBothInstancesAndANewOneWorksWithoutARestart() throws Exception {
        String path = "/api/v1/series/press-01/temperature/latest";
        writeTokens(List.of(
                ApiTokens.line(GLOBEX_READ, new Grant("globex", Scope.READ, "globex-dashboard")),
                ApiTokens.line(ADMIN, new Grant(null, Scope.ADMIN, "ops")),
                ApiTokens.line(LATER, new Grant("acme", Scope.READ, "acme-dashboard-2"))));
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100)).untilAsserted(() -> {
            for (TestNode instance : List.of(a, b)) {
                assertThat(get(instance, path, ACME_READ).status()).isEqualTo(401);
                assertThat(get(instance, path, LATER).status()).isEqualTo(200);
            }
        });
        assertThat(get(b, "/api/v1/series/pump-01/temperature/latest", GLOBEX_READ).status()).isEqualTo(200);
    }

    @Test
    @Order(6)
    void plainHttpIsNotServed() {
        String plain = a.server().url().replace("https://", "http://") + "/health";
        try {
            HttpResponse<String> answer = client.send(HttpRequest.newBuilder(URI.create(plain)).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(answer.statusCode()).as("an HTTP request to the HTTPS port").isNotEqualTo(200);
        } catch (IOException | InterruptedException refused) {
            assertThat(refused).isNotNull();
        }
    }

    @Test
    @Order(7)
    void noTokenAppearsInAnyLogLineOrInTheMetrics() throws Exception {
        String metrics = get(a, "/metrics", ADMIN).raw().body() + get(b, "/metrics", ADMIN).raw().body();
        assertThat(metrics).contains("tspipe_api_tokens_file_valid 1.0");
        for (String token : ALL_TOKENS) {
            assertThat(metrics).doesNotContain(token.substring(ApiTokens.TOKEN_PREFIX.length()));
        }
        assertThat(LOG).as("the run logged").isNotEmpty();
        assertThat(LOG).anySatisfy(line -> assertThat(line).contains("bearer tokens of " + tokensFile + " required"));
        for (String token : ALL_TOKENS) {
            String secretPart = token.substring(ApiTokens.TOKEN_PREFIX.length());
            assertThat(LOG).noneSatisfy(line -> assertThat(line).contains(secretPart));
        }
    }

    // -----------------------------------------------------------------------------------------------------

    record Answer(int status, JsonNode body, HttpResponse<String> raw) {
        String header(String name) {
            return raw.headers().firstValue(name).orElse(null);
        }
    }

    private static Map<String, TreeMap<Long, Double>> series(String devicePrefix) {
        Map<String, TreeMap<Long, Double>> series = new LinkedHashMap<>();
        for (int d = 0; d < 6; d++) {
            TreeMap<Long, Double> readings = new TreeMap<>();
            for (int i = 0; i < 10; i++) {
                readings.put(BASE + i * 10_000L + d, d * 100.0 + i);
            }
            series.put(String.format("%s-%02d/temperature", devicePrefix, d), readings);
        }
        return series;
    }

    private static Set<String> devices(String tenant) {
        Set<String> devices = new TreeSet<>();
        SERIES.get(tenant).keySet().forEach(series -> devices.add(series.substring(0, series.indexOf('/'))));
        return devices;
    }

    /**
     * {@code query} from {@code BASE} to two minutes later, a point a minute, as Grafana asks: POST, a form body, unix
     * seconds; with the form parameters of {@code more} (a tenant), and {@code token}'s bearer token when not null.
     */
    private static Answer rangeQuery(TestNode instance, String query, Map<String, String> more, String token)
            throws Exception {
        Map<String, String> form = new LinkedHashMap<>(Map.of("query", query, "start", Long.toString(BASE / 1000),
                "end", Long.toString(BASE / 1000 + 120), "step", "60"));
        form.putAll(more);
        StringBuilder body = new StringBuilder();
        form.forEach((name, value) -> body.append(body.isEmpty() ? "" : "&")
                .append(URLEncoder.encode(name, StandardCharsets.UTF_8)).append('=')
                .append(URLEncoder.encode(value, StandardCharsets.UTF_8)));
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(instance.server().url()
                        + "/prometheus/api/v1/query_range"))
                .timeout(Duration.ofSeconds(20)).header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString(body.toString()));
        if (token != null) {
            request.header("Authorization", "Bearer " + token);
        }
        HttpResponse<String> response = client.send(request.build(), HttpResponse.BodyHandlers.ofString());
        return new Answer(response.statusCode(), JSON.readTree(response.body()), response);
    }

    private static Set<String> tenantsOf(Answer answer) {
        return labelOf(answer, "tenant");
    }

    private static Set<String> devicesOf(Answer answer) {
        return labelOf(answer, "device");
    }

    /** The values of {@code label} in a successful answer's series; a series without it counts as "". */
    private static Set<String> labelOf(Answer answer, String label) {
        assertThat(answer.status()).as(answer.raw().body()).isEqualTo(200);
        assertThat(answer.body().get("status").asText()).isEqualTo("success");
        Set<String> values = new TreeSet<>();
        answer.body().at("/data/result").forEach(series -> values.add(series.get("metric").path(label).asText("")));
        return values;
    }

    private static List<String> labelValues(TestNode instance, String label, String query, String token) throws Exception {
        Answer answer = get(instance, "/prometheus/api/v1/label/" + label + "/values" + query, token);
        assertThat(answer.status()).as(answer.raw().body()).isEqualTo(200);
        assertThat(answer.body().get("status").asText()).isEqualTo("success");
        List<String> values = new ArrayList<>();
        answer.body().get("data").forEach(value -> values.add(value.asText()));
        return values;
    }

    private static void assertPrometheusError(Answer answer, int status, String errorType) {
        assertThat(answer.status()).as(answer.raw().body()).isEqualTo(status);
        assertThat(answer.body().path("status").asText()).isEqualTo("error");
        assertThat(answer.body().path("errorType").asText()).isEqualTo(errorType);
        assertThat(answer.body().path("error").asText()).isNotEmpty();
    }

    private static boolean allLatestStored(TestNode instance) throws Exception {
        for (Map.Entry<String, Map<String, TreeMap<Long, Double>>> tenant : SERIES.entrySet()) {
            for (Map.Entry<String, TreeMap<Long, Double>> series : tenant.getValue().entrySet()) {
                Answer latest = get(instance, "/api/v1/series/" + series.getKey() + "/latest?tenant=" + tenant.getKey(), ADMIN);
                if (latest.status() != 200 || latest.body().get("timestamp").asLong() != series.getValue().lastKey()) {
                    return false;
                }
            }
        }
        return true;
    }

    private static double forwarded(TestNode instance) throws Exception {
        String metrics = client.send(HttpRequest.newBuilder(URI.create(instance.server().url() + "/metrics"))
                .header("Authorization", "Bearer " + ADMIN).build(), HttpResponse.BodyHandlers.ofString()).body();
        return metrics.lines().filter(line -> line.startsWith("tspipe_query_forwarded_total"))
                .mapToDouble(line -> Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1))).sum();
    }

    private static Answer get(TestNode instance, String pathAndQuery, String token) throws Exception {
        return send(instance, pathAndQuery, token == null ? null : "Bearer " + token, Map.of());
    }

    private static Answer send(TestNode instance, String pathAndQuery, String authorization, Map<String, String> headers)
            throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(instance.server().url() + pathAndQuery))
                .timeout(Duration.ofSeconds(20));
        if (authorization != null) {
            request.header("Authorization", authorization);
        }
        headers.forEach(request::header);
        HttpResponse<String> response = client.send(request.build(), HttpResponse.BodyHandlers.ofString());
        JsonNode body = response.headers().firstValue("Content-Type").orElse("").startsWith("application/json")
                ? JSON.readTree(response.body()) : JSON.createObjectNode();
        return new Answer(response.statusCode(), body, response);
    }

    private static HttpResponse<String> write(TestNode instance, String pathAndQuery, String body, String authorization)
            throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(instance.server().url() + pathAndQuery))
                .POST(HttpRequest.BodyPublishers.ofString(body));
        if (authorization != null) {
            request.header("Authorization", authorization);
        }
        return client.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static void writeTokens(List<String> lines) throws IOException {
        List<String> file = new ArrayList<>(List.of("# sha256 of the token, tenant, scope, name"));
        file.addAll(lines);
        Path next = tokensFile.resolveSibling("tokens.next");
        Files.write(next, file);
        Files.move(next, tokensFile, java.nio.file.StandardCopyOption.REPLACE_EXISTING, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
    }

    private static SSLContext trusting(Path certificatePem) throws Exception {
        TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        trust.init(PemFiles.trustStore(certificatePem));
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(null, trust.getTrustManagers(), null);
        return context;
    }
}
