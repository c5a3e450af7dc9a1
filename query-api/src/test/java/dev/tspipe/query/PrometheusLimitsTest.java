package dev.tspipe.query;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tspipe.model.keys.KeyLayout;
import dev.tspipe.model.keys.SeriesId;
import dev.tspipe.query.prometheus.DeviceLabels;
import dev.tspipe.query.prometheus.MemoryLatestStore;
import dev.tspipe.query.prometheus.PartitionReads;
import dev.tspipe.query.prometheus.PartitionSeries;
import dev.tspipe.query.prometheus.PrometheusApi;
import dev.tspipe.query.prometheus.QueryBudget;
import dev.tspipe.query.routing.Forwarder;
import io.javalin.Javalin;
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
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
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
    private PrometheusApi api;
    private Javalin http;

    private void rowTakesTime() {
        now.addAndGet(millisPerRow.get());
    }

    private void start() {
        api = new PrometheusApi(KeyLayout.DEFAULT, new TwoPartitions(), new SeriesReader(KeyLayout.DEFAULT),
                (ctx, tenant) -> null, clock, DeviceLabels.NONE);
        http = Javalin.create(config -> {
            config.startup.showJavalinBanner = false;
            config.jetty.host = "127.0.0.1";
            config.jetty.port = 0;
            api.routes().forEach((path, handler) -> {
                config.routes.get(path, handler);
                config.routes.post(path, handler);
            });
            config.routes.exception(ApiException.class, (e, ctx) -> QueryServer.Routes.error(ctx, e));
        }).start();
    }

    @AfterEach
    void stop() {
        if (http != null) {
            http.stop();
        }
        if (api != null) {
            api.close();
        }
    }

    /** Partition 0 here; partition 1 at "another instance": this server's internal route, over HTTP. */
    private final class TwoPartitions implements PartitionReads {
        @Override
        public OptionalInt partitionCount() {
            return OptionalInt.of(2);
        }

        @Override
        public Answer read(int partition, Function<SeriesReader.Stores, PartitionSeries> local, Forwarder.Request remote) {
            if (partition == 0) {
                return readHere(partition, local);
            }
            HttpResponse<byte[]> answer = post(remote.pathAndQuery(), remote.form());
            if (answer.statusCode() != 200) {
                throw PrometheusApi.relayedError(answer.statusCode(), answer.body());
            }
            try {
                return new Answer(PartitionSeries.fromJson(answer.body()), OptionalLong.empty(), List.of());
            } catch (IOException e) {
                throw new AssertionError(e);
            }
        }

        @Override
        public Answer readHere(int partition, Function<SeriesReader.Stores, PartitionSeries> local) {
            return new Answer(local.apply(partitions.get(partition).stores()), OptionalLong.empty(), List.of());
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
