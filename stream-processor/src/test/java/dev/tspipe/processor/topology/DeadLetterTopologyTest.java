package dev.tspipe.processor.topology;

import dev.tspipe.model.keys.RowKey;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericRecordBuilder;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** Every dead-letter reason, with its headers and the original bytes. */
class DeadLetterTopologyTest extends TopologyTestBase {

    @Override
    Map<String, Object> pipelineSettings() {
        Map<String, Object> settings = super.pipelineSettings();
        settings.put(PipelineConfig.MAX_VALUE_BYTES, 2_000);
        return settings;
    }

    private TestRecord<byte[], byte[]> onlyDeadLetter() {
        assertThat(dlq.getQueueSize()).as("dead letters").isEqualTo(1);
        return dlq.readRecord();
    }

    private void assertDeadLetter(byte[] key, byte[] value, String reason, String stage, String messagePart) {
        TestRecord<byte[], byte[]> letter = onlyDeadLetter();
        assertThat(letter.key()).isEqualTo(key);
        assertThat(letter.value()).as("original bytes, unchanged").isEqualTo(value);
        assertThat(header(letter.headers(), DeadLetters.REASON)).isEqualTo(reason);
        assertThat(header(letter.headers(), DeadLetters.STAGE)).isEqualTo(stage);
        assertThat(header(letter.headers(), DeadLetters.MESSAGE)).contains(messagePart);
        assertThat(header(letter.headers(), DeadLetters.SOURCE_TOPIC)).isEqualTo(config.readingsTopic());
        assertThat(header(letter.headers(), DeadLetters.SOURCE_PARTITION)).isEqualTo("0");
        assertThat(header(letter.headers(), DeadLetters.SOURCE_OFFSET)).matches("\\d+");
    }

    private void sendAndExpect(String key, byte[] value, String reason, String stage, String messagePart) {
        byte[] keyBytes = key == null ? null : utf8(key);
        readings.pipeInput(keyBytes, value);
        assertDeadLetter(keyBytes, value, reason, stage, messagePart);
    }

    @Test
    void bytesThatAreNotOurWireFormatAreUndecodable() {
        sendAndExpect("d", "{\"deviceId\":\"d\"}".getBytes(), "undecodable", "decode", "magic byte");
    }

    @Test
    void truncatedAvroIsUndecodable() {
        byte[] good = bytes(reading("d", "m", T0, 1.0));
        sendAndExpect("d", java.util.Arrays.copyOf(good, 8), "undecodable", "decode", "Could not decode");
    }

    @Test
    void aTombstoneIsUndecodable() {
        sendAndExpect("d", null, "undecodable", "decode", "no value");
    }

    @Test
    void anUnknownSchemaIdIsUnknownSchema() {
        sendAndExpect("d", new byte[] {0, 0, 0, 0x27, 0x0F, 2, 3}, "unknown-schema", "decode", "9999");
    }

    @Test
    void emptyDeviceOrMetricIsAnInvalidField() {
        sendAndExpect("", bytes(reading("", "m", T0, 1.0)), "invalid-field", "decode", "'deviceId' is empty");
        sendAndExpect("d", bytes(reading("d", "", T0, 1.0)), "invalid-field", "decode", "'metric' is empty");
    }

    @Test
    void aRecordWithoutAMetricFieldIsAnInvalidField() {
        Schema other = new Schema.Parser().parse("""
                {"type":"record","name":"Sample","namespace":"other","fields":[
                  {"name":"deviceId","type":"string"},{"name":"timestamp","type":"long"},{"name":"value","type":"double"}]}""");
        byte[] value = avro.serialize("other-topic", new GenericRecordBuilder(other).set("deviceId", "d")
                .set("timestamp", T0).set("value", 1.0).build());
        sendAndExpect("d", value, "invalid-field", "decode", "field 'metric' is missing");
    }

    @Test
    void aTenantInASingleTenantDeploymentIsAnInvalidField() {
        byte[] value = bytes(dev.tspipe.schemas.Reading.newBuilder(reading("d", "m", T0, 1.0)).setTenant("acme").build());
        sendAndExpect("acme/d", value, "invalid-field", "decode", "single-tenant");
    }

    @Test
    void nanAndInfinityAreInvalidValues() {
        sendAndExpect("d", bytes(reading("d", "m", T0, Double.NaN)), "invalid-value", "decode", "NaN");
        sendAndExpect("d", bytes(reading("d", "m", T0, Double.POSITIVE_INFINITY)), "invalid-value", "decode", "Infinity");
    }

    @Test
    void timestampsBefore1970OrAfter9999AreInvalid() {
        sendAndExpect("d", bytes(reading("d", "m", -1, 1.0)), "invalid-timestamp", "decode", "-1 ms");
        sendAndExpect("d", bytes(reading("d", "m", RowKey.MAX_EPOCH_MILLIS + 1, 1.0)), "invalid-timestamp", "decode", "9999-12-31");
    }

