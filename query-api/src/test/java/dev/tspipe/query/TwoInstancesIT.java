package dev.tspipe.query;

import dev.tspipe.query.http.AnswerHeaders;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tspipe.embedded.EmbeddedSchemaRegistry;
import dev.tspipe.embedded.junit.EmbeddedKafkaExtension;
import dev.tspipe.processor.topology.PipelineConfig;
import dev.tspipe.processor.store.RollupStep;
import dev.tspipe.processor.store.StoreNames;
import dev.tspipe.processor.topology.Topics;
import dev.tspipe.schemas.Device;
import dev.tspipe.schemas.serde.AvroSerdeConfig;
import dev.tspipe.schemas.serde.AvroSerializer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.KeyQueryMetadata;
import org.apache.kafka.streams.TaskMetadata;
import org.apache.kafka.streams.ThreadMetadata;
import org.apache.kafka.streams.state.HostInfo;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
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
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Two instances of one application (two Kafka Streams instances, two query servers, one standby
 * replica each) on the embedded broker and registry: every series answers the same from either
 * instance, pagination and windows are exact, and while one instance stops the other answers every read.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class TwoInstancesIT {

    @RegisterExtension
    static final EmbeddedKafkaExtension KAFKA = new EmbeddedKafkaExtension();

    private static final String APP = "query-it";
    private static final String TOPIC = APP + "-readings";
    private static final int PARTITIONS = 6;
    private static final long BASE = Instant.parse("2026-11-01T00:00:00Z").toEpochMilli();
    private static final String BIG_DEVICE = "device-big";
    private static final String BIG_METRIC = "temperature";
    private static final int BIG_READINGS = 1_050;
    /**
     * A per-key volume guideline. Every partition holds less than an hour of readings, so a projection scales what a
     * device holds by 168 (the 7-day lifecycle over the one-hour shortest span); with raw readings in blocks a device
     * holds a few hundred bytes to a few kilobytes here, which RocksDB's estimates of a memtable count by its entries.
     */
    private static final long VOLUME_GUIDELINE = 5_000_000;
    /**
     * How long a read that no copy can answer keeps trying. While partitions move, a standby that becomes the active task
     * is queryable nowhere for a moment whose length depends on the machine's load (docs/query-api.md); a wait longer
     * than that moment can ever be in this test lets the failover test ask for what it means, no 503 at all, instead of
     * a share of 503s that a loaded machine might or might not exceed.
     */
    private static final Duration FAILOVER_WAIT = Duration.ofSeconds(30);
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient CLIENT = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    @TempDir
    static Path stateDir;

    private static EmbeddedSchemaRegistry registry;
    private static PipelineConfig config;
    /** Expected readings per series ("device/metric"), by timestamp. */
    private static final Map<String, TreeMap<Long, Double>> EXPECTED = new LinkedHashMap<>();
    private static TestNode a;
    private static TestNode b;

    record Answer(int status, JsonNode body, HttpResponse<String> raw) {
        String header(String name) {
            return raw.headers().firstValue(name).orElse(null);
        }
    }

    @BeforeAll
    static void startTwoInstances() throws Exception {
        registry = EmbeddedSchemaRegistry.builder().bootstrapServers(KAFKA.broker().bootstrapServers()).start();
        KAFKA.broker().createTopic(TOPIC, PARTITIONS);
        KAFKA.broker().createTopic(APP + "-dlq", 1);
        KAFKA.broker().createTopic(Topics.DEVICES, 1);
        config = new PipelineConfig(Map.of(PipelineConfig.SCHEMA_REGISTRY_URL, registry.url(),
                PipelineConfig.READINGS_TOPIC, TOPIC, PipelineConfig.DLQ_TOPIC, APP + "-dlq"));
        produce();
        a = TestNode.start(KAFKA.broker().bootstrapServers(), config, APP, stateDir.resolve("a"),
                server -> server.volumeGuidelineBytes(VOLUME_GUIDELINE).failoverWait(FAILOVER_WAIT));
        b = TestNode.start(KAFKA.broker().bootstrapServers(), config, APP, stateDir.resolve("b"),
                server -> server.volumeGuidelineBytes(VOLUME_GUIDELINE).failoverWait(FAILOVER_WAIT));
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
        if (registry != null) {
            registry.close();
        }
    }


    private static void produce() {
        for (int d = 0; d < 20; d++) {
            for (String metric : List.of("temperature", "humidity")) {
                TreeMap<Long, Double> readings = new TreeMap<>();
                for (int i = 0; i < 20; i++) {
                    readings.put(BASE + i * 7_000L + d, d * 1_000 + metric.length() * 100 + i + 0.5);
                }
                EXPECTED.put(String.format("device-%02d", d) + "/" + metric, readings);
            }
        }
        TreeMap<Long, Double> big = new TreeMap<>();
        for (int i = 0; i < BIG_READINGS; i++) {
            big.put(BASE + i * 1_000L, (double) i);
        }
        EXPECTED.put(BIG_DEVICE + "/" + BIG_METRIC, big);

        Map<String, Object> producerConfig = KAFKA.broker().clientConfig();
        producerConfig.put(ProducerConfig.LINGER_MS_CONFIG, 5);
        SeriesProducer.produce(producerConfig, registry.url(), TOPIC, EXPECTED);
    }

    private static boolean allLatestStored(TestNode instance) throws Exception {
        for (Map.Entry<String, TreeMap<Long, Double>> series : EXPECTED.entrySet()) {
            Answer latest = get(instance, "/api/v1/series/" + series.getKey() + "/latest");
            if (latest.status() != 200 || latest.body().get("timestamp").asLong() != series.getValue().lastKey()) {
                return false;
            }
        }
        return true;
    }

    static Answer get(TestNode instance, String pathAndQuery) throws Exception {
        HttpResponse<String> response = CLIENT.send(HttpRequest.newBuilder(URI.create(instance.server().url() + pathAndQuery))
                .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
        boolean json = response.headers().firstValue("Content-Type").orElse("").startsWith("application/json");
        return new Answer(response.statusCode(), json ? JSON.readTree(response.body()) : null, response);
    }

    private static String readingsPath(String series, String query) {
        return "/api/v1/series/" + series + "/readings?" + query;
    }

    /** The readings of an answer as timestamp -> value, in answer order. */
    private static LinkedHashMap<Long, Double> readings(Answer answer) {
        LinkedHashMap<Long, Double> readings = new LinkedHashMap<>();
        answer.body().get("readings").forEach(r -> readings.put(r.get("timestamp").asLong(), r.get("value").asDouble()));
        return readings;
    }

    @Test
    @org.junit.jupiter.api.Order(1)
    void everySeriesAnswersTheSameFromEitherInstanceAndAsProduced() throws Exception {
        Set<HostInfo> owners = new HashSet<>();
        for (Map.Entry<String, TreeMap<Long, Double>> series : EXPECTED.entrySet()) {
            String path = readingsPath(series.getKey(), "limit=10000");
            Answer fromA = get(a, path);
            Answer fromB = get(b, path);
            assertThat(fromA.status()).as(path).isEqualTo(200);
            assertThat(fromB.body()).as(path).isEqualTo(fromA.body());
            assertThat(fromA.header(AnswerHeaders.STALE)).isNull();
            assertThat(new ArrayList<>(readings(fromA).keySet())).isEqualTo(new ArrayList<>(series.getValue().descendingKeySet()));
            assertThat(readings(fromA)).isEqualTo(series.getValue());
            assertThat(fromA.body().get("nextCursor").isNull()).isTrue();

            String latestPath = "/api/v1/series/" + series.getKey() + "/latest";
            assertThat(get(b, latestPath).body()).isEqualTo(get(a, latestPath).body());
            assertThat(get(a, latestPath).body().get("value").asDouble()).isEqualTo(series.getValue().lastEntry().getValue());

            String rollupPath = "/api/v1/series/" + series.getKey() + "/rollups?step=1m&order=asc&limit=10000";
            Answer rollups = get(a, rollupPath);
            assertThat(get(b, rollupPath).body()).isEqualTo(rollups.body());
            Map<Long, long[]> expectedCounts = new TreeMap<>();
            series.getValue().keySet().forEach(t -> expectedCounts.computeIfAbsent(RollupStep.MINUTE.bucketStart(t), s -> new long[1])[0]++);
            Map<Long, Long> counts = new TreeMap<>();
            rollups.body().get("buckets").forEach(bucket -> counts.put(bucket.get("start").asLong(), bucket.get("count").asLong()));
            Map<Long, Long> expected = new TreeMap<>();
            expectedCounts.forEach((start, count) -> expected.put(start, count[0]));
            assertThat(counts).isEqualTo(expected);

            String device = series.getKey().substring(0, series.getKey().indexOf('/'));
            KeyQueryMetadata metadata = a.streams().queryMetadataForKey(StoreNames.RAW, device.getBytes(StandardCharsets.UTF_8),
                    new ByteArraySerializer());
            owners.add(metadata.activeHost());
        }
        // Both instances own series, so half of the answers above were forwarded and equal the owner's.
        assertThat(owners).hasSize(2);
        assertThat(get(a, "/metrics").raw().body()).containsPattern("tspipe_query_forwarded_total [1-9]");
    }

    @Test
    @org.junit.jupiter.api.Order(2)
    void pagesOfAHundredWalkTheBigSeriesWithoutGapOrRepeatInBothOrders() throws Exception {
        TreeMap<Long, Double> expected = EXPECTED.get(BIG_DEVICE + "/" + BIG_METRIC);
        for (String order : List.of("desc", "asc")) {
            List<Long> seen = new ArrayList<>();
            String cursor = null;
            int pages = 0;
            TestNode[] alternate = {a, b};
            do {
                String query = "limit=100&order=" + order + (cursor == null ? "" : "&cursor=" + URLEncoder.encode(cursor, StandardCharsets.UTF_8));
                Answer page = get(alternate[pages % 2], readingsPath(BIG_DEVICE + "/" + BIG_METRIC, query));
                assertThat(page.status()).isEqualTo(200);
                seen.addAll(readings(page).keySet());
                cursor = page.body().get("nextCursor").isNull() ? null : page.body().get("nextCursor").asText();
                pages++;
                assertThat(readings(page)).hasSize(pages <= 10 ? 100 : 50);
            } while (cursor != null);
            assertThat(pages).isEqualTo(11);
            List<Long> want = new ArrayList<>(order.equals("asc") ? expected.navigableKeySet() : expected.descendingKeySet());
            assertThat(seen).as(order).isEqualTo(want);
        }
        // A page that ends exactly at the end of the data is the last page.
        Answer exact = get(a, readingsPath(BIG_DEVICE + "/" + BIG_METRIC, "limit=1050"));
        assertThat(readings(exact)).hasSize(1_050);
        assertThat(exact.body().get("nextCursor").isNull()).isTrue();
        Answer firstOfTwo = get(a, readingsPath(BIG_DEVICE + "/" + BIG_METRIC, "limit=1000"));
        String next = firstOfTwo.body().get("nextCursor").asText();
        Answer last = get(b, readingsPath(BIG_DEVICE + "/" + BIG_METRIC, "limit=1000&cursor=" + next));
        assertThat(readings(last)).hasSize(50);
        assertThat(last.body().get("nextCursor").isNull()).isTrue();
        // The cursor is tied to its query.
        Answer foreign = get(a, readingsPath("device-00/temperature", "cursor=" + next));
        assertThat(foreign.status()).isEqualTo(400);
        assertThat(foreign.body().get("message").asText()).startsWith("cursor: ");
    }

    @Test
    @org.junit.jupiter.api.Order(3)
    void timeWindowsAreExactAtTheEdges() throws Exception {
        String series = BIG_DEVICE + "/" + BIG_METRIC;
        long t5 = BASE + 5_000;
        long t10 = BASE + 10_000;
        assertThat(readings(get(a, readingsPath(series, "from=" + t5 + "&to=" + t10 + "&order=asc"))).keySet())
                .containsExactly(t5, t5 + 1_000, t5 + 2_000, t5 + 3_000, t5 + 4_000);
        assertThat(readings(get(b, readingsPath(series, "from=" + t5 + "&to=" + (t5 + 1)))).keySet()).containsExactly(t5);
        assertThat(readings(get(a, readingsPath(series, "from=" + (t5 + 1) + "&to=" + (t5 + 1_000))))).isEmpty();
        assertThat(readings(get(b, readingsPath(series, "from=" + (t5 - 1) + "&to=" + t5)))).isEmpty();
        String iso = "from=" + Instant.ofEpochMilli(t5) + "&to=" + Instant.ofEpochMilli(t10);
        assertThat(readings(get(a, readingsPath(series, iso))).keySet())
                .containsExactly(t10 - 1_000, t10 - 2_000, t10 - 3_000, t10 - 4_000, t5);
        // Rollup windows select buckets by their start: the minute starting at BASE + 60 s.
        Answer minute = get(b, "/api/v1/series/" + series + "/rollups?step=1m&from=" + (BASE + 60_000) + "&to=" + (BASE + 60_001));
        assertThat(minute.body().get("buckets")).hasSize(1);
        JsonNode bucket = minute.body().get("buckets").get(0);
        assertThat(bucket.get("count").asLong()).isEqualTo(60);
        assertThat(bucket.get("min").asDouble()).isEqualTo(60);
        assertThat(bucket.get("max").asDouble()).isEqualTo(119);
        assertThat(bucket.get("last").asDouble()).isEqualTo(119);
        assertThat(bucket.get("mean").asDouble()).isEqualTo(89.5);
        assertThat(bucket.get("sum").asDouble()).isEqualTo(5_370);
    }

    /**
     * The big series downsampled, asked of both instances (one of them forwards): from the raw readings for a step
     * of 7 s and for {@code first}, from the 1-minute rollups for a step of 2 minutes; every point equals the readings
     * of its bucket, and empty buckets are filled as asked.
     */
    @Test
    @org.junit.jupiter.api.Order(4)
    void downsampledPointsEqualTheReadingsOfTheirBuckets() throws Exception {
        TreeMap<Long, Double> big = EXPECTED.get(BIG_DEVICE + "/" + BIG_METRIC);
        String path = "/api/v1/series/" + BIG_DEVICE + "/" + BIG_METRIC + "/downsample?";
        long to = BASE + 30 * 60_000;
        for (TestNode instance : List.of(a, b)) {
            Answer raw = get(instance, path + "from=" + BASE + "&to=" + to + "&step=7s&fn=sum");
            assertThat(raw.status()).isEqualTo(200);
            assertThat(raw.body().get("source").asText()).isEqualTo("raw");
            assertThat(raw.body().get("step").asLong()).isEqualTo(7_000);
            JsonNode points = raw.body().get("points");
            // Buckets are aligned to the epoch, not to from: one per 7 s span that holds a reading.
            assertThat(points).hasSize((int) big.keySet().stream().map(t -> Math.floorDiv(t, 7_000L)).distinct().count());
            for (JsonNode point : points) {
                long start = point.get("timestamp").asLong();
                double sum = big.subMap(start, start + 7_000).values().stream().mapToDouble(Double::doubleValue).sum();
                assertThat(point.get("value").asDouble()).as("bucket %d", start).isEqualTo(sum);
            }

            Answer rollups = get(instance, path + "from=" + BASE + "&to=" + to + "&step=2m&fn=max&fill=null");
            assertThat(rollups.body().get("source").asText()).isEqualTo("rollups-1m");
            assertThat(rollups.body().get("points")).hasSize(15);
            for (JsonNode point : rollups.body().get("points")) {
                long start = point.get("timestamp").asLong();
                Map<Long, Double> in = big.subMap(start, start + 120_000);
                if (in.isEmpty()) {
                    assertThat(point.get("value").isNull()).as("bucket %d", start).isTrue();
                } else {
                    assertThat(point.get("value").asDouble()).isEqualTo(in.values().stream().mapToDouble(Double::doubleValue).max()
                            .getAsDouble());
                }
            }

            Answer first = get(instance, path + "from=" + BASE + "&to=" + to + "&step=2m&fn=first&fill=prev");
            assertThat(first.body().get("source").asText()).isEqualTo("raw");
            JsonNode lastBucket = first.body().get("points").get(14);
            assertThat(lastBucket.get("value").asDouble()).as("filled with the previous point")
                    .isEqualTo(big.ceilingEntry(BASE + 8 * 120_000).getValue());
        }
        Answer tooMany = get(a, path + "from=" + BASE + "&to=" + (BASE + 86_400_000L) + "&step=1s");
        assertThat(tooMany.status()).isEqualTo(400);
        assertThat(tooMany.body().get("message").asText()).contains("at most 11000 points");
        assertThat(get(a, path + "from=" + BASE + "&to=" + to + "&step=5m&fn=median").body().get("message").asText())
                .isEqualTo("fn: 'median' is not one of avg, min, max, sum, count, first, last");
        assertThat(get(a, path + "to=" + to + "&step=5m").status()).isEqualTo(400);
        assertThat(get(a, "/api/v1/series/nobody/temperature/downsample?from=" + BASE + "&to=" + to + "&step=5m").status())
                .isEqualTo(404);
    }

    @Test
    @org.junit.jupiter.api.Order(4)
    void deviceMetricsStatisticsAndErrorShapes() throws Exception {
        for (TestNode instance : new TestNode[] {a, b}) {
            Answer metrics = get(instance, "/api/v1/devices/device-03/metrics");
            assertThat(metrics.status()).isEqualTo(200);
            List<String> names = new ArrayList<>();
            metrics.body().get("metrics").forEach(m -> names.add(m.get("metric").asText()));
            assertThat(names).containsExactly("humidity", "temperature");
            assertThat(metrics.body().get("metrics").get(0).get("latest").get("timestamp").asLong())
                    .isEqualTo(EXPECTED.get("device-03/humidity").lastKey());

            Answer unknown = get(instance, readingsPath("device-03/pressure", ""));
            assertThat(unknown.status()).isEqualTo(404);
            assertThat(unknown.body().get("error").asText()).isEqualTo("unknown-series");
            assertThat(get(instance, "/api/v1/series/device-03/pressure/latest").status()).isEqualTo(404);
            assertThat(get(instance, "/api/v1/devices/nobody/metrics").status()).isEqualTo(404);
            Answer bad = get(instance, readingsPath("device-03/humidity", "limit=20000"));
            assertThat(bad.status()).isEqualTo(400);
            assertThat(bad.body().get("message").asText()).startsWith("limit: ");
            assertThat(get(instance, "/ready").status()).isEqualTo(200);
        }
        Answer statistics = get(a, "/api/v1/stats/partitions");
        List<String> over = new ArrayList<>();
        JsonNode bigPartition = null;
        for (JsonNode partition : statistics.body().get("partitions")) {
            JsonNode devices = partition.get("devices");
            assertThat(devices.get("guidelineBytes").asLong()).isEqualTo(VOLUME_GUIDELINE);
            devices.get("overGuideline").forEach(d -> over.add(d.get("device").asText()));
            for (JsonNode device : devices.get("top")) {
                // A device is over the guideline exactly when its projection is.
                assertThat(device.get("overGuideline").asBoolean()).as(device.toString())
                        .isEqualTo(device.get("projectedLifecycleBytes").asLong() > VOLUME_GUIDELINE);
                if (device.get("overGuideline").asBoolean()) {
                    assertThat(over).contains(device.get("device").asText());
                }
                if (device.get("device").asText().equals(BIG_DEVICE)) {
                    bigPartition = devices;
                }
            }
        }
        assertThat(bigPartition).as("the partition of " + BIG_DEVICE).isNotNull();
        JsonNode big = null;
        for (JsonNode device : bigPartition.get("top")) {
            if (device.get("device").asText().equals(BIG_DEVICE)) {
                big = device;
            }
        }
        System.out.printf("devices by volume: %s estimated at %d rows (%d readings), %d bytes, projected %d bytes; over the "
                        + "guideline: %s%n", BIG_DEVICE, big.get("estimatedRows").asLong(), BIG_READINGS,
                big.get("estimatedBytes").asLong(), big.get("projectedLifecycleBytes").asLong(), over);
        // The raw table's rows are blocks (an hour of a series each), and in a memtable the chunks that commits appended
        // to them (docs/storage.md, "Reads"): the big series' 1,050 readings of 18 minutes are one block, of as many
        // chunks as commits wrote them. RocksDB's estimate counts rows, so it is between one and the readings.
        assertThat(big.get("estimatedRows").asLong()).isBetween(1L, (long) BIG_READINGS);
        assertThat(big.get("estimatedBytes").asLong()).isPositive();
    }

    /** The rows read of the device's range (with 64 ranges per partition, a range of its own), over the whole window. */
    private static long readsOf(Answer heatmap, String device) {
        for (JsonNode range : heatmap.body().get("ranges")) {
            if (range.get("firstDevice").asText().equals(device)) {
                return range.get("total").asLong();
            }
        }
        return 0;
    }

    /**
     * Device metadata (docs/devices.md): devices put on the devices topic reach both instances' tables (a tombstone too);
     * every filter answers exactly what an oracle over the produced devices picks, from either instance; the latest
     * reading of a metric for a site gathers devices owned by both instances; a Prometheus selector matches metadata.
     */
    @Test
    @org.junit.jupiter.api.Order(4)
    void devicesReachEveryInstanceFiltersAreExactAndTheLatestOfASiteFansOut() throws Exception {
        long started = System.nanoTime();
        long seed = Long.getLong("tspipe.seed", 17L);
        System.out.println("TwoInstancesIT devices seed " + seed + " (rerun with -Dtspipe.seed=" + seed + ")");
        Random random = new Random(seed);
        List<String> sites = List.of("plant-1", "plant-2", "plant-3");
        List<String> types = List.of("press", "kiln");
        Map<String, Device> devices = new TreeMap<>();
        for (int i = 0; i < 220; i++) {
            String id = i < 20 ? String.format("device-%02d", i) : String.format("spare-%03d", i);
            Map<String, String> labels = new TreeMap<>();
            labels.put("line", Integer.toString(random.nextInt(3)));
            if (random.nextBoolean()) {
                labels.put("firmware", random.nextBoolean() ? "2.1" : "2.2");
            }
            devices.put(id, Device.newBuilder().setId(id).setSite(random.nextInt(5) == 0 ? null : sites.get(random.nextInt(3)))
                    .setType(types.get(random.nextInt(2))).setLabels(labels).setRegistered(Instant.ofEpochMilli(BASE)).build());
        }
        // plant-1 has devices on both instances, so that its latest readings come from both.
        Map<HostInfo, String> ownerOf = new LinkedHashMap<>();
        for (int d = 0; d < 20; d++) {
            String id = String.format("device-%02d", d);
            ownerOf.putIfAbsent(a.streams().queryMetadataForKey(StoreNames.LATEST, id.getBytes(StandardCharsets.UTF_8),
                    new ByteArraySerializer()).activeHost(), id);
        }
        assertThat(ownerOf).hasSize(2);
        ownerOf.values().forEach(id -> devices.get(id).setSite("plant-1"));
        Map<String, Object> producerConfig = KAFKA.broker().clientConfig();
        AvroSerializer<Object> avro = new AvroSerializer<>();
        avro.configure(Map.of(AvroSerdeConfig.SCHEMA_REGISTRY_URL, registry.url()), false);
        try (KafkaProducer<String, byte[]> producer = new KafkaProducer<>(producerConfig, new StringSerializer(),
                new ByteArraySerializer())) {
            producer.send(new ProducerRecord<>(Topics.DEVICES, "spare-gone", avro.serialize(Topics.DEVICES, Device.newBuilder()
                    .setId("spare-gone").setRegistered(Instant.ofEpochMilli(BASE)).build())));
            devices.forEach((id, device) -> producer.send(new ProducerRecord<>(Topics.DEVICES, id, avro.serialize(Topics.DEVICES, device))));
            producer.send(new ProducerRecord<>(Topics.DEVICES, "spare-gone", null));
        }
        for (TestNode instance : new TestNode[] {a, b}) {
            await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100)).until(() ->
                    get(instance, "/api/v1/devices?limit=20000").body().get("count").asInt() == devices.size());
        }
        long replicated = System.nanoTime();

        List<Map<String, String>> filters = List.of(Map.of(), Map.of("site", "plant-1"), Map.of("type", "kiln"),
                Map.of("label.line", "2"), Map.of("site", "plant-2", "type", "press"),
                Map.of("site", "plant-3", "label.firmware", "2.1"), Map.of("type", "press", "label.line", "0", "label.firmware", "2.2"),
                Map.of("site", "nowhere"), Map.of("label.absent", "x"));
        for (Map<String, String> filter : filters) {
            List<String> expected = devices.values().stream().filter(device -> filter.entrySet().stream().allMatch(f ->
                    f.getValue().equals(switch (f.getKey()) {
                        case "site" -> device.getSite();
                        case "type" -> device.getType();
                        default -> device.getLabels().get(f.getKey().substring("label.".length()));
                    }))).map(Device::getId).toList();
            String query = "limit=20000" + filter.entrySet().stream().map(f -> "&" + f.getKey() + "=" + f.getValue())
                    .reduce("", String::concat);
            for (TestNode instance : new TestNode[] {a, b}) {
                Answer answer = get(instance, "/api/v1/devices?" + query);
                assertThat(answer.status()).as(query).isEqualTo(200);
                List<String> ids = new ArrayList<>();
                answer.body().get("devices").forEach(device -> ids.add(device.get("id").asText()));
                assertThat(ids).as(query).isEqualTo(expected);
                assertThat(answer.body().get("count").asInt()).isEqualTo(expected.size());
            }
        }
        Answer firstTwo = get(b, "/api/v1/devices?limit=2&type=kiln");
        assertThat(firstTwo.body().get("truncated").asBoolean()).isTrue();
        assertThat(firstTwo.body().get("devices")).hasSize(2);

        Device one = devices.get("device-03");
        Answer device = get(b, "/api/v1/devices/device-03");
        assertThat(device.status()).isEqualTo(200);
        assertThat(device.body().get("type").asText()).isEqualTo(one.getType());
        assertThat(device.body().get("labels").get("line").asText()).isEqualTo(one.getLabels().get("line"));
        assertThat(device.body().get("registered").asLong()).isEqualTo(BASE);
        assertThat(get(a, "/api/v1/devices/device-03/metrics").body().get("metadata")).isEqualTo(device.body());
        assertThat(get(a, "/api/v1/devices/spare-gone").body().get("error").asText()).isEqualTo("unknown-device");
        for (String bad : List.of("label.=x", "colour=red", "site=", "site=a&site=b", "limit=0")) {
            Answer refused = get(a, "/api/v1/devices?" + bad);
            assertThat(refused.status()).as(bad).isEqualTo(400);
            assertThat(refused.body().get("error").asText()).as(bad).isEqualTo("bad-parameter");
        }
        assertThat(get(a, "/api/v1/metrics/temperature/latest?label.=1").status()).isEqualTo(400);

        // The latest temperature of plant-1: devices of both instances, one request to the other instance each.
        Map<String, Double> expectedLatest = new TreeMap<>();
        devices.values().stream().filter(d -> "plant-1".equals(d.getSite()) && EXPECTED.containsKey(d.getId() + "/temperature"))
                .forEach(d -> expectedLatest.put(d.getId(), EXPECTED.get(d.getId() + "/temperature").lastEntry().getValue()));
        long picked = devices.values().stream().filter(d -> "plant-1".equals(d.getSite())).count();
        for (TestNode instance : new TestNode[] {a, b}) {
            Answer latest = get(instance, "/api/v1/metrics/temperature/latest?site=plant-1");
            assertThat(latest.status()).isEqualTo(200);
            Map<String, Double> values = new TreeMap<>();
            latest.body().get("readings").forEach(r -> values.put(r.get("device").asText(), r.get("value").asDouble()));
            assertThat(values).isEqualTo(expectedLatest);
            assertThat(latest.body().get("missing")).isEmpty();
            assertThat(latest.body().get("count").asLong()).isEqualTo(picked);
        }
        assertThat(expectedLatest.keySet()).containsAll(ownerOf.values());

        // Prometheus: metadata is matchable and shown, the series' own labels kept.
        long at = EXPECTED.values().stream().mapToLong(TreeMap::lastKey).max().orElseThrow() / 1000 + 1;
        Answer prometheus = get(b, "/prometheus/api/v1/query?time=" + at + "&lookback_delta=1h&query="
                + URLEncoder.encode("temperature{site=\"plant-1\"}", StandardCharsets.UTF_8));
        assertThat(prometheus.status()).isEqualTo(200);
        Map<String, Double> fromPrometheus = new TreeMap<>();
        for (JsonNode series : prometheus.body().get("data").get("result")) {
            String id = series.get("metric").get("device").asText();
            fromPrometheus.put(id, series.get("value").get(1).asDouble());
            assertThat(series.get("metric").get("site").asText()).isEqualTo("plant-1");
            assertThat(series.get("metric").get("type").asText()).isEqualTo(devices.get(id).getType());
            assertThat(series.get("metric").get("line").asText()).isEqualTo(devices.get(id).getLabels().get("line"));
        }
        assertThat(fromPrometheus).isEqualTo(expectedLatest);
        System.out.printf("device metadata: replicated to both instances in %d ms, whole test %d ms%n",
                (replicated - started) / 1_000_000, (System.nanoTime() - started) / 1_000_000);
    }

    @Test
    @org.junit.jupiter.api.Order(5)
    void whenOneInstanceStopsTheSurvivorAnswersEveryReadMaybeStaleThenCompleteAgain() throws Exception {
        Map<Integer, Integer> statuses = new ConcurrentHashMap<>();
        List<String> problems = java.util.Collections.synchronizedList(new ArrayList<>());
        List<String> unavailable = java.util.Collections.synchronizedList(new ArrayList<>());
        java.util.concurrent.atomic.AtomicInteger stale = new java.util.concurrent.atomic.AtomicInteger();
        AtomicBoolean polling = new AtomicBoolean(true);
        List<String> seriesNames = new ArrayList<>(EXPECTED.keySet());
        Thread poller = new Thread(() -> {
            int i = 0;
            while (polling.get()) {
                String series = seriesNames.get(i++ % seriesNames.size());
                try {
                    Answer answer = get(a, readingsPath(series, "limit=10000"));
                    statuses.merge(answer.status(), 1, Integer::sum);
                    if ("true".equals(answer.header(AnswerHeaders.STALE))) {
                        stale.incrementAndGet();
                    }
                    if (answer.status() == 503) {
                        unavailable.add(answer.raw().body());
                    }
                    if (answer.status() == 503 && answer.header("Retry-After") == null) {
                        problems.add("503 without Retry-After for " + series);
                    } else if (answer.status() == 200 && "true".equals(answer.header(AnswerHeaders.STALE))
                            && answer.header(AnswerHeaders.LAG) == null) {
                        problems.add("stale answer without lag for " + series);
                    } else if (answer.status() != 200 && answer.status() != 503) {
                        problems.add(answer.status() + " for " + series + ": " + answer.raw().body());
                    }
                } catch (Exception e) {
                    problems.add(series + ": " + e);
                }
            }
        }, "failover-poller");
        // The survivor must hold a copy of every partition (its own active tasks, a standby of the others') before the
        // other stops, and the poller must be reading before it does: conditions, not a pause.
        await().atMost(Duration.ofMinutes(1)).pollInterval(Duration.ofMillis(100)).until(() -> holdsEveryPartition(a));
        poller.start();
        await().atMost(Duration.ofMinutes(1)).pollInterval(Duration.ofMillis(10)).until(() ->
                statuses.values().stream().mapToInt(Integer::intValue).sum() >= 10);
        b.close();
        b = null;
        try {
            await().atMost(Duration.ofMinutes(1)).pollInterval(Duration.ofMillis(500)).until(() ->
                    a.streams().state() == KafkaStreams.State.RUNNING && allCompleteAndFresh(a));
        } finally {
            polling.set(false);
            poller.join();
        }
        System.out.println("failover answers by status: " + statuses + ", of them stale: " + stale.get());
        unavailable.stream().distinct().limit(5).forEach(body -> System.out.println("failover 503: " + body));
        assertThat(problems).isEmpty();
        // The survivor holds a copy of every partition: it answers every read, from a standby or a restoring copy
        // (stale) while the partitions move, and the failover wait covers the moment a partition is queryable nowhere.
        int all = statuses.values().stream().mapToInt(Integer::intValue).sum();
        assertThat(statuses).as("answers by status of %d reads during the failover", all).containsOnlyKeys(200);
        Answer statistics = get(a, "/api/v1/stats/partitions");
        assertThat(statistics.body().get("partitions")).hasSize(PARTITIONS);
    }

    /** Whether {@code instance} runs a task, active or standby, of every partition of the input topic. */
    private static boolean holdsEveryPartition(TestNode instance) {
        Set<Integer> held = new HashSet<>();
        for (ThreadMetadata thread : instance.streams().metadataForLocalThreads()) {
            for (Set<TaskMetadata> tasks : List.of(thread.activeTasks(), thread.standbyTasks())) {
                tasks.forEach(task -> held.add(task.taskId().partition()));
            }
        }
        return held.containsAll(java.util.stream.IntStream.range(0, PARTITIONS).boxed().toList());
    }

    private static boolean allCompleteAndFresh(TestNode instance) throws Exception {
        for (Map.Entry<String, TreeMap<Long, Double>> series : EXPECTED.entrySet()) {
            Answer answer = get(instance, readingsPath(series.getKey(), "limit=10000&order=asc"));
            if (answer.status() != 200 || answer.header(AnswerHeaders.STALE) != null
                    || !readings(answer).equals(series.getValue())) {
                return false;
            }
        }
        return true;
    }
}
