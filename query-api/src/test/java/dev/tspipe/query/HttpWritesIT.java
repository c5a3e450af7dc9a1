package dev.tspipe.query;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tspipe.embedded.junit.EmbeddedKafkaExtension;
import dev.tspipe.ingest.prometheus.RemoteWrite;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.zip.GZIPOutputStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Writes to a node over HTTP: InfluxDB line protocol (InfluxDB 2's and 1's routes, plain and gzip) and
 * Prometheus remote-write, read back through the native API with the values and timestamps written; a
 * body with one bad line, or a request with one bad series, is refused whole.
 */
class HttpWritesIT {

    @RegisterExtension
    static final EmbeddedKafkaExtension KAFKA = new EmbeddedKafkaExtension();

    private static final String APP = "influx-it";
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient CLIENT = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private static final long T0 = 1_793_491_200_000L;

    @TempDir
    static Path stateDir;

    private static WritingNode node;

    @BeforeAll
    static void startNode() throws Exception {
        node = WritingNode.start(KAFKA.broker(), APP, stateDir);
    }

    @AfterAll
    static void stop() {
        if (node != null) {
            node.close();
        }
    }

    @Test
    void linesWrittenAreReadBackWithTheirValuesAndTimestamps() throws Exception {
        String body = "cpu,host=web-1,cpu=cpu0 usage_idle=92.5,usage_user=3i " + T0 + "\n"
                + "cpu,host=web-1,cpu=cpu0 usage_idle=90.25,usage_user=5i " + (T0 + 10_000) + "\n"
                + "# a comment\n"
                + "disk,device=sda,host=web-1 used_percent=41.5 " + (T0 + 5_000) + "\n";
        HttpResponse<String> written = post("/api/v2/write?org=o&bucket=b&precision=ms", body.getBytes(StandardCharsets.UTF_8), null);
        assertThat(written.statusCode()).as(written.body()).isEqualTo(204);

        JsonNode idle = awaitAnswer("/api/v1/series/web-1/" + Urls.segment("cpu.usage_idle{cpu=\"cpu0\"}") + "/readings?order=asc", 2);
        assertThat(idle.get("readings").get(0).get("timestamp").asLong()).isEqualTo(T0);
        assertThat(idle.get("readings").get(0).get("value").asDouble()).isEqualTo(92.5);
        assertThat(idle.get("readings").get(0).get("tags")).isEqualTo(JSON.readTree("{\"cpu\":\"cpu0\"}"));
        assertThat(idle.get("readings").get(1).get("value").asDouble()).isEqualTo(90.25);
        assertThat(awaitAnswer("/api/v1/series/web-1/" + Urls.segment("cpu.usage_user{cpu=\"cpu0\"}") + "/readings", 2).get("readings").get(0).get("value").asDouble())
                .isEqualTo(5.0);
        // The device tag wins over host: the disk's device is sda.
        assertThat(awaitAnswer("/api/v1/series/sda/" + Urls.segment("disk.used_percent{host=\"web-1\"}") + "/latest", 0).get("value").asDouble()).isEqualTo(41.5);
    }

    @Test
    void influxDbOnesRouteSecondsAndAGzipBody() throws Exception {
        ByteArrayOutputStream zipped = new ByteArrayOutputStream();
        try (GZIPOutputStream gzip = new GZIPOutputStream(zipped)) {
            gzip.write(("weather,device=station-9 temperature=-3.5,humidity=81i " + T0 / 1000).getBytes(StandardCharsets.UTF_8));
        }
        HttpResponse<String> written = post("/write?db=telegraf&precision=s", zipped.toByteArray(), "gzip");
        assertThat(written.statusCode()).as(written.body()).isEqualTo(204);
        JsonNode latest = awaitAnswer("/api/v1/series/station-9/weather.temperature/latest", 0);
        assertThat(latest.get("timestamp").asLong()).isEqualTo(T0);
        assertThat(latest.get("value").asDouble()).isEqualTo(-3.5);
    }

