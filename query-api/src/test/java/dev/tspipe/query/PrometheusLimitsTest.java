package dev.tspipe.query;

import dev.tspipe.query.auth.TenantPolicy;
import dev.tspipe.query.series.SeriesReader;
import dev.tspipe.query.http.Guard;
import dev.tspipe.query.http.RouteTable;
import dev.tspipe.query.prometheus.PrometheusRoutes;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tspipe.model.keys.KeyLayout;
import dev.tspipe.model.keys.SeriesId;
import dev.tspipe.query.promql.DeviceLabels;
import dev.tspipe.query.promql.MemoryLatestStore;
import dev.tspipe.query.prometheus.PartitionReads;
import dev.tspipe.query.promql.PartitionSeries;
import dev.tspipe.query.prometheus.PrometheusApi;
import dev.tspipe.query.promql.QueryBudget;
import dev.tspipe.query.routing.Forwarder;
import dev.tspipe.query.routing.PartitionPlans;
import dev.tspipe.query.routing.ScatterGather;
import dev.tspipe.query.routing.Target;
import io.javalin.Javalin;
import org.apache.kafka.streams.state.HostInfo;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The per-request bounds of the Prometheus API (docs/security.md, "Limits"): regular-expression steps, time and
 * {@code match[]}, each answered in Prometheus' envelope. Two partitions: 0 is read here, 1 through the internal
 * route, as another instance would be asked. The clock is the test's: each row read advances it by 10 ms.
 */
class PrometheusLimitsTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient CLIENT = HttpClient.newHttpClient();
    private static final HostInfo OTHER = new HostInfo("other-instance", 8080);

    private final AtomicLong now = new AtomicLong(1_700_000_000_000L);
    private final Clock clock = new Clock() {
        @Override
        public ZoneOffset getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(java.time.ZoneId zone) {
            throw new UnsupportedOperationException();
        }

        @Override
        public long millis() {
            return now.get();
        }

        @Override
        public Instant instant() {
            return Instant.ofEpochMilli(millis());
        }
    };
    private final AtomicLong millisPerRow = new AtomicLong();
    private final List<MemoryLatestStore> partitions = List.of(new MemoryLatestStore(this::rowTakesTime),
            new MemoryLatestStore(this::rowTakesTime));
    private final ScatterGather gather = new ScatterGather(ScatterGather.DEFAULT_PER_QUERY);
    private Javalin http;

    private void rowTakesTime() {
        now.addAndGet(millisPerRow.get());
    }

    private void start() {
        PrometheusApi api = new PrometheusApi(KeyLayout.DEFAULT, new TwoPartitions(), new SeriesReader(KeyLayout.DEFAULT),
                new TenantPolicy(false), clock, DeviceLabels.NONE, gather);
        http = Javalin.create(config -> {
            config.startup.showJavalinBanner = false;
            config.jetty.host = "127.0.0.1";
            config.jetty.port = 0;
            // Prometheus' route groups, registered and refused as a node does, without tokens.
            new RouteTable(PrometheusRoutes.of(api)).register(config, new Guard(null), "127.0.0.1");
        }).start();
    }

    @AfterEach
    void stop() {
        if (http != null) {
            http.stop();
        }
        gather.close();
    }

    /** Partition 0 here; partition 1 at "another instance": this server's internal route, over HTTP. */
    private final class TwoPartitions implements PartitionReads {
        private final PartitionPlans plans = new PartitionPlans("latest", (store, p, forwarded) ->
                p == 0 || forwarded ? List.of(new Target.LocalActive(p)) : List.of(new Target.Remote(OTHER, false)),
                (store, p) -> OptionalLong.empty(), Duration.ZERO);

        @Override
        public OptionalInt partitionCount() {
            return OptionalInt.of(2);
        }

        @Override
        public PartitionPlans plans() {
            return plans;
        }

        @Override
        public Optional<PartitionSeries> local(Function<SeriesReader.Stores, PartitionSeries> read, int partition,
                                               boolean stale) {
            return Optional.of(read.apply(partitions.get(partition).stores()));
        }

        @Override
        public Optional<Forwarder.Answer> forward(HostInfo host, Forwarder.Request request) {
            HttpResponse<byte[]> answer = post(request.pathAndQuery(), request.form());
            return Optional.of(new Forwarder.Answer(answer.statusCode(), Map.of(), answer.body()));
        }
    }

    private HttpResponse<byte[]> post(String pathAndQuery, String form) {
        try {
            return CLIENT.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + http.port() + pathAndQuery))
                    .header("Content-Type", "application/x-www-form-urlencoded")
                    .POST(HttpRequest.BodyPublishers.ofString(form)).build(), HttpResponse.BodyHandlers.ofByteArray());
        } catch (IOException | InterruptedException e) {
            throw new AssertionError(e);
        }
    }

    private record Answer(int status, JsonNode body, HttpResponse<byte[]> raw) {
    }

    private Answer series(List<String> matches) throws IOException {
        StringBuilder form = new StringBuilder();
        for (String match : matches) {
            form.append(form.isEmpty() ? "" : "&").append("match[]=").append(URLEncoder.encode(match, StandardCharsets.UTF_8));
        }
        HttpResponse<byte[]> raw = post("/prometheus/api/v1/series", form.toString());
        return new Answer(raw.statusCode(), JSON.readTree(raw.body()), raw);
    }

    /** {@code count} devices on each partition, their names {@code pad} characters long. */
    private void devices(int count, int pad) {
        for (int p = 0; p < partitions.size(); p++) {
            for (int i = 0; i < count; i++) {
                String device = "globex-pad-" + p + "-" + i + "-";
                partitions.get(p).put(KeyLayout.DEFAULT, SeriesId.of(device + "x".repeat(pad - device.length()), "temperature"));
            }
        }
    }

    @Test
    void aSelectorThatSpendsTheRequestsRegexBudgetIs422Execution() throws IOException {
        // Each value costs far less than the 1,000,000 steps a single value may take; together far more than the request's.
        devices(1_000, 120);
        start();

        Answer answer = series(List.of("{device=~\"globex-pad-.*\",device=~\".*.*.*#\"}"));

        assertThat(answer.status()).as("%.300s", answer.body()).isEqualTo(422);
        assertThat(answer.body().get("status").asText()).isEqualTo("error");
        assertThat(answer.body().get("errorType").asText()).isEqualTo("execution");
        assertThat(answer.body().get("error").asText()).contains("regular expressions", String.valueOf(QueryBudget.MAX_REGEX_STEPS));
        assertThat(partitions.get(0).rowsRead() + partitions.get(1).rowsRead()).as("gave up before the last series")
                .isLessThan(2_000);
    }

    @Test
    void aQueryPastItsDeadlineIs503TimeoutWithRetryAfter() throws IOException {
        devices(1_000, 40);
        millisPerRow.set(10);
        start();

        Answer answer = series(List.of("{device=~\"globex-pad-.*\"}"));

        assertThat(answer.status()).as("%.300s", answer.body()).isEqualTo(503);
        assertThat(answer.body().get("errorType").asText()).isEqualTo("timeout");
        assertThat(answer.raw().headers().firstValue("Retry-After")).contains("1");
        assertThat(partitions.get(0).rowsRead()).as("stopped at the deadline").isLessThan(1_000);
    }

    @Test
    void theInternalRouteAnswersAForwardedTimeoutSoTheAskerDoesNotTryTheNextCopy() throws IOException {
        // Only the forwarded partition has series: its timeout must come back as the request's 503 timeout.
        partitions.get(1).put(KeyLayout.DEFAULT, SeriesId.of("d", "m"));
        for (int i = 0; i < 1_000; i++) {
            partitions.get(1).put(KeyLayout.DEFAULT, SeriesId.of("globex-" + i, "m"));
        }
        millisPerRow.set(10);
        start();

        Answer answer = series(List.of("{device=~\"globex-.*\"}"));
        assertThat(answer.status()).as("%.300s", answer.body()).isEqualTo(503);
        assertThat(answer.body().get("errorType").asText()).isEqualTo("timeout");
        assertThat(answer.raw().headers().firstValue("Retry-After")).contains("1");

        // A caller cannot raise the bounds: a timeout_ms past the maximum is the maximum (400 rows of 10 ms).
        partitions.get(1).resetRowsRead();
        HttpResponse<byte[]> internal = post(PrometheusApi.PARTITION_PATH + "?partition=1",
                "mode=series&since_ms=0&match[]=" + URLEncoder.encode("{device=~\"globex-.*\"}", StandardCharsets.UTF_8)
                        + "&regex_steps=999999999999&timeout_ms=999999999");
        assertThat(internal.statusCode()).isEqualTo(422);
        assertThat(JSON.readTree(internal.body()).get("errorType").asText()).isEqualTo("timeout");
        assertThat(partitions.get(1).rowsRead()).isBetween(QueryBudget.MAX_MILLIS / 10, QueryBudget.MAX_MILLIS / 10 + 1);
    }

    /** HttpFuzzIT found these answered 503 "not queryable here" (2147483648 was cast to -2147483648): the asker would try another copy. */
    @Test
    void theInternalRouteRefusesAPartitionTheTopicDoesNotHave() throws IOException {
        start();
        for (String partition : List.of("-1", "2", "2147483648", "9223372036854775807")) {
            HttpResponse<byte[]> internal = post(PrometheusApi.PARTITION_PATH + "?partition=" + partition,
                    "mode=series&since_ms=0&match[]=" + URLEncoder.encode("{device=\"d\"}", StandardCharsets.UTF_8));
            JsonNode body = JSON.readTree(internal.body());
            assertThat(internal.statusCode()).as(partition + ": %s", body).isEqualTo(400);
            assertThat(body.get("errorType").asText()).isEqualTo("bad_data");
            assertThat(body.get("error").asText()).contains("'" + partition + "' is not a partition", "0..1");
        }
    }

    @Test
    void theInternalRouteReadsEveryPartitionItIsGivenInOneAnswer() throws IOException {
        devices(2, 20);
        start();
        String form = "mode=series&since_ms=0&match[]=" + URLEncoder.encode("{device=~\"globex-.*\"}", StandardCharsets.UTF_8);

        HttpResponse<byte[]> both = post(PrometheusApi.PARTITION_PATH + "?partition=0&partition=1", form);

        JsonNode body = JSON.readTree(both.body());
        assertThat(both.statusCode()).as("%s", body).isEqualTo(200);
        assertThat(body.get("status").asText()).isEqualTo("success");
        assertThat(body.at("/data/partitions/0/series")).hasSize(2);
        assertThat(body.at("/data/partitions/1/series")).hasSize(2);
        assertThat(body.at("/data/lags")).isEmpty();

        HttpResponse<byte[]> outside = post(PrometheusApi.PARTITION_PATH + "?partition=1&partition=2", form);
        JsonNode refused = JSON.readTree(outside.body());
        assertThat(outside.statusCode()).isEqualTo(400);
        assertThat(refused.get("errorType").asText()).isEqualTo("bad_data");
        assertThat(refused.get("error").asText()).contains("'2' is not a partition", "0..1");
    }

    @Test
    void moreMatchesThanTheCapAre400BadData() throws IOException {
        devices(1, 20);
        start();
        List<String> twenty = java.util.stream.IntStream.range(0, QueryBudget.MAX_MATCHES)
                .mapToObj(i -> "{device=\"d" + i + "\"}").toList();

        assertThat(series(twenty).status()).isEqualTo(200);
        Answer answer = series(java.util.stream.Stream.concat(twenty.stream(), java.util.stream.Stream.of("{device=\"x\"}"))
                .toList());

        assertThat(answer.status()).isEqualTo(400);
        assertThat(answer.body().get("errorType").asText()).isEqualTo("bad_data");
        assertThat(answer.body().get("error").asText()).startsWith("match[]: 21 match[] given; at most 20");
    }

    @Test
    void withinItsBudgetsAQueryIsAnswered() throws IOException {
        devices(50, 40);
        millisPerRow.set(10);
        start();

        Answer answer = series(List.of("{device=~\"globex-pad-.*\"}"));

        assertThat(answer.status()).as("%.300s", answer.body()).isEqualTo(200);
        assertThat(answer.body().get("data")).hasSize(100);
    }
}
