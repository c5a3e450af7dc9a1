package dev.tspipe.query;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tspipe.embedded.EmbeddedSchemaRegistry;
import dev.tspipe.embedded.junit.EmbeddedKafkaExtension;
import dev.tspipe.processor.topology.PipelineConfig;
import dev.tspipe.processor.topology.Topics;
import dev.tspipe.processor.store.RollupStep;
import org.apache.kafka.clients.producer.Partitioner;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.internals.BuiltInPartitioner;
import org.apache.kafka.common.Cluster;
import org.apache.kafka.streams.KafkaStreams;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.CRC32;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Readings produced as librdkafka's clients (Confluent's Python, Go, .NET, C/C++ and Node clients)
 * place them by default: {@code consistent_random}, the CRC32 of the key modulo the partition count.
 * Two instances; every series must answer with every reading and exact counters from either one,
 * although most records arrived in another partition than the Java client would have put them.
 */
class ForeignPartitionerIT {

    @RegisterExtension
    static final EmbeddedKafkaExtension KAFKA = new EmbeddedKafkaExtension();

    private static final String APP = "crc32-it";
    private static final String TOPIC = APP + "-readings";
    private static final int PARTITIONS = 6;
    private static final int DEVICES = 40;
    private static final List<String> METRICS = List.of("temperature", "humidity");
    private static final int READINGS_PER_SERIES = 30;
    private static final long BASE = Instant.parse("2026-11-01T00:00:00Z").toEpochMilli();
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient CLIENT = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    private static final Pattern REROUTED = Pattern.compile(
            "(?m)^kafka_stream_tspipe_rerouted_total\\{[^}]*tspipe_id=\"other-partition\"[^}]*} ([0-9.eE+]+)$");

    @TempDir
    static Path stateDir;

    private static EmbeddedSchemaRegistry registry;
    private static PipelineConfig config;
    private static final Map<String, TreeMap<Long, Double>> EXPECTED = new LinkedHashMap<>();
    private static final List<TestNode> INSTANCES = new ArrayList<>();
    private static long misplacedRecords;

    /** librdkafka's {@code consistent_random} for keyed records: CRC32 of the key bytes, modulo the partitions. */
    public static final class Crc32Partitioner implements Partitioner {
        static int partition(byte[] key, int partitions) {
            CRC32 crc = new CRC32();
            crc.update(key);
            return (int) (crc.getValue() % partitions);
        }

        @Override
        public int partition(String topic, Object key, byte[] keyBytes, Object value, byte[] valueBytes, Cluster cluster) {
            return partition(keyBytes, cluster.partitionCountForTopic(topic));
        }

        @Override
        public void close() {
        }

        @Override
        public void configure(Map<String, ?> configs) {
        }
    }