    @Test
    void aKeyOver1024BytesIsKeyTooLong() {
        String device = "d".repeat(1_010);
        sendAndExpect(device, bytes(reading(device, "metric", T0, 1.0)), "key-too-long", "decode", "over the limit of 1024");
    }

    @Test
    void aValueOverTheLimitIsTooLarge() {
        byte[] value = bytes(dev.tspipe.schemas.Reading.newBuilder(reading("d", "m", T0, 1.0))
                .setTags(Map.of("blob", "x".repeat(3_000))).build());
        sendAndExpect("d", value, "too-large", "decode", "over the limit of 2000");
    }

    @Test
    void aReadingOlderThanTheRawLifecycleIsExpired() {
        send(reading("d", "m", T0, 1.0));
        long tooOld = T0 - Duration.ofDays(7).toMillis() - 1;
        sendAndExpect("d", bytes(reading("d", "m", tooOld, 2.0)), "expired", "ingest", "older than the raw lifecycle");
        assertThat(rawRow("d", "m", tooOld)).isNull();

        long justInside = T0 - Duration.ofDays(7).toMillis();
        send(reading("d", "m", justInside, 3.0));
        assertThat(dlq.isEmpty()).isTrue();
    }

    @Test
    void aReadingTooFarAheadOfStreamTimeIsFuture() {
        send(reading("d", "m", T0, 1.0));
        long tooFar = T0 + Duration.ofDays(1).toMillis() + 1;
        sendAndExpect("d", bytes(reading("d", "m", tooFar, 2.0)), "future", "ingest", "ahead of stream time");
        assertThat(rawRow("d", "m", tooFar)).isNull();

        send(reading("d", "m", T0 + Duration.ofDays(1).toMillis(), 3.0));
        assertThat(dlq.isEmpty()).isTrue();
    }

    @Test
    void aMisKeyedExpiredReadingKeepsItsOriginalKeyAndSource() {
        send(reading("d", "m", T0, 1.0));
        byte[] value = bytes(reading("other", "m", T0 - Duration.ofDays(8).toMillis(), 2.0));
        readings.pipeInput(new TestRecord<>(utf8("gateway-1"), value));

        TestRecord<byte[], byte[]> letter = onlyDeadLetter();
        assertThat(letter.key()).isEqualTo(utf8("gateway-1"));
        assertThat(letter.value()).isEqualTo(value);
        assertThat(header(letter.headers(), DeadLetters.REASON)).isEqualTo("expired");
        assertThat(header(letter.headers(), DeadLetters.SOURCE_TOPIC)).isEqualTo(config.readingsTopic());
        assertThat(header(letter.headers(), DeadLetters.SOURCE_OFFSET)).isEqualTo("1");
    }

    @Test
    void originalHeadersAreKept() {
        readings.pipeInput(new TestRecord<>(utf8("d"), "junk".getBytes(),
                new org.apache.kafka.common.header.internals.RecordHeaders().add("trace-id", utf8("abc"))));

        TestRecord<byte[], byte[]> letter = onlyDeadLetter();
        assertThat(header(letter.headers(), "trace-id")).isEqualTo("abc");
    }

    @Test
    void deadLettersAndStoredReadingsAreCountedByReason() {
        readings.pipeInput(utf8("d"), "junk".getBytes());
        readings.pipeInput(utf8("d"), "more junk".getBytes());
        send(reading("d", "m", T0, Double.NaN));
        send(reading("d", "m", T0, 1.0));
        send(reading("d", "m", T0, 1.0));
        send(reading("d", "m", T0, 2.0));

        assertThat(counter("dead-letter-total", "undecodable")).isEqualTo(2.0);
        assertThat(counter("dead-letter-total", "invalid-value")).isEqualTo(1.0);
        assertThat(counter("stored-total", "readings")).isEqualTo(2.0);
        assertThat(counter("duplicate-total", "readings")).isEqualTo(1.0);
        assertThat(counter("corrected-total", "readings")).isEqualTo(1.0);
    }

    private double counter(String name, String tspipeId) {
        return driver.metrics().entrySet().stream()
                .filter(e -> e.getKey().name().equals(name) && tspipeId.equals(e.getKey().tags().get("tspipe-id")))
                .mapToDouble(e -> ((Number) e.getValue().metricValue()).doubleValue())
                .sum();
    }

    @Test
    void badRecordsDoNotStopTheGoodOnes() {
        readings.pipeInput(utf8("d"), "junk".getBytes());
        send(reading("d", "m", T0, 4.0));

        assertThat(dlq.getQueueSize()).isEqualTo(1);
        assertThat(rawRow("d", "m", T0).value()).isEqualTo(4.0);
    }
}
