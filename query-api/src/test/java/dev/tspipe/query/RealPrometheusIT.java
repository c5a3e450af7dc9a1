package dev.tspipe.query;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tspipe.embedded.FreePorts;
import dev.tspipe.embedded.junit.EmbeddedKafkaExtension;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.LifecycleMethodExecutionExceptionHandler;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.extension.TestWatcher;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A real Prometheus server (Debian's {@code prometheus} package, 2.42) scrapes a node's {@code /metrics} every second
 * and remote-writes every sample into that node: tspipe stores exactly the samples Prometheus stored, as Prometheus'
 * own API shows them (timestamps and values); promtool, asking the node's Prometheus API, gets tspipe's answers
 * (docs/grafana.md: windows {@code [t - r, t)}) in the formats it parses; the node counts the readings written.
 * Skipped where {@code prometheus} and {@code promtool} are not installed; {@code .ci/run} installs them.
 */
class RealPrometheusIT {

    @RegisterExtension
    static final EmbeddedKafkaExtension KAFKA = new EmbeddedKafkaExtension();

    @RegisterExtension
    static final PrometheusLog PROMETHEUS_LOG = new PrometheusLog();

    private static final String APP = "real-prom-it";
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient CLIENT = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    /** A gauge of Prometheus' own that changes at every scrape, remote-written like the scraped series. */
    private static final String SCRAPE_DURATION = "scrape_duration_seconds{job=\"tspipe\"}";
    private static final String UP = "up{job=\"tspipe\"}";
    private static final long HOUR = 3_600_000;

    @TempDir
    static Path dir;

    private static WritingNode node;
    private static Process prometheus;
    private static int prometheusPort;
    /** Prometheus' {@code instance} label of the node's target, tspipe's device of every series scraped. */
    private static String device;
    /** The timestamp of the newest reading of {@link #SCRAPE_DURATION} once 8 scrapes were stored. */
    private static long newest;

    @BeforeAll
    static void startNodeAndPrometheus() throws Exception {
        List<String> missing = new ArrayList<>();
        for (String tool : List.of("prometheus", "promtool")) {
            if (!onPath(tool)) {
                missing.add(tool);
            }
        }
        if (!missing.isEmpty()) {
            String message = "RealPrometheusIT skipped: " + String.join(" and ", missing) + " not on PATH; Debian's "
                    + "prometheus package provides them (apt-get install prometheus), and .ci/run installs it when it can";
            System.out.println(message);
            Assumptions.assumeTrue(false, message);
        }
        node = WritingNode.start(KAFKA.broker(), APP, dir.resolve("node"));

        device = "127.0.0.1:" + node.server().port();
        Path configFile = dir.resolve("prometheus.yml");
        Files.writeString(configFile, String.join("\n",
                "global:",
                "  scrape_interval: 1s",
                "scrape_configs:",
                "  - job_name: tspipe",
                "    static_configs: [{targets: [\"" + device + "\"]}]",
                "remote_write:",
                "  - url: " + node.server().url() + "/api/v1/write",
                "    queue_config: {batch_send_deadline: 1s}",
                ""));
        prometheusPort = FreePorts.next();
        Path log = dir.resolve("prometheus.log");
        PROMETHEUS_LOG.file = log;
        prometheus = new ProcessBuilder("prometheus", "--config.file=" + configFile, "--storage.tsdb.path=" + dir.resolve("tsdb"),
                "--web.listen-address=127.0.0.1:" + prometheusPort, "--log.level=warn")
                .redirectErrorStream(true).redirectOutput(log.toFile()).start();

        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(250))
                .failFast("Prometheus exited", () -> !prometheus.isAlive())
                .until(() -> nodeJson("/prometheus/api/v1/series?match[]=up").get("data").size() == 1
                        && nodeJson("/prometheus/api/v1/series?match[]=scrape_duration_seconds").get("data").size() == 1);
        // Eight scrapes stored: enough samples to compare, few enough to stay fast.
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(250))
                .until(() -> readings(SCRAPE_DURATION, System.currentTimeMillis() - HOUR, System.currentTimeMillis() + HOUR).size() >= 8);
        newest = nodeJson(seriesPath(SCRAPE_DURATION) + "/latest").get("timestamp").asLong();
    }

    @AfterAll
    static void stopAll() throws Exception {
        if (prometheus != null) {
            prometheus.destroy();
            if (!prometheus.waitFor(10, TimeUnit.SECONDS)) {
                prometheus.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        }
        if (node != null) {
            node.close();
        }
    }

    // ---------------------------------------------------------------------------------------------

    @Test
    void everySamplePrometheusStoredIsAReadingWithItsTimestampAndValue() throws Exception {
        String at = Instant.ofEpochMilli(newest).toString();
        JsonNode stored = prometheusJson("/api/v1/query?query=" + Urls.segment("scrape_duration_seconds[1h]") + "&time=" + Urls.segment(at));
        assertThat(stored.at("/data/result")).as(stored.toString()).hasSize(1);
        assertThat(stored.at("/data/result/0/metric")).as("Prometheus' labels of the series")
                .isEqualTo(JSON.readTree("{\"__name__\":\"scrape_duration_seconds\",\"instance\":\"" + device + "\",\"job\":\"tspipe\"}"));
        List<Sample> prometheusSamples = new ArrayList<>();
        for (JsonNode point : stored.at("/data/result/0/values")) {
            prometheusSamples.add(new Sample(Math.round(point.get(0).asDouble() * 1000), Double.parseDouble(point.get(1).asText())));
        }
        // Prometheus' [1h] at T is [T - 1h, T]; tspipe's to is exclusive.
        List<Sample> tspipeReadings = readings(SCRAPE_DURATION, newest - HOUR, newest + 1);
        assertThat(tspipeReadings).as("tspipe's readings of %s up to %s against Prometheus' samples", SCRAPE_DURATION, at)
                .hasSizeGreaterThanOrEqualTo(5).isEqualTo(prometheusSamples);
    }

    @Test
    void promtoolGetsTspipesAnswers() throws Exception {
        // Nothing older than a reading at or after T + 1 s is still on its way: remote-write sends a series in order.
        for (String metric : List.of(SCRAPE_DURATION, UP)) {
            await().atMost(Duration.ofSeconds(15)).pollInterval(Duration.ofMillis(250))
                    .until(() -> nodeJson(seriesPath(metric) + "/latest").get("timestamp").asLong() >= newest + 1000);
        }
        String base = node.server().url() + "/prometheus";
        String labels = "{device=\"" + device + "\", job=\"tspipe\"}";

        long time = newest + 1000;
        ProcessRun instant = promtool("query", "instant", "--time=" + Instant.ofEpochMilli(time), base,
                "last_over_time(" + SCRAPE_DURATION + "[1m])");
        assertThat(instant.exit()).as(instant.toString()).isZero();
        List<Sample> before = readings(SCRAPE_DURATION, time - 60_000, time);
        Matcher line = Pattern.compile("(\\{.*}) => (\\S+) @\\[(\\S+)]").matcher(instant.stdout().strip());
        assertThat(line.matches()).as(instant.toString()).isTrue();
        assertThat(line.group(1)).as(instant.toString()).isEqualTo(labels);
        assertThat(Double.parseDouble(line.group(2))).as("the newest reading before %s; %s", time, instant)
                .isEqualTo(before.get(before.size() - 1).value());
        assertThat(Math.round(Double.parseDouble(line.group(3)) * 1000)).as(instant.toString()).isEqualTo(time);

        ProcessRun range = promtool("query", "range", "--start=" + Instant.ofEpochMilli(newest - 5000), "--end=" + Instant.ofEpochMilli(time),
                "--step=1s", base, "count_over_time(" + UP + "[1s])");
        assertThat(range.exit()).as(range.toString()).isZero();
        List<String> lines = range.stdout().strip().lines().toList();
        assertThat(lines.get(0)).as(range.toString()).isEqualTo(labels + " =>");
        Map<Long, Double> counts = new TreeMap<>();
        for (String point : lines.subList(1, lines.size())) {
            Matcher value = Pattern.compile("(\\S+) @\\[(\\S+)]").matcher(point);
            assertThat(value.matches()).as(range.toString()).isTrue();
            counts.put(Math.round(Double.parseDouble(value.group(2)) * 1000), Double.parseDouble(value.group(1)));
        }
        // The readings of each instant's window [t - 1s, t), counted from the native API; an empty window is no point.
        List<Sample> ups = readings(UP, newest - 6000, time);
        Map<Long, Double> expected = new TreeMap<>();
        for (long t = newest - 5000; t <= time; t += 1000) {
            long from = t - 1000;
            long to = t;
            long count = ups.stream().filter(s -> s.timestamp() >= from && s.timestamp() < to).count();
            if (count > 0) {
                expected.put(t, (double) count);
            }
        }
        assertThat(counts).as("%s against the readings %s", range, ups).isEqualTo(expected).hasSizeGreaterThanOrEqualTo(5);

        ProcessRun series = promtool("query", "series", "--match=up", base);
        assertThat(series.exit()).as(series.toString()).isZero();
        assertThat(series.stdout().strip().lines()).as(series.toString())
                .containsExactly("{__name__=\"up\", device=\"" + device + "\", job=\"tspipe\"}");

        ProcessRun jobs = promtool("query", "labels", base, "job");
        assertThat(jobs.exit()).as(jobs.toString()).isZero();
        assertThat(jobs.stdout().strip().lines()).as(jobs.toString()).containsExactly("tspipe");

        ProcessRun refused = promtool("query", "instant", base, "rate(up[5m]) + 1");
        assertThat(refused.exit()).as(refused.toString()).isEqualTo(1);
        assertThat(refused.stderr()).as(refused.toString()).contains("bad_data").contains("with a vector on either side");
    }

    @Test
    void theNodeCountsTheReadingsPrometheusWrote() throws Exception {
        HttpResponse<String> metrics = get(node.server().url() + "/metrics");
        assertThat(metrics.statusCode()).isEqualTo(200);
        assertThat(meter(metrics.body(), "tspipe_write_readings_total", "protocol=\"prometheus-remote-write\"", "result=\"accepted\""))
                .as(metrics.body()).isPositive();
    }

    // ---------------------------------------------------------------------------------------------

    private record Sample(long timestamp, double value) {
    }

    private static ProcessRun promtool(String... arguments) throws Exception {
        List<String> command = new ArrayList<>(List.of("promtool"));
        command.addAll(List.of(arguments));
        return ProcessRun.of(dir, Duration.ofSeconds(30), command);
    }

    /** tspipe's readings of a series of the node's target with {@code from <= timestamp < to}, oldest first. */
    private static List<Sample> readings(String metric, long from, long to) throws Exception {
        JsonNode page = nodeJson(seriesPath(metric) + "/readings?from=" + from + "&to=" + to + "&order=asc&limit=10000");
        assertThat(page.has("nextCursor") && !page.get("nextCursor").isNull()).as("one page holds them all").isFalse();
        List<Sample> samples = new ArrayList<>();
        for (JsonNode reading : page.get("readings")) {
            samples.add(new Sample(reading.get("timestamp").asLong(), reading.get("value").asDouble()));
        }
        return samples;
    }

    /** The native API's path of a series of the node's target (docs/ingest.md: the device is the instance label). */
    private static String seriesPath(String metric) {
        return "/api/v1/series/" + Urls.segment(device) + "/" + Urls.segment(metric);
    }

    /** The value of the one sample of {@code name} in Prometheus' text format that has every one of {@code labels}. */
    private static double meter(String exposition, String name, String... labels) {
        List<Double> values = new ArrayList<>();
        for (String line : exposition.lines().toList()) {
            if (line.startsWith(name + "{") && List.of(labels).stream().allMatch(line::contains)) {
                values.add(Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1)));
            }
        }
        assertThat(values).as("samples of %s with %s", name, List.of(labels)).hasSize(1);
        return values.get(0);
    }

    private static JsonNode nodeJson(String pathAndQuery) throws Exception {
        return json(node.server().url() + pathAndQuery);
    }

    private static JsonNode prometheusJson(String pathAndQuery) throws Exception {
        return json("http://127.0.0.1:" + prometheusPort + pathAndQuery);
    }

    private static JsonNode json(String url) throws Exception {
        HttpResponse<String> response = get(url);
        assertThat(response.statusCode()).as(url + ": " + response.body()).isEqualTo(200);
        return JSON.readTree(response.body());
    }

    private static HttpResponse<String> get(String url) throws Exception {
        return CLIENT.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(30)).GET().build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private static boolean onPath(String tool) {
        for (String directory : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
            if (!directory.isEmpty() && Files.isExecutable(Path.of(directory, tool))) {
                return true;
            }
        }
        return false;
    }

    /**
     * Prints the end of Prometheus' log when the setup or a test fails: a refused config, a port taken or remote-write
     * errors show there first.
     */
    static final class PrometheusLog implements TestWatcher, LifecycleMethodExecutionExceptionHandler {

        private Path file;

        @Override
        public void testFailed(ExtensionContext context, Throwable cause) {
            print();
        }

        @Override
        public void handleBeforeAllMethodExecutionException(ExtensionContext context, Throwable throwable) throws Throwable {
            print();
            throw throwable;
        }

        private void print() {
            if (file == null || !Files.exists(file)) {
                return;
            }
            try {
                List<String> lines = Files.readAllLines(file);
                System.out.println("Prometheus' log (" + file + "), last lines:");
                lines.subList(Math.max(0, lines.size() - 40), lines.size()).forEach(System.out::println);
            } catch (IOException e) {
                System.out.println("Prometheus' log (" + file + ") could not be read: " + e);
            }
        }
    }
}