    @Test
    void aBodyWithOneBadLineIsRefusedWholeAndSaysWhichLine() throws Exception {
        String bad = "m,device=half v=1 " + T0 + "\nm,device=half note=\"a string\" " + T0 + "\n";
        HttpResponse<String> refused = post("/api/v2/write?bucket=b&precision=ms", bad.getBytes(StandardCharsets.UTF_8), null);
        assertThat(refused.statusCode()).isEqualTo(400);
        // InfluxDB 2's error shape: code, message, line.
        JsonNode error = JSON.readTree(refused.body());
        assertThat(error.get("code").asText()).isEqualTo("invalid");
        assertThat(error.get("line").asInt()).isEqualTo(2);
        assertThat(error.get("message").asText())
                .startsWith("body: line 2: field 'note' is a string").endsWith("nothing of this body was written");
        // InfluxDB 1's: error (the message), line.
        HttpResponse<String> refusedByOne = post("/write?db=b&precision=ms", ("m,device=half v=1 " + T0 + "\nm,device=half v=\n")
                .getBytes(StandardCharsets.UTF_8), null);
        assertThat(refusedByOne.statusCode()).isEqualTo(400);
        assertThat(JSON.readTree(refusedByOne.body()).get("error").asText()).startsWith("body: line 2: ");
        assertThat(JSON.readTree(refusedByOne.body()).get("line").asInt()).isEqualTo(2);
        // A later write of the same device (same partition, so processed after anything of the refused body).
        assertThat(post("/api/v2/write?bucket=b&precision=ms", ("m,device=half w=2 " + T0).getBytes(StandardCharsets.UTF_8),
                null).statusCode()).isEqualTo(204);
        awaitAnswer("/api/v1/series/half/m.w/latest", 0);
        assertThat(get("/api/v1/series/half/m.v/latest").statusCode()).as("line 1 of the refused body").isEqualTo(404);

        assertThat(post("/api/v2/write?bucket=b&precision=h", "m,device=d v=1".getBytes(StandardCharsets.UTF_8), null)
                .statusCode()).isEqualTo(400);
        assertThat(post("/api/v2/write?bucket=b", "not gzip".getBytes(StandardCharsets.UTF_8), "gzip").statusCode())
                .isEqualTo(400);
    }

    @Test
    void prometheusRemoteWriteSamplesAreReadBack() throws Exception {
        byte[] request = RemoteWrite.request(List.of(
                new RemoteWrite.Series(Map.of("__name__", "node_load1", "instance", "web-2:9100", "job", "node"),
                        List.of(new RemoteWrite.Sample(T0, 0.5), new RemoteWrite.Sample(T0 + 15_000, 0.75))),
                new RemoteWrite.Series(Map.of("__name__", "up", "instance", "web-2:9100", "job", "node"),
                        List.of(new RemoteWrite.Sample(T0, 1), new RemoteWrite.Sample(T0 + 15_000, Double.NaN)))));
        HttpResponse<String> written = CLIENT.send(HttpRequest.newBuilder(URI.create(node.server().url() + "/api/v1/write"))
                .header("Content-Type", "application/x-protobuf").header("Content-Encoding", "snappy")
                .header("X-Prometheus-Remote-Write-Version", "0.1.0")
                .POST(HttpRequest.BodyPublishers.ofByteArray(request)).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(written.statusCode()).as(written.body()).isEqualTo(204);
        JsonNode load = awaitAnswer("/api/v1/series/web-2%3A9100/" + Urls.segment("node_load1{job=\"node\"}") + "/readings?order=asc", 2);
        assertThat(load.get("readings").get(1).get("timestamp").asLong()).isEqualTo(T0 + 15_000);
        assertThat(load.get("readings").get(1).get("value").asDouble()).isEqualTo(0.75);
        assertThat(load.get("readings").get(0).get("tags")).isEqualTo(JSON.readTree("{\"job\":\"node\"}"));
        assertThat(awaitAnswer("/api/v1/series/web-2%3A9100/" + Urls.segment("up{job=\"node\"}") + "/latest", 0).get("timestamp").asLong())
                .as("the NaN sample is not a reading").isEqualTo(T0);

        byte[] orphan = RemoteWrite.request(List.of(new RemoteWrite.Series(Map.of("__name__", "orphan"),
                List.of(new RemoteWrite.Sample(T0, 1)))));
        HttpResponse<String> refused = CLIENT.send(HttpRequest.newBuilder(URI.create(node.server().url() + "/api/v1/write"))
                .POST(HttpRequest.BodyPublishers.ofByteArray(orphan)).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(refused.statusCode()).isEqualTo(400);
        assertThat(JSON.readTree(refused.body()).get("message").asText()).contains("has none of the labels instance, job");
    }

    // ---------------------------------------------------------------------------------------------

    private static HttpResponse<String> post(String pathAndQuery, byte[] body, String encoding) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(node.server().url() + pathAndQuery))
                .header("Content-Type", "text/plain; charset=utf-8").POST(HttpRequest.BodyPublishers.ofByteArray(body));
        if (encoding != null) {
            request.header("Content-Encoding", encoding);
        }
        return CLIENT.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static HttpResponse<String> get(String pathAndQuery) throws Exception {
        return CLIENT.send(HttpRequest.newBuilder(URI.create(node.server().url() + pathAndQuery)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    /** The answer once it is 200 (and, for a readings page, has {@code readings} rows). */
    private static JsonNode awaitAnswer(String pathAndQuery, int readings) {
        JsonNode[] answer = new JsonNode[1];
        org.awaitility.Awaitility.await().atMost(Duration.ofMinutes(1)).pollInterval(Duration.ofMillis(200)).until(() -> {
            HttpResponse<String> response = get(pathAndQuery);
            if (response.statusCode() != 200) {
                return false;
            }
            answer[0] = JSON.readTree(response.body());
            return readings == 0 || answer[0].get("readings").size() >= readings;
        });
        return answer[0];
    }
}