    @BeforeAll
    static void startTwoInstancesAndProduceAsLibrdkafkaDoes() throws Exception {
        registry = EmbeddedSchemaRegistry.builder().bootstrapServers(KAFKA.broker().bootstrapServers()).start();
        KAFKA.broker().createTopic(TOPIC, PARTITIONS);
        KAFKA.broker().createTopic(APP + "-dlq", 1);
        KAFKA.broker().createTopic(Topics.DEVICES, 1);
        config = new PipelineConfig(Map.of(PipelineConfig.SCHEMA_REGISTRY_URL, registry.url(),
                PipelineConfig.READINGS_TOPIC, TOPIC, PipelineConfig.DLQ_TOPIC, APP + "-dlq"));
        INSTANCES.add(TestNode.start(KAFKA.broker().bootstrapServers(), config, APP, stateDir.resolve("a")));
        INSTANCES.add(TestNode.start(KAFKA.broker().bootstrapServers(), config, APP, stateDir.resolve("b")));
        await().atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(200)).until(() ->
                INSTANCES.stream().allMatch(i -> i.streams().state() == KafkaStreams.State.RUNNING));
        produce();
        await().atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(500)).until(() -> allLatestStored(INSTANCES.get(0)));
    }

    @AfterAll
    static void stopAll() {
        INSTANCES.forEach(TestNode::close);
        if (registry != null) {
            registry.close();
        }
    }


    private static void produce() {
        for (int d = 0; d < DEVICES; d++) {
            String device = String.format("gateway-%02d", d);
            byte[] key = device.getBytes(StandardCharsets.UTF_8);
            boolean misplaced = Crc32Partitioner.partition(key, PARTITIONS) != BuiltInPartitioner.partitionForKey(key, PARTITIONS);
            for (String metric : METRICS) {
                TreeMap<Long, Double> readings = new TreeMap<>();
                for (int i = 0; i < READINGS_PER_SERIES; i++) {
                    readings.put(BASE + i * 20_000L + d, d * 100 + metric.length() + i / 8.0);
                }
                EXPECTED.put(device + "/" + metric, readings);
                misplacedRecords += misplaced ? READINGS_PER_SERIES : 0;
            }
        }
        Map<String, Object> producerConfig = KAFKA.broker().clientConfig();
        producerConfig.put(ProducerConfig.PARTITIONER_CLASS_CONFIG, Crc32Partitioner.class.getName());
        SeriesProducer.produce(producerConfig, registry.url(), TOPIC, EXPECTED);
        // Most devices land elsewhere than murmur2 would put them, or the test proves nothing.
        assertThat(misplacedRecords).isGreaterThan((long) DEVICES * METRICS.size() * READINGS_PER_SERIES / 2);
    }

    private static boolean allLatestStored(TestNode instance) throws Exception {
        for (Map.Entry<String, TreeMap<Long, Double>> series : EXPECTED.entrySet()) {
            HttpResponse<String> latest = get(instance, "/api/v1/series/" + series.getKey() + "/latest");
            if (latest.statusCode() != 200 || JSON.readTree(latest.body()).get("timestamp").asLong() != series.getValue().lastKey()) {
                return false;
            }
        }
        return true;
    }

    private static HttpResponse<String> get(TestNode instance, String pathAndQuery) throws Exception {
        return CLIENT.send(HttpRequest.newBuilder(URI.create(instance.server().url() + pathAndQuery))
                .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void everySeriesAnswersWithEveryReadingAndExactCountersFromEitherInstance() throws Exception {
        for (TestNode instance : INSTANCES) {
            for (Map.Entry<String, TreeMap<Long, Double>> series : EXPECTED.entrySet()) {
                HttpResponse<String> page = get(instance, "/api/v1/series/" + series.getKey() + "/readings?limit=10000&order=asc");
                assertThat(page.statusCode()).as(series.getKey()).isEqualTo(200);
                Map<Long, Double> readings = new TreeMap<>();
                JSON.readTree(page.body()).get("readings").forEach(r -> readings.put(r.get("timestamp").asLong(), r.get("value").asDouble()));
                assertThat(readings).as(series.getKey()).isEqualTo(series.getValue());

                HttpResponse<String> hours = get(instance, "/api/v1/series/" + series.getKey() + "/rollups?step=1h&order=asc");
                assertThat(hours.statusCode()).as(series.getKey()).isEqualTo(200);
                Map<Long, Long> counts = new TreeMap<>();
                Map<Long, Double> sums = new TreeMap<>();
                for (JsonNode bucket : JSON.readTree(hours.body()).get("buckets")) {
                    counts.put(bucket.get("start").asLong(), bucket.get("count").asLong());
                    sums.put(bucket.get("start").asLong(), bucket.get("sum").asDouble());
                }
                Map<Long, Long> expectedCounts = new TreeMap<>();
                Map<Long, Double> expectedSums = new TreeMap<>();
                series.getValue().forEach((t, v) -> {
                    expectedCounts.merge(RollupStep.HOUR.bucketStart(t), 1L, Long::sum);
                    expectedSums.merge(RollupStep.HOUR.bucketStart(t), v, Double::sum);
                });
                assertThat(counts).as(series.getKey()).isEqualTo(expectedCounts);
                assertThat(sums).as(series.getKey()).isEqualTo(expectedSums);
            }
        }
    }

    @Test
    void theReroutedRecordsAreCountedOnMetrics() {
        // At least once each (a record retried after a rebalance counts again); new Kafka Streams metrics reach
        // /metrics within the binder's refresh interval.
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofSeconds(1)).untilAsserted(() ->
                assertThat(reroutedOnMetrics()).isGreaterThanOrEqualTo(misplacedRecords));
    }

    private static double reroutedOnMetrics() throws Exception {
        double rerouted = 0;
        for (TestNode instance : INSTANCES) {
            Matcher matcher = REROUTED.matcher(get(instance, "/metrics").body());
            while (matcher.find()) {
                rerouted += Double.parseDouble(matcher.group(1));
            }
        }
        return rerouted;
    }
}
