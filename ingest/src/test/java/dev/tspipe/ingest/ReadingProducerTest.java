package dev.tspipe.ingest;

import dev.tspipe.schemas.Reading;
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

    private static MockProducer<byte[], Reading> mock(Serializer<Reading> values) {
        return new MockProducer<>(false, null, new ByteArraySerializer(), values);
    }

    private static Serializer<Reading> avro() {
        AvroSerializer<Reading> avro = new AvroSerializer<>();
        avro.configure(Map.of(AvroSerdeConfig.SCHEMA_REGISTRY_URL, "mock://reading-producer-test"), false);
        return avro;
    }

    @Test
    void keyIsTheDeviceOrTenantSlashDeviceAndTheTimestampIsTheReadings() {
        MockProducer<byte[], Reading> mock = mock(avro());
        ReadingProducer producer = new ReadingProducer(mock, "readings");

        producer.send(reading(null, "d-1"));
        producer.send(reading("acme", "d-2"));

        assertThat(mock.history()).extracting(r -> new String(r.key(), StandardCharsets.UTF_8)).containsExactly("d-1", "acme/d-2");
        assertThat(mock.history()).extracting(ProducerRecord::timestamp).containsOnly(AT.toEpochMilli());
        assertThat(mock.history()).extracting(ProducerRecord::topic).containsOnly("readings");
    }

    @Test
    void aBrokerFailureCompletesTheFutureExceptionallyAndIsCounted() {
        MockProducer<byte[], Reading> mock = mock(avro());
        ReadingProducer producer = new ReadingProducer(mock, "readings");

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
        ReadingProducer producer = new ReadingProducer(mock(broken), "readings");

        CompletableFuture<RecordMetadata> result = producer.send(reading(null, "d-1"));

        assertThat(result).isCompletedExceptionally();
        assertThat(producer.counts().failed()).isEqualTo(1);
    }

    @Test
    void defaultsAreIdempotentAllAcksLz4AndBatched() {
        assertThat(ReadingProducer.defaults()).containsEntry("enable.idempotence", true).containsEntry("acks", "all")
                .containsEntry("compression.type", "lz4").containsEntry("linger.ms", 10).containsEntry("batch.size", 65536);
    }
}
