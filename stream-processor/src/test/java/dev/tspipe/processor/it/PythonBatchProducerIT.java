package dev.tspipe.processor.it;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tspipe.embedded.EmbeddedSchemaRegistry;
import dev.tspipe.embedded.junit.EmbeddedKafkaExtension;
import dev.tspipe.model.keys.KeyLayout;
import dev.tspipe.model.keys.RowKey;
import dev.tspipe.model.keys.SeriesId;
import dev.tspipe.model.rows.RawRow;
import dev.tspipe.processor.store.StoreNames;
import dev.tspipe.processor.topology.Topics;
import dev.tspipe.schemas.Reading;
import dev.tspipe.schemas.serde.AvroSerdeConfig;
import dev.tspipe.schemas.serde.AvroSerializer;
import org.apache.avro.Schema;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StoreQueryParameters;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.QueryableStoreTypes;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Batches from a real Python client: {@code produce_batches.py} (test resources, written as the example a user would
 * copy) sends seeded {@code ReadingBatch} records with confluent-kafka (Debian's {@code python3-confluent-kafka}), the schema
 * registered under its TopicRecordNameStrategy subject, keyed by the device, with {@code partitioner=murmur2_random},
 * idempotence and {@code acks=all}, to the embedded broker and registry while the real topology runs. Every reading it
 * reports sent is stored exactly, with its tags, the last one sent of each (device, metric, timestamp) winning; nothing
 * is re-routed and nothing is a dead letter. Skipped where no python3 imports confluent_kafka and an Avro library;
 * {@code .ci/run} installs them.
 */
class PythonBatchProducerIT {

    @RegisterExtension
    static final EmbeddedKafkaExtension KAFKA = new EmbeddedKafkaExtension();

    private static final long T0 = Instant.parse("2026-11-30T12:00:00Z").toEpochMilli();
    /** The devices of produce_batches.py ({@code DEVICES}). */
    private static final List<String> DEVICES = List.of("py-sensor-0", "py-sensor-1", "py-sensor-2", "py-sensor-3");
    private static final int BATCHES = 150;
    private static final String APP = "python-batch-it";
    private static final String SCRIPT = "/python/produce_batches.py";
    /** What the script needs: confluent-kafka, and fastavro (confluent-kafka's AvroSerializer) or avro (python3-avro). */
    private static final String IMPORTS = "import confluent_kafka\ntry:\n    import fastavro\nexcept ImportError:\n    import avro\n";
    private static final ObjectMapper JSON = new ObjectMapper();

    private static EmbeddedSchemaRegistry registry;

    @TempDir
    Path dir;

    @BeforeAll
    static void startRegistry() {
        registry = EmbeddedSchemaRegistry.builder().bootstrapServers(KAFKA.broker().bootstrapServers()).start();
    }

    @AfterAll
    static void stopRegistry() {
        if (registry != null) {
            registry.close();
        }
    }

    @Test
    void everyReadingAPythonProducerSendsInBatchesIsStoredExactly() throws Exception {
        String python = pythonWithConfluentKafka();
        if (python == null) {
            String message = "PythonBatchProducerIT skipped: neither python3 on PATH nor /usr/bin/python3 imports confluent_kafka "
                    + "and avro; Debian's python3-confluent-kafka and python3-avro packages provide them "
                    + "(apt-get install python3-confluent-kafka python3-avro), and .ci/run installs them when it can";
            System.out.println(message);
            Assumptions.assumeTrue(false, message);
        }
        long seed = Long.getLong("tspipe.seed", System.nanoTime());
        System.out.println("PythonBatchProducerIT seed " + seed + " (rerun with -Dtspipe.seed=" + seed + "), " + python);
        PipelineHarness harness = new PipelineHarness(KAFKA.broker(), registry.url(), APP);
        Path script = dir.resolve("produce_batches.py");
        try (InputStream in = PythonBatchProducerIT.class.getResourceAsStream(SCRIPT)) {
            assertThat(in).as(SCRIPT + " on the test classpath").isNotNull();
            Files.copy(in, script);
        }

        Map<GeneratedData.Point, RawRow> expected = new HashMap<>();
        Map<String, Object> producerConfig = KAFKA.broker().clientConfig();
        producerConfig.put(ProducerConfig.ACKS_CONFIG, "all");
        producerConfig.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        AvroSerializer<Object> readings = new AvroSerializer<>();
        readings.configure(Map.of(AvroSerdeConfig.SCHEMA_REGISTRY_URL, registry.url()), false);
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(producerConfig, new ByteArraySerializer(), new ByteArraySerializer());
             KafkaStreams streams = harness.start(dir.resolve("state"))) {
            // Each device's first reading, stored before any batch: stream time is T0 in every task, so that none of
            // the batches' readings (within the hour after T0) is expired or future whatever partition is read first.
            for (int d = 0; d < DEVICES.size(); d++) {
                Reading first = Reading.newBuilder().setDeviceId(DEVICES.get(d)).setMetric("first")
                        .setTimestamp(Instant.ofEpochMilli(T0)).setValue(d).build();
                producer.send(new ProducerRecord<>(harness.readingsTopic(), first.getDeviceId().getBytes(StandardCharsets.UTF_8),
                        readings.serialize(harness.readingsTopic(), first))).get();
                expected.put(new GeneratedData.Point(SeriesId.of(first.getDeviceId(), "first"), T0), new RawRow(d, Map.of()));
            }
            assertThat(PipelineHarness.awaitRows(streams, s -> rawRows(harness, s), expected)).as("the first reading of each device").isEqualTo(expected);

            ProcessRun run = run(List.of(python, script.toString(), KAFKA.broker().bootstrapServers(), registry.url(),
                    harness.readingsTopic(), String.valueOf(seed), String.valueOf(BATCHES)), Duration.ofMinutes(3));
            assertThat(run.exit()).as("seed " + seed + ": " + run).isZero();
            if (!run.stderr().isBlank()) {
                System.out.println("PythonBatchProducerIT: the script said: " + run.stderr().strip());
            }

            // The oracle: the script's report of what it sent, in send order; the last of each (device, metric,
            // timestamp) wins, value and tags.
            List<String> lines = run.stdout().strip().lines().toList();
            Map<GeneratedData.Point, Integer> sentTimes = new HashMap<>();
            for (String line : lines) {
                JsonNode reading = JSON.readTree(line);
                String device = reading.get("device").asText();
                assertThat(DEVICES).as("seed %d: a device sent its first reading: %s", seed, line).contains(device);
                Map<String, String> tags = new TreeMap<>();
                reading.get("tags").fields().forEachRemaining(tag -> tags.put(tag.getKey(), tag.getValue().asText()));
                GeneratedData.Point point = new GeneratedData.Point(SeriesId.of(device, reading.get("metric").asText()),
                        reading.get("timestamp").asLong());
                expected.put(point, new RawRow(reading.get("value").asDouble(), tags));
                sentTimes.merge(point, 1, Integer::sum);
            }
            long repeated = sentTimes.values().stream().filter(times -> times > 1).count();
            System.out.println("PythonBatchProducerIT seed " + seed + ": " + lines.size() + " readings sent in " + BATCHES
                    + " batches, " + repeated + " (device, metric, timestamp) sent more than once, "
                    + expected.size() + " rows expected (" + DEVICES.size() + " of them the first readings)");
            assertThat(lines).as("seed %d: readings sent", seed).hasSizeGreaterThan(BATCHES);
            assertThat(repeated).as("seed %d: duplicates and corrections among them", seed).isGreaterThan(10);

            Map<GeneratedData.Point, RawRow> stored = PipelineHarness.awaitRows(streams, s -> rawRows(harness, s), expected);
            Map<GeneratedData.Point, String> wrong = new TreeMap<>((a, b) -> a.toString().compareTo(b.toString()));
            expected.forEach((point, row) -> {
                if (!row.equals(stored.get(point))) {
                    wrong.put(point, "expected " + row + ", stored " + stored.get(point));
                }
            });
            stored.keySet().stream().filter(point -> !expected.containsKey(point))
                    .forEach(point -> wrong.put(point, "not expected: " + stored.get(point)));
            assertThat(wrong).as("seed " + seed + ": rows that differ from the script's report (of " + expected.size() + ")").isEmpty();
            // The comparison covers the tags too: the script tags every point with its unit, some with a site.
            assertThat(expected.values()).as("seed %d: tagged rows", seed).anyMatch(row -> row.tags().containsKey("site"));

            // Everything read is committed (and with it any dead letter, written in the same transactions): then the
            // dead-letter topic is empty, and murmur2_random placed every batch in its device's partition.
            awaitCommitted(harness);
            assertThat(harness.deadLetterRecords()).as("seed %d: dead letters", seed).isEmpty();
            assertThat(reroutedRecords()).as("seed %d: records re-routed to their device's partition", seed).isZero();
        }

        // The script registered the batch schema, as it is in schemas/, under <topic>-dev.tspipe.schemas.ReadingBatch.
        String subject = harness.readingsTopic() + "-dev.tspipe.schemas.ReadingBatch";
        JsonNode subjects = JSON.readTree(registryGet("/subjects"));
        assertThat(subjects.toString()).as("subjects").contains("\"" + subject + "\"");
        JsonNode latest = JSON.readTree(registryGet("/subjects/" + subject + "/versions/latest"));
        Schema file = new Schema.Parser().parse(Path.of("..", "schemas", "src", "main", "avro", "ReadingBatch.avsc").toFile());
        assertThat(new Schema.Parser().parse(latest.get("schema").asText()).toString()).isEqualTo(file.toString());
    }

    /** Every raw row: its value and its tags. */
    private static Map<GeneratedData.Point, RawRow> rawRows(PipelineHarness harness, KafkaStreams streams) {
        KeyLayout layout = harness.config().keyLayout();
        Map<GeneratedData.Point, RawRow> rows = new HashMap<>();
        try (KeyValueIterator<Bytes, byte[]> all = streams.store(StoreQueryParameters.fromNameAndType(StoreNames.RAW,
                QueryableStoreTypes.<Bytes, byte[]>keyValueStore())).all()) {
            all.forEachRemaining(kv -> {
                RowKey key = RowKey.fromBytes(kv.key.get(), layout);
                rows.put(new GeneratedData.Point(key.series(), key.epochMillis()), RawRow.fromBytes(kv.value));
            });
        }
        return rows;
    }

    /** Waits (1 minute at most) until the application has committed every record of the readings topic. */
    private static void awaitCommitted(PipelineHarness harness) throws Exception {
        try (Admin admin = Admin.create(KAFKA.broker().clientConfig())) {
            Map<TopicPartition, OffsetSpec> ends = new HashMap<>();
            for (int p = 0; p < PipelineHarness.PARTITIONS; p++) {
                ends.put(new TopicPartition(harness.readingsTopic(), p), OffsetSpec.latest());
            }
            Map<TopicPartition, Long> end = admin.listOffsets(ends).all().get(30, TimeUnit.SECONDS).entrySet().stream()
                    .collect(Collectors.toMap(Map.Entry::getKey, e -> e.getValue().offset()));
            Map<TopicPartition, Long> committed = Map.of();
            long deadline = System.nanoTime() + Duration.ofMinutes(1).toNanos();
            while (System.nanoTime() < deadline) {
                Map<TopicPartition, OffsetAndMetadata> offsets = admin.listConsumerGroupOffsets(APP)
                        .partitionsToOffsetAndMetadata().get(30, TimeUnit.SECONDS);
                committed = new HashMap<>();
                for (TopicPartition partition : end.keySet()) {
                    OffsetAndMetadata offset = offsets.get(partition);
                    committed.put(partition, offset == null ? 0L : offset.offset());
                }
                if (committed.equals(end)) {
                    return;
                }
                Thread.sleep(200);
            }
            assertThat(committed).as("committed offsets of " + APP + " against the readings topic's end").isEqualTo(end);
        }
    }

    /** How many records went through the repartition topic that re-routes records found outside their device's partition. */
    private static long reroutedRecords() throws Exception {
        String topic = APP + "-" + Topics.BY_DEVICE_REPARTITION + "-repartition";
        try (Admin admin = Admin.create(KAFKA.broker().clientConfig())) {
            assertThat(admin.listTopics().names().get(30, TimeUnit.SECONDS)).as("topics").contains(topic);
            int partitions = admin.describeTopics(List.of(topic)).allTopicNames().get(30, TimeUnit.SECONDS).get(topic).partitions().size();
            Map<TopicPartition, OffsetSpec> ends = new HashMap<>();
            for (int p = 0; p < partitions; p++) {
                ends.put(new TopicPartition(topic, p), OffsetSpec.latest());
            }
            return admin.listOffsets(ends).all().get(30, TimeUnit.SECONDS).values().stream().mapToLong(e -> e.offset()).sum();
        }
    }

    private static String registryGet(String path) throws Exception {
        HttpResponse<String> response = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(registry.url() + path))
                        .header("Accept", "application/vnd.schemaregistry.v1+json").timeout(Duration.ofSeconds(30)).GET().build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as(path + ": " + response.body()).isEqualTo(200);
        return response.body();
    }

    /** The first interpreter that imports confluent_kafka and an Avro library: python3 on PATH, else Debian's. */
    private String pythonWithConfluentKafka() throws Exception {
        for (String python : List.of("python3", "/usr/bin/python3")) {
            try {
                if (run(List.of(python, "-c", IMPORTS), Duration.ofSeconds(30)).exit() == 0) {
                    return python;
                }
            } catch (IOException notThere) {
                // Not installed: try the next one.
            }
        }
        return null;
    }

    private record ProcessRun(List<String> command, int exit, String stdout, String stderr) {
        @Override
        public String toString() {
            return String.join(" ", command) + " exited " + exit + "; stderr: " + stderr.strip()
                    + "; stdout (first 2,000 characters): " + stdout.substring(0, Math.min(2_000, stdout.length()));
        }
    }

    /** Runs {@code command} in the test's directory, its output in files; fails when it has not ended within {@code limit}. */
    private ProcessRun run(List<String> command, Duration limit) throws Exception {
        Path out = Files.createTempFile(dir, "stdout", ".txt");
        Path err = Files.createTempFile(dir, "stderr", ".txt");
        Process process = new ProcessBuilder(command).directory(dir.toFile())
                .redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        if (!process.waitFor(limit.toMillis(), TimeUnit.MILLISECONDS)) {
            process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            throw new AssertionError(String.join(" ", command) + " did not end within " + limit + "; stderr: "
                    + Files.readString(err).strip());
        }
        return new ProcessRun(command, process.exitValue(), Files.readString(out), Files.readString(err));
    }
}
