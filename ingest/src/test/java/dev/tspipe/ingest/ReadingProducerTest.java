package dev.tspipe.ingest;

import dev.tspipe.schemas.Reading;
import dev.tspipe.schemas.ReadingBatch;
import dev.tspipe.schemas.serde.AvroDeserializer;
import dev.tspipe.schemas.serde.AvroSerdeConfig;
import dev.tspipe.schemas.serde.AvroSerializer;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.Serializer;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ReadingProducerTest {

    private static final Instant AT = Instant.parse("2026-11-30T10:00:00Z");

    private static Reading reading(String tenant, String device) {
        return Reading.newBuilder().setTenant(tenant).setDeviceId(device).setMetric("temperature")
                .setTimestamp(AT).setValue(21.5).build();
    }

    private static MockProducer<byte[], byte[]> mock() {
        return new MockProducer<>(false, null, new ByteArraySerializer(), new ByteArraySerializer());
    }

    private static <T> Serializer<T> avro(String strategy) {
        AvroSerializer<T> avro = new AvroSerializer<>();
        avro.configure(Map.of(AvroSerdeConfig.SCHEMA_REGISTRY_URL, "mock://reading-producer-test",
                AvroSerdeConfig.VALUE_SUBJECT_NAME_STRATEGY, strategy), false);
        return avro;
    }

    private static ReadingProducer producer(MockProducer<byte[], byte[]> mock, Serializer<Reading> readings, int batchReadings,
                                            long lingerMs) {
        return new ReadingProducer(mock, readings, avro("TopicRecordNameStrategy"), "readings", batchReadings, lingerMs);
    }

    private static ReadingProducer producer(MockProducer<byte[], byte[]> mock) {
        return producer(mock, avro("TopicNameStrategy"), 1, 0);
    }

    @Test
    void keyIsTheDeviceOrTenantSlashDeviceAndTheTimestampIsTheReadings() {
        MockProducer<byte[], byte[]> mock = mock();
        ReadingProducer producer = producer(mock);

        producer.send(reading(null, "d-1"));
        producer.send(reading("acme", "d-2"));

        assertThat(mock.history()).extracting(r -> new String(r.key(), StandardCharsets.UTF_8)).containsExactly("d-1", "acme/d-2");
        assertThat(mock.history()).extracting(ProducerRecord::timestamp).containsOnly(AT.toEpochMilli());
        assertThat(mock.history()).extracting(ProducerRecord::topic).containsOnly("readings");
    }

    @Test
    void aBrokerFailureCompletesTheFutureExceptionallyAndIsCounted() {
        MockProducer<byte[], byte[]> mock = mock();
        ReadingProducer producer = producer(mock);

        CompletableFuture<RecordMetadata> ok = producer.send(reading(null, "d-1"));
        CompletableFuture<RecordMetadata> failing = producer.send(reading(null, "d-2"));
        assertThat(producer.counts().inFlight()).isEqualTo(2);
        mock.completeNext();
        mock.errorNext(new TimeoutException("broker gone"));

        assertThat(ok).isCompleted();
        assertThatThrownBy(failing::join).isInstanceOf(CompletionException.class).hasRootCauseMessage("broker gone");
        assertThat(producer.counts()).isEqualTo(new ReadingProducer.Counts(2, 1, 1));
    }

    @Test
    void aSerializationFailureIsReportedThroughTheFutureNotThrown() {
        Serializer<Reading> broken = (topic, data) -> {
            throw new org.apache.kafka.common.errors.SerializationException("registry unreachable");
        };
        ReadingProducer producer = producer(mock(), broken, 1, 0);

        CompletableFuture<RecordMetadata> result = producer.send(reading(null, "d-1"));

        assertThat(result).isCompletedExceptionally();
        assertThat(producer.counts().failed()).isEqualTo(1);
    }

    @Test
    void defaultsAreIdempotentAllAcksLz4AndBatched() {
        assertThat(ReadingProducer.defaults()).containsEntry("enable.idempotence", true).containsEntry("acks", "all")
                .containsEntry("compression.type", "lz4").containsEntry("linger.ms", 10).containsEntry("batch.size", 65536);
    }

    private static Reading reading(String device, String metric, long second, double value) {
        return Reading.newBuilder().setDeviceId(device).setMetric(metric)
                .setTimestamp(AT.plusSeconds(second)).setValue(value).build();
    }

    private static final AvroDeserializer<Object> DECODER = new AvroDeserializer<>(
            dev.tspipe.schemas.registry.MockSchemaRegistry.client("reading-producer-test"), Map.of(AvroSerdeConfig.SCHEMA_REGISTRY_URL,
            "mock://reading-producer-test", AvroSerdeConfig.SPECIFIC_AVRO_READER, true));

    @Test
    void batchingSendsEachDevicesReadingsInBatchesInTheirOrderAndFlushSendsTheRest() {
        MockProducer<byte[], byte[]> mock = mock();
        ReadingProducer producer = producer(mock, avro("TopicNameStrategy"), 3, 60_000);
        List<Reading> sent = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            sent.add(reading("d-" + (i % 2), i % 3 == 0 ? "rpm" : "temp", i, i));
        }
        List<CompletableFuture<RecordMetadata>> results = sent.stream().map(producer::send).toList();
        assertThat(mock.history()).as("full batches leave at once").hasSize(2);
        producer.flush();

        assertThat(mock.history()).extracting(r -> new String(r.key(), StandardCharsets.UTF_8))
                .containsExactly("d-0", "d-1", "d-0", "d-1");
        List<Reading> received = new ArrayList<>();
        for (ProducerRecord<byte[], byte[]> record : mock.history()) {
            ReadingBatch batch = (ReadingBatch) DECODER.deserialize("readings", record.value());
            assertThat(record.timestamp()).isEqualTo(ReadingBatches.readingsOf(batch).stream()
                    .mapToLong(r -> r.getTimestamp().toEpochMilli()).max().orElseThrow());
            received.addAll(ReadingBatches.readingsOf(batch));
        }
        assertThat(received).containsExactlyInAnyOrderElementsOf(sent);
        for (String device : List.of("d-0", "d-1")) {
            for (String metric : List.of("rpm", "temp")) {
                assertThat(received.stream().filter(r -> r.getDeviceId().equals(device) && r.getMetric().equals(metric))
                        .map(Reading::getTimestamp)).as("a series' readings in their order").isSorted();
            }
        }
        // MockProducer's flush acknowledges every record, as a broker would
        assertThat(results).allMatch(result -> result.isDone() && !result.isCompletedExceptionally());
        assertThat(producer.counts()).isEqualTo(new ReadingProducer.Counts(8, 8, 0));
    }

    @Test
    void aBatchThatWaitedTheLingerTimeLeavesWithoutAFlush() {
        MockProducer<byte[], byte[]> mock = mock();
        ReadingProducer producer = producer(mock, avro("TopicNameStrategy"), 100, 20);
        producer.send(reading("d-0", "temp", 0, 1.0));
        producer.send(reading("d-0", "temp", 1, 2.0));

        org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(10)).until(() -> mock.history().size() == 1);
        ReadingBatch batch = (ReadingBatch) DECODER.deserialize("readings", mock.history().get(0).value());
        assertThat(ReadingBatches.size(batch)).isEqualTo(2);
        producer.close();
    }

    @Test
    void aFailedBatchFailsEachOfItsReadingsAndCountsThem() {
        MockProducer<byte[], byte[]> mock = mock();
        ReadingProducer producer = producer(mock, avro("TopicNameStrategy"), 2, 60_000);
        CompletableFuture<RecordMetadata> first = producer.send(reading("d-0", "temp", 0, 1.0));
        CompletableFuture<RecordMetadata> second = producer.send(reading("d-0", "temp", 1, 2.0));
        mock.errorNext(new TimeoutException("broker gone"));

        assertThatThrownBy(first::join).hasRootCauseMessage("broker gone");
        assertThatThrownBy(second::join).hasRootCauseMessage("broker gone");
        assertThat(producer.counts()).isEqualTo(new ReadingProducer.Counts(2, 0, 2));
    }

    @Test
    void sendAllWritesOneBatchPerDeviceAtOnce() {
        MockProducer<byte[], byte[]> mock = mock();
        ReadingProducer producer = producer(mock);
        List<Reading> readings = List.of(reading("d-0", "temp", 0, 1.0), reading("d-1", "temp", 0, 5.0),
                reading("d-0", "rpm", 0, 900.0), reading("d-0", "temp", 1, 2.0));

        producer.sendAll(readings);

        assertThat(mock.history()).extracting(r -> new String(r.key(), StandardCharsets.UTF_8)).containsExactly("d-0", "d-1");
        ReadingBatch first = (ReadingBatch) DECODER.deserialize("readings", mock.history().get(0).value());
        assertThat(ReadingBatches.readingsOf(first)).containsExactly(readings.get(0), readings.get(3), readings.get(2));
        assertThat(dev.tspipe.schemas.registry.MockSchemaRegistry.client("reading-producer-test")
                .latest("readings-dev.tspipe.schemas.ReadingBatch").id())
                .isEqualTo(dev.tspipe.schemas.serde.WireFormat.schemaId(mock.history().get(0).value()));
    }

    @Test
    void sendAllSplitsADevicesBatchThatWouldBeOverTheRecordLimitInOrder() {
        MockProducer<byte[], byte[]> mock = mock();
        ReadingProducer producer = producer(mock);
        List<Reading> readings = new ArrayList<>();
        // Every reading its own metric with long tags: about 300 bytes each, 3,000 of them about 900 KB in one batch.
        for (int i = 0; i < 3_000; i++) {
            readings.add(Reading.newBuilder().setDeviceId("d-0").setMetric("metric-" + i).setTimestamp(AT.plusSeconds(i))
                    .setTags(Map.of("description", "x".repeat(250))).setValue(i).build());
        }

        producer.sendAll(readings);

        assertThat(mock.history()).hasSizeGreaterThan(1).allSatisfy(record ->
                assertThat(record.value().length).isLessThanOrEqualTo(ReadingProducer.MAX_BATCH_BYTES));
        List<Reading> received = new ArrayList<>();
        mock.history().forEach(record -> received.addAll(ReadingBatches.readingsOf((ReadingBatch) DECODER.deserialize("readings",
                record.value()))));
        assertThat(received).containsExactlyElementsOf(readings);
        assertThat(producer.counts().sent()).isEqualTo(3_000);
    }
}
