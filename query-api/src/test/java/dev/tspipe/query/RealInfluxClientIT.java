package dev.tspipe.query;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tspipe.embedded.junit.EmbeddedKafkaExtension;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The InfluxDB 1.x Python client (influxdb-python, Debian's {@code python3-influxdb}) writes points to a node's
 * {@code /write} as it writes to InfluxDB: plain and gzip bodies, {@code precision=ms}, floats, integers and booleans,
 * and the {@code cpu=cpu0} and {@code cpu=cpu1} points of one host at one timestamp that must stay two series
 * (docs/ingest.md, "Series and their labels"). Every point is read back with its timestamp and value through the native
 * API and the Prometheus API; a batch with a string field is refused whole, and the client sees InfluxDB 1's error.
 * Skipped where no python3 imports {@code influxdb}; {@code .ci/run} installs it.
 */
class RealInfluxClientIT {

    @RegisterExtension
    static final EmbeddedKafkaExtension KAFKA = new EmbeddedKafkaExtension();

    private static final String APP = "real-influx-it";
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient CLIENT = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private static final long T0 = 1_793_491_200_000L;
    private static final long STEP = 10_000;
    private static final List<String> HOSTS = List.of("web-1", "web-2");
    /** Each host's disk, a path tag with slashes: a metric whose path segment has {@code %2F}. */
    private static final Map<String, String> DISK_PATHS = Map.of("web-1", "/", "web-2", "/var/lib");
    /** The device of the refused batch and of the write after it. */
    private static final String REFUSED_HOST = "web-3";

    /**
     * Writes the batches of {@code batches.json} in order, one JSON line per batch on stdout. The client raises unless
     * the answer is 204, so {@code written} means the node answered 204.
     */
    private static final String SCRIPT = String.join("\n",
            "import inspect, json, sys",
            "import influxdb",
            "from influxdb.exceptions import InfluxDBClientError",
            "",
            "port = int(sys.argv[1])",
            "with open(sys.argv[2]) as f:",
            "    batches = json.load(f)",
            "",
            "def client(**options):",
            "    return influxdb.InfluxDBClient(host='127.0.0.1', port=port, database='telegraf', timeout=30, **options)",
            "",
            "def report(**fields):",
            "    print(json.dumps(fields), flush=True)",
            "",
            "client().write_points(batches['plain'], time_precision='ms')",
            "report(batch='plain', written=True)",
            "# An older influxdb-python has no gzip option: that batch is then not written, and not expected.",
            "if 'gzip' in inspect.signature(influxdb.InfluxDBClient.__init__).parameters:",
            "    client(gzip=True).write_points(batches['gzip'], time_precision='ms')",
            "    report(batch='gzip', written=True)",
            "else:",
            "    report(batch='gzip', skipped='influxdb-python ' + influxdb.__version__ + ' has no gzip option')",
            "try:",
            "    client().write_points(batches['refused'], time_precision='ms')",
            "    report(batch='refused', written=True)",
            "except InfluxDBClientError as e:",
            "    report(batch='refused', code=e.code, content=e.content)",
            "client().write_points(batches['after'], time_precision='ms')",
            "report(batch='after', written=True)",
            "");

    @TempDir
    static Path dir;

    private static WritingNode node;
    /** The script's report of each batch, by name. */
    private static Map<String, JsonNode> reports;
    /** What the node should hold of the batches written: each series' readings, oldest first. */
    private static Map<Series, List<Reading>> expected;

    @BeforeAll
    static void startNodeAndWrite() throws Exception {
        String python = pythonWithInfluxdb();
        if (python == null) {
            String message = "RealInfluxClientIT skipped: neither python3 on PATH nor /usr/bin/python3 imports influxdb; "
                    + "Debian's python3-influxdb package provides it (apt-get install python3-influxdb), and .ci/run "
                    + "installs it when it can";
            System.out.println(message);
            Assumptions.assumeTrue(false, message);
        }
        node = WritingNode.start(KAFKA.broker(), APP, dir.resolve("node"));

        Map<String, List<Point>> batches = new LinkedHashMap<>();
        batches.put("plain", batch(0));
        batches.put("gzip", batch(4));
        batches.put("refused", List.of(
                new Point("note", Map.of("host", REFUSED_HOST), T0, Map.of("v", 1.5)),
                new Point("note", Map.of("host", REFUSED_HOST), T0, Map.of("text", "disk almost full")),
                new Point("note", Map.of("host", REFUSED_HOST), T0, Map.of("w", 2.5))));
        batches.put("after", List.of(new Point("note", Map.of("host", REFUSED_HOST), T0 + STEP, Map.of("w", 3.5))));
        Path points = dir.resolve("batches.json");
        JSON.writeValue(points.toFile(), batches);
        Path script = dir.resolve("write.py");
        Files.writeString(script, SCRIPT);

        ProcessRun run = run(List.of(python, script.toString(), String.valueOf(node.server().port()), points.toString()));
        assertThat(run.exit()).as(run.toString()).isZero();
        reports = new TreeMap<>();
        for (String line : run.stdout().strip().lines().toList()) {
            JsonNode report = JSON.readTree(line);
            reports.put(report.get("batch").asText(), report);
        }
        assertThat(reports.keySet()).as(run.toString()).containsExactlyInAnyOrder("plain", "gzip", "refused", "after");
        if (reports.get("gzip").has("skipped")) {
            System.out.println("RealInfluxClientIT: the gzip batch was not written: " + reports.get("gzip").get("skipped").asText());
        }

        List<Point> written = new ArrayList<>(batches.get("plain"));
        if (reports.get("gzip").path("written").asBoolean()) {
            written.addAll(batches.get("gzip"));
        }
        expected = readingsOf(written);
        // Once the last reading of each series is there, so are the others: a series is one partition, read in order.
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200)).until(() -> {
            for (Map.Entry<Series, List<Reading>> series : expected.entrySet()) {
                HttpResponse<String> latest = get(series.getKey().path() + "/latest");
                List<Reading> readings = series.getValue();
                if (latest.statusCode() != 200
                        || JSON.readTree(latest.body()).get("timestamp").asLong() < readings.get(readings.size() - 1).timestamp()) {
                    return false;
                }
            }
            return true;
        });
    }

    @AfterAll
    static void stopAll() throws Exception {
        if (node != null) {
            node.close();
        }
    }

    // ---------------------------------------------------------------------------------------------

    @Test
    void everyPointTheClientWroteIsReadBackWithItsTimestampAndValue() throws Exception {
        assertThat(reports.get("plain").path("written").asBoolean()).as(reports.toString()).isTrue();
        // Two hosts, each with cpu0 and cpu1 at every timestamp: eight cpu series, not four overwritten ones.
        assertThat(expected.keySet().stream().filter(s -> s.metric().startsWith("cpu.")).count()).isEqualTo(8);
        Map<Series, List<Reading>> stored = new TreeMap<>();
        for (Series series : expected.keySet()) {
            JsonNode page = json(series.path() + "/readings?order=asc");
            assertThat(page.get("device").asText()).isEqualTo(series.device());
            assertThat(page.get("metric").asText()).isEqualTo(series.metric());
            List<Reading> readings = new ArrayList<>();
            for (JsonNode reading : page.get("readings")) {
                Map<String, String> tags = new TreeMap<>();
                reading.path("tags").fields().forEachRemaining(tag -> tags.put(tag.getKey(), tag.getValue().asText()));
                readings.add(new Reading(reading.get("timestamp").asLong(), reading.get("value").asDouble(), tags));
            }
            stored.put(series, readings);
        }
        assertThat(stored).isEqualTo(expected);
        HttpResponse<String> unlabelled = get(new Series("web-1", "cpu.usage_idle").path() + "/latest");
        assertThat(unlabelled.statusCode()).as("no series without the cpu tag: %s", unlabelled.body()).isEqualTo(404);
    }

    @Test
    void thePrometheusApiShowsEveryPointWithItsTagsAsLabels() throws Exception {
        // A second after each timestamp of the points, every series of a name has that point's value: a selector keeps
        // the name among the labels, last_over_time drops it, as in Prometheus.
        TreeSet<Long> timestamps = new TreeSet<>();
        expected.values().forEach(readings -> readings.forEach(reading -> timestamps.add(reading.timestamp())));
        Map<String, List<Series>> byName = expected.keySet().stream()
                .collect(Collectors.groupingBy(Series::name, TreeMap::new, Collectors.toList()));
        Series cpu0 = new Series("web-1", "cpu.usage_idle{cpu=\"cpu0\"}");
        Map<String, String> cpu0Labels = new TreeMap<>(cpu0.labels());
        cpu0Labels.remove("__name__");
        for (long timestamp : timestamps) {
            for (Map.Entry<String, List<Series>> name : byName.entrySet()) {
                Map<Map<String, String>, Double> values = new HashMap<>();
                for (Series series : name.getValue()) {
                    values.put(series.labels(), valueAt(series, timestamp));
                }
                assertThat(instant("{__name__=\"" + name.getKey() + "\"}", timestamp + 1000))
                        .as("%s at %d", name.getKey(), timestamp + 1000).isEqualTo(values);
            }
            // The device and another tag select one series, as docs/ingest.md shows.
            assertThat(instant("last_over_time({__name__=\"cpu.usage_idle\", device=\"web-1\", cpu=\"cpu0\"}[1m])", timestamp + 1000))
                    .isEqualTo(Map.of(cpu0Labels, valueAt(cpu0, timestamp)));
        }
    }

    @Test
    void aBatchWithAStringFieldIsRefusedWholeInInfluxDbOnesErrorShape() throws Exception {
        JsonNode refused = reports.get("refused");
        assertThat(refused.path("code").asInt()).as(refused.toString()).isEqualTo(400);
        JsonNode error = JSON.readTree(refused.get("content").asText());
        assertThat(error.get("line").asInt()).as(error.toString()).isEqualTo(2);
        assertThat(error.get("error").asText()).as(error.toString()).startsWith("body: line 2: ").contains("'text'").contains("string");
        // The later write of the same device (same partition, so processed after anything of the refused batch).
        assertThat(reports.get("after").path("written").asBoolean()).as(reports.toString()).isTrue();
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200))
                .until(() -> get(new Series(REFUSED_HOST, "note.w").path() + "/latest").statusCode() == 200);
        JsonNode after = json(new Series(REFUSED_HOST, "note.w").path() + "/readings?order=asc");
        assertThat(after.get("readings")).as("only the reading of the later write: %s", after).hasSize(1);
        assertThat(after.at("/readings/0/timestamp").asLong()).isEqualTo(T0 + STEP);
        assertThat(after.at("/readings/0/value").asDouble()).isEqualTo(3.5);
        for (String metric : List.of("note.v", "note.text")) {
            HttpResponse<String> latest = get(new Series(REFUSED_HOST, metric).path() + "/latest");
            assertThat(latest.statusCode()).as("%s of the refused batch: %s", metric, latest.body()).isEqualTo(404);
        }
    }

    // ---------------------------------------------------------------------------------------------

    /** A point as influxdb-python's {@code write_points} takes it (JSON: {@code measurement, tags, time, fields}). */
    private record Point(String measurement, Map<String, String> tags, long time, Map<String, Object> fields) {
    }

    /** A series as the node names it; ordered for readable failures. */
    private record Series(String device, String metric) implements Comparable<Series> {

        String path() {
            return "/api/v1/series/" + Urls.segment(device) + "/" + Urls.segment(metric);
        }

        String name() {
            int brace = metric.indexOf('{');
            return brace < 0 ? metric : metric.substring(0, brace);
        }

        /** The Prometheus API's labels: the name, the device and the tags in the metric (none of ours has quotes). */
        Map<String, String> labels() {
            Map<String, String> labels = new TreeMap<>(Map.of("__name__", name(), "device", device));
            int brace = metric.indexOf('{');
            if (brace >= 0) {
                for (String label : metric.substring(brace + 1, metric.length() - 1).split(",")) {
                    int equals = label.indexOf('=');
                    labels.put(label.substring(0, equals), label.substring(equals + 2, label.length() - 1));
                }
            }
            return labels;
        }

        @Override
        public int compareTo(Series other) {
            return (device + " " + metric).compareTo(other.device + " " + other.metric);
        }
    }

    private record Reading(long timestamp, double value, Map<String, String> tags) {
    }

    /**
     * Four timestamps from {@code T0 + first * STEP}: at each, per host, the cpu0 and cpu1 points (a float and an
     * integer field) and a disk point with a boolean; values vary with host, cpu and time, some with long decimals.
     */
    private static List<Point> batch(int first) {
        List<Point> points = new ArrayList<>();
        for (int step = first; step < first + 4; step++) {
            long time = T0 + step * STEP;
            for (int host = 0; host < HOSTS.size(); host++) {
                for (int cpu = 0; cpu < 2; cpu++) {
                    Map<String, Object> fields = new LinkedHashMap<>();
                    fields.put("usage_idle", 50 + 10 * host + 3 * cpu + step * 1.1);
                    fields.put("usage_user", (long) (100 * host + 10 * cpu + step));
                    points.add(new Point("cpu", Map.of("host", HOSTS.get(host), "cpu", "cpu" + cpu), time, fields));
                }
                String name = HOSTS.get(host);
                points.add(new Point("disk", Map.of("host", name, "path", DISK_PATHS.get(name)), time,
                        Map.of("ok", (step + host) % 3 != 0)));
            }
        }
        return points;
    }

    /**
     * The readings docs/ingest.md says the points are: the device is the tag {@code host}; the metric is
     * {@code measurement.field} with the other tags, sorted, as labels; booleans are 1 and 0.
     */
    private static Map<Series, List<Reading>> readingsOf(List<Point> points) {
        Map<Series, List<Reading>> readings = new TreeMap<>();
        for (Point point : points) {
            Map<String, String> tags = new TreeMap<>(point.tags());
            String device = tags.remove("host");
            String labels = tags.entrySet().stream().map(tag -> tag.getKey() + "=\"" + tag.getValue() + "\"")
                    .collect(Collectors.joining(","));
            for (Map.Entry<String, Object> field : point.fields().entrySet()) {
                String metric = point.measurement() + "." + field.getKey() + (labels.isEmpty() ? "" : "{" + labels + "}");
                double value = field.getValue() instanceof Boolean ok ? (ok ? 1 : 0) : ((Number) field.getValue()).doubleValue();
                readings.computeIfAbsent(new Series(device, metric), series -> new ArrayList<>())
                        .add(new Reading(point.time(), value, tags));
            }
        }
        readings.values().forEach(list -> list.sort((a, b) -> Long.compare(a.timestamp(), b.timestamp())));
        return readings;
    }

    private static double valueAt(Series series, long timestamp) {
        return expected.get(series).stream().filter(reading -> reading.timestamp() == timestamp).findFirst()
                .orElseThrow().value();
    }

    /** The Prometheus API's instant query at {@code time} (ms), asked as a form: each series' labels and value. */
    private static Map<Map<String, String>, Double> instant(String query, long time) throws Exception {
        String form = "query=" + Urls.segment(query) + "&time=" + time / 1000 + "." + String.format("%03d", time % 1000);
        HttpResponse<String> response = CLIENT.send(HttpRequest.newBuilder(URI.create(node.server().url() + "/prometheus/api/v1/query"))
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString(form)).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as(query + ": " + response.body()).isEqualTo(200);
        JsonNode answer = JSON.readTree(response.body());
        assertThat(answer.at("/data/resultType").asText()).as(response.body()).isEqualTo("vector");
        Map<Map<String, String>, Double> values = new HashMap<>();
        for (JsonNode series : answer.at("/data/result")) {
            Map<String, String> labels = new TreeMap<>();
            series.get("metric").fields().forEachRemaining(label -> labels.put(label.getKey(), label.getValue().asText()));
            assertThat(Math.round(series.at("/value/0").asDouble() * 1000)).as(response.body()).isEqualTo(time);
            values.put(labels, Double.parseDouble(series.at("/value/1").asText()));
        }
        return values;
    }

    /** The first interpreter that imports influxdb: python3 on PATH, else Debian's, where python3-influxdb installs it. */
    private static String pythonWithInfluxdb() throws Exception {
        for (String python : List.of("python3", "/usr/bin/python3")) {
            try {
                if (run(List.of(python, "-c", "import influxdb")).exit() == 0) {
                    return python;
                }
            } catch (IOException notThere) {
                // Not installed: try the next one.
            }
        }
        return null;
    }

    private static ProcessRun run(List<String> command) throws Exception {
        return ProcessRun.of(dir, Duration.ofSeconds(60), command);
    }

    private static JsonNode json(String pathAndQuery) throws Exception {
        HttpResponse<String> response = get(pathAndQuery);
        assertThat(response.statusCode()).as(pathAndQuery + ": " + response.body()).isEqualTo(200);
        return JSON.readTree(response.body());
    }

    private static HttpResponse<String> get(String pathAndQuery) throws Exception {
        return CLIENT.send(HttpRequest.newBuilder(URI.create(node.server().url() + pathAndQuery)).timeout(Duration.ofSeconds(30))
                .GET().build(), HttpResponse.BodyHandlers.ofString());
    }

}
