package dev.tspipe.processor.it;

import dev.tspipe.embedded.EmbeddedSchemaRegistry;
import dev.tspipe.embedded.junit.EmbeddedKafkaExtension;
import dev.tspipe.model.keys.SeriesId;
import dev.tspipe.processor.topology.BatchFixtures;
import dev.tspipe.processor.topology.DeadLetters;
import dev.tspipe.schemas.Reading;
import dev.tspipe.schemas.serde.AvroDeserializer;
import dev.tspipe.schemas.serde.AvroSerdeConfig;
import dev.tspipe.schemas.serde.AvroSerializer;
import org.apache.avro.generic.GenericRecord;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.streams.KafkaStreams;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Batches on a real broker and registry: seeded batches with bad readings mixed in, produced as a Kafka client in
 * any language would (Confluent's wire format, the batch schema registered under its TopicRecordNameStrategy subject),
 * some keyed by a gateway instead of their device. Exactly the good readings are stored; each bad one is one
 * committed dead letter naming its batch's partition, offset and its index.
 */
class BatchIngestIT {

    @RegisterExtension
    static final EmbeddedKafkaExtension KAFKA = new EmbeddedKafkaExtension();

    private static final long T0 = Instant.parse("2026-11-30T12:00:00Z").toEpochMilli();

    private static EmbeddedSchemaRegistry registry;

    @TempDir
    Path stateDir;

    @BeforeAll
    static void startRegistry() {
        registry = EmbeddedSchemaRegistry.builder().bootstrapServers(KAFKA.broker().bootstrapServers()).start();
    }

    @AfterAll
    static void stopRegistry() {
        registry.close();
    }

    @Test
    void batchesWithBadReadingsStoreExactlyTheGoodOnesAndDeadLetterEachBadOneWithItsIndex() throws Exception {
        long seed = Long.getLong("tspipe.seed", System.nanoTime());
        System.out.println("BatchIngestIT seed " + seed + " (rerun with -Dtspipe.seed=" + seed + ")");
        List<BatchFixtures.Batch> batches = BatchFixtures.batches(seed, 400, true, T0);
        PipelineHarness harness = new PipelineHarness(KAFKA.broker(), registry.url(), "batch-it");

        Map<GeneratedData.Point, Double> expected = new HashMap<>();
        List<String> expectedLetters = new ArrayList<>();
        Map<String, Object> producerConfig = KAFKA.broker().clientConfig();
        producerConfig.put(ProducerConfig.ACKS_CONFIG, "all");
        producerConfig.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        AvroSerializer<Object> readings = serializer("TopicNameStrategy");
        AvroSerializer<Object> batchValues = serializer("io.confluent.kafka.serializers.subject.TopicRecordNameStrategy");
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(producerConfig, new ByteArraySerializer(), new ByteArraySerializer());
             KafkaStreams streams = harness.start(stateDir.resolve("run"))) {
            // Each device's first reading is a good one, stored before any batch: stream time is then T0 in every task,
            // so that expired and future mean the same for every batch, re-routed ones too.
            for (int d = 0; d < 6; d++) {
                Reading first = Reading.newBuilder().setDeviceId("device-" + d).setMetric("first")
                        .setTimestamp(Instant.ofEpochMilli(T0)).setValue(d).build();
                producer.send(new ProducerRecord<>(harness.readingsTopic(), utf8(first.getDeviceId()),
                        readings.serialize(harness.readingsTopic(), first))).get();
                expected.put(new GeneratedData.Point(SeriesId.of(first.getDeviceId(), "first"), T0), (double) d);
            }
            PipelineHarness.awaitRows(streams, harness::rawRows, expected);
            for (int b = 0; b < batches.size(); b++) {
                BatchFixtures.Batch batch = batches.get(b);
                // Two devices send through a gateway that keys by itself: their batches are re-routed whole to the
                // device's partition. All of a device's batches take one path, one gateway, so that they stay in order
                // (a record re-routed and one in place are not ordered, for batches as for single readings).
                String key = batch.device().equals("device-0") || batch.device().equals("device-3")
                        ? "gateway-" + batch.device() : batch.device();
                RecordMetadata sent = producer.send(new ProducerRecord<>(harness.readingsTopic(), utf8(key),
                        batchValues.serialize(harness.readingsTopic(), batch.toAvro()))).get();
                int index = 0;
                for (BatchFixtures.Entry entry : batch.entries()) {
                    for (BatchFixtures.Point p : entry.points()) {
                        String reason = BatchFixtures.reason(entry.kind(), p.kind());
                        if (reason == null) {
                            expected.put(new GeneratedData.Point(SeriesId.of(batch.device(), entry.metric()), p.timestamp()), p.value());
                        } else {
                            expectedLetters.add(sent.partition() + "/" + sent.offset() + "/" + index + " " + reason + " "
                                    + batch.device() + " " + p.timestamp());
                        }
                        index++;
                    }
                }
            }
            assertThat(expectedLetters).as("seed " + seed + ": bad readings mixed in").hasSizeGreaterThan(20);

            Map<GeneratedData.Point, Double> stored = PipelineHarness.awaitRows(streams, harness::rawRows, expected);
            Map<GeneratedData.Point, String> wrong = new HashMap<>();
            expected.forEach((point, value) -> {
                if (!value.equals(stored.get(point))) {
                    wrong.put(point, "expected " + value + ", stored " + stored.get(point));
                }
            });
            stored.keySet().stream().filter(point -> !expected.containsKey(point)).forEach(point -> wrong.put(point, "not expected"));
            assertThat(wrong).as("seed " + seed + ": rows that differ from the oracle's (of " + expected.size() + ")").isEmpty();

            AvroDeserializer<Object> generic = new AvroDeserializer<>();
            generic.configure(Map.of(AvroSerdeConfig.SCHEMA_REGISTRY_URL, registry.url()), false);
            List<String> letters = new ArrayList<>();
            long deadline = System.nanoTime() + Duration.ofMinutes(1).toNanos();
            while (letters.size() < expectedLetters.size() && System.nanoTime() < deadline) {
                letters.clear();
                for (ConsumerRecord<byte[], byte[]> letter : harness.deadLetterRecords()) {
                    GenericRecord alone = (GenericRecord) generic.deserialize(harness.readingsTopic(), letter.value());
                    GenericRecord point = (GenericRecord) ((List<?>) ((GenericRecord) ((List<?>) alone.get("series")).get(0)).get("points")).get(0);
                    letters.add(DeadLetters.text(letter.headers(), DeadLetters.SOURCE_PARTITION) + "/"
                            + DeadLetters.text(letter.headers(), DeadLetters.SOURCE_OFFSET) + "/"
                            + DeadLetters.text(letter.headers(), DeadLetters.BATCH_INDEX) + " "
                            + DeadLetters.text(letter.headers(), DeadLetters.REASON) + " " + alone.get("deviceId") + " " + point.get("timestamp"));
                }
            }
            assertThat(letters).as("seed " + seed + ": one committed dead letter per bad reading")
                    .containsExactlyInAnyOrderElementsOf(expectedLetters);
        }
    }

    private static AvroSerializer<Object> serializer(String strategy) {
        AvroSerializer<Object> serializer = new AvroSerializer<>();
        serializer.configure(Map.of(AvroSerdeConfig.SCHEMA_REGISTRY_URL, registry.url(),
                AvroSerdeConfig.VALUE_SUBJECT_NAME_STRATEGY, strategy), false);
        return serializer;
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
