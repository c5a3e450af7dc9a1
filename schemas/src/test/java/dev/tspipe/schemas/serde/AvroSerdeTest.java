package dev.tspipe.schemas.serde;

import dev.tspipe.schemas.BatchPoint;
import dev.tspipe.schemas.BatchSeries;
import dev.tspipe.schemas.Reading;
import dev.tspipe.schemas.ReadingBatch;
import dev.tspipe.schemas.registry.MockSchemaRegistry;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.generic.GenericRecordBuilder;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.serialization.Serde;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.HexFormat;
import java.util.Map;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class AvroSerdeTest {

    private final String scope = "serde-test-" + UUID.randomUUID();
    private final Map<String, Object> config = Map.of(AvroSerdeConfig.SCHEMA_REGISTRY_URL, "mock://" + scope);

    @AfterEach
    void dropScope() {
        MockSchemaRegistry.dropScope(scope);
    }

    private static Reading reading() {
        return Reading.newBuilder()
                .setDeviceId("dev-1")
                .setMetric("temp")
                .setTimestamp(Instant.ofEpochMilli(1_700_000_000_000L))
                .setValue(21.5)
                .build();
    }

    private <T> AvroSerializer<T> serializer(Map<String, Object> settings) {
        AvroSerializer<T> serializer = new AvroSerializer<>();
        serializer.configure(settings, false);
        return serializer;
    }

    private <T> AvroDeserializer<T> deserializer(Map<String, Object> settings) {
        AvroDeserializer<T> deserializer = new AvroDeserializer<>();
        deserializer.configure(settings, false);
        return deserializer;
    }

    private Map<String, Object> with(String key, Object value) {
        Map<String, Object> settings = new java.util.HashMap<>(config);
        settings.put(key, value);
        return settings;
    }

    @Test
    void goldenBytesOfAKnownReadingWithSchemaIdOne() {
        byte[] bytes = this.<Reading>serializer(config).serialize("readings", reading());

        // Derived from the Avro 1.12 binary encoding spec, field by field:
        String expected = "00" + "00000001"          // magic byte, schema id 1 (first schema of a fresh registry)
                + "0A" + "6465762D31"                // deviceId: length 5 as zig-zag varint (0x0A), "dev-1"
                + "08" + "74656D70"                  // metric: length 4 (0x08), "temp"
                + "80A0ABFEF962"                     // timestamp 1700000000000: zig-zag 3400000000000 as varint
                + "0000000000803540"                 // value 21.5: IEEE 754 double, little-endian
                + "00"                               // tags: empty map (block count 0)
                + "00";                              // tenant: union branch 0 (null)
        assertThat(HexFormat.of().withUpperCase().formatHex(bytes)).isEqualTo(expected);
    }

    @Test
    void specificRecordsRoundTrip() {
        Reading original = Reading.newBuilder(reading()).setTags(Map.of("unit", "°C")).setTenant("acme").build();
        byte[] bytes = this.<Reading>serializer(config).serialize("readings", original);

        Reading read = this.<Reading>deserializer(with(AvroSerdeConfig.SPECIFIC_AVRO_READER, true)).deserialize("readings", bytes);

        assertThat(read).isEqualTo(original);
        assertThat(read.getTimestamp()).isEqualTo(Instant.ofEpochMilli(1_700_000_000_000L));
    }

    @Test
    void genericRecordsRoundTripAndReadSpecificBytes() {
        byte[] bytes = this.<Reading>serializer(config).serialize("readings", reading());

        GenericRecord generic = this.<GenericRecord>deserializer(config).deserialize("readings", bytes);

        assertThat(generic.get("deviceId").toString()).isEqualTo("dev-1");
        assertThat(generic.get("timestamp")).isEqualTo(1_700_000_000_000L);
        byte[] again = this.<GenericRecord>serializer(config).serialize("readings", generic);
        assertThat(again).isEqualTo(bytes);
    }

    @Test
    void theSpecificSerdeReadsAnOlderWriterSchemaIntoTheCurrentClass() {
        Schema v1 = new Schema.Parser().parse("""
                {"type":"record","name":"Reading","namespace":"dev.tspipe.schemas","fields":[
                  {"name":"deviceId","type":"string"},{"name":"metric","type":"string"},
                  {"name":"timestamp","type":{"type":"long","logicalType":"timestamp-millis"}},
                  {"name":"value","type":"double"}]}""");
        GenericRecord old = new GenericRecordBuilder(v1).set("deviceId", "d").set("metric", "m")
                .set("timestamp", 5L).set("value", 1.0).build();
        byte[] bytes = this.<GenericRecord>serializer(config).serialize("readings", old);

        Serde<Reading> serde = new SpecificAvroSerde<>(Reading.class);
        serde.configure(config, false);
        Reading read = serde.deserializer().deserialize("readings", bytes);

        assertThat(read.getDeviceId()).isEqualTo("d");
        assertThat(read.getTags()).isEmpty();
        assertThat(read.getTenant()).isNull();
    }

    @Test
    void primitivesAndNullRoundTrip() {
        AvroSerializer<Object> serializer = serializer(config);
        AvroDeserializer<Object> deserializer = deserializer(config);

        assertThat(deserializer.deserialize("t", serializer.serialize("t", 42L))).isEqualTo(42L);
        assertThat(deserializer.deserialize("t2", serializer.serialize("t2", "hi")).toString()).isEqualTo("hi");
        assertThat(serializer.serialize("t", null)).isNull();
        assertThat(deserializer.deserialize("t", null)).isNull();
    }

    @Test
    void useLatestVersionWritesWithTheSubjectsLatestSchemaId() {
        byte[] first = this.<Reading>serializer(config).serialize("readings", reading());
        AvroSerializer<Reading> latest = serializer(with(AvroSerdeConfig.USE_LATEST_VERSION, true));

        assertThat(WireFormat.schemaId(latest.serialize("readings", reading()))).isEqualTo(WireFormat.schemaId(first));
    }

    @Test
    void withoutAutoRegisterAnUnregisteredSchemaIsASerializationErrorNamingTheSubject() {
        AvroSerializer<Reading> serializer = serializer(with(AvroSerdeConfig.AUTO_REGISTER_SCHEMAS, false));

        assertThatThrownBy(() -> serializer.serialize("readings", reading()))
                .isInstanceOf(SerializationException.class)
                .hasMessageContaining("subject 'readings-value'")
                .hasMessageContaining("mock://" + scope)
                .hasMessageContaining("not found");
    }

    @Test
    void anIncompatibleSchemaFailsWithTheRegistrysMessage() {
        this.<Reading>serializer(config).serialize("readings", reading());
        Schema incompatible = new Schema.Parser().parse("""
                {"type":"record","name":"Reading","namespace":"dev.tspipe.schemas","fields":[
                  {"name":"deviceId","type":"int"}]}""");
        GenericRecord record = new GenericData.Record(incompatible);
        record.put("deviceId", 1);

        assertThatThrownBy(() -> this.<GenericRecord>serializer(config).serialize("readings", record))
                .isInstanceOf(SerializationException.class)
                .hasMessageContaining("incompatible with an earlier schema")
                .hasMessageContaining("readings-value");
    }

    @Test
    void bytesWithoutOurMagicByteAreRejectedWithTheOffset() {
        AvroDeserializer<Object> deserializer = deserializer(config);

        assertThatThrownBy(() -> deserializer.deserialize("readings", "{\"json\":1}".getBytes()))
                .isInstanceOf(SerializationException.class)
                .hasMessageContaining("Unknown magic byte 0x7B at offset 0");
    }

    @Test
    void anUnknownSchemaIdIsNamed() {
        AvroDeserializer<Object> deserializer = deserializer(config);

        assertThatThrownBy(() -> deserializer.deserialize("readings", new byte[] {0, 0, 0, 0x30, 0x39, 2}))
                .isInstanceOfSatisfying(UnknownSchemaException.class, e -> assertThat(e.schemaId()).isEqualTo(12345))
                .hasMessageContaining("Unknown schema id 12345");
    }

    @Test
    void truncatedAvroDataIsASerializationError() {
        byte[] bytes = this.<Reading>serializer(config).serialize("readings", reading());
        byte[] truncated = java.util.Arrays.copyOf(bytes, 9);

        assertThatThrownBy(() -> this.<Object>deserializer(config).deserialize("readings", truncated))
                .isInstanceOf(SerializationException.class)
                .hasMessageContaining("Could not decode the Avro data")
                .hasMessageContaining("schema id 1");
    }

    @Test
    void anUnreachableRegistryIsNamedByUrl() throws Exception {
        int closedPort;
        try (java.net.ServerSocket socket = new java.net.ServerSocket(0)) {
            closedPort = socket.getLocalPort();
        }
        String url = "http://127.0.0.1:" + closedPort;
        AvroSerializer<Reading> serializer = serializer(Map.of(AvroSerdeConfig.SCHEMA_REGISTRY_URL, url));

        assertThatThrownBy(() -> serializer.serialize("readings", reading()))
                .isInstanceOf(SerializationException.class)
                .hasMessageContaining("Schema registry unreachable")
                .hasMessageContaining(url);
    }

    @Test
    void aDeserializerThatCannotReachTheRegistrySaysSoInItsOwnExceptionType() throws Exception {
        int closedPort;
        try (java.net.ServerSocket socket = new java.net.ServerSocket(0)) {
            closedPort = socket.getLocalPort();
        }
        AvroDeserializer<Object> deserializer = deserializer(Map.of(AvroSerdeConfig.SCHEMA_REGISTRY_URL,
                "http://127.0.0.1:" + closedPort));

        assertThatThrownBy(() -> deserializer.deserialize("readings", new byte[] {0, 0, 0, 0, 1, 2}))
                .isInstanceOf(RegistryUnavailableSerializationException.class)
                .hasMessageContaining("127.0.0.1:" + closedPort);
    }

    @Test
    void aMissingRegistryUrlIsAConfigErrorNamingTheKey() {
        assertThatThrownBy(() -> new AvroSerializer<>().configure(Map.of(), false))
                .hasMessageContaining("schema.registry.url");
    }

    @Test
    void aBatchSharesTheReadingsTopicUnderItsOwnSubjectWithTopicRecordNameStrategy() {
        ReadingBatch batch = ReadingBatch.newBuilder().setDeviceId("dev-1").setSeries(java.util.List.of(
                BatchSeries.newBuilder().setMetric("temp").setPoints(java.util.List.of(
                        new BatchPoint(Instant.ofEpochMilli(1_700_000_000_000L), 21.5),
                        new BatchPoint(Instant.ofEpochMilli(1_700_000_001_000L), 21.75))).build())).build();
        Map<String, Object> batches = with(AvroSerdeConfig.VALUE_SUBJECT_NAME_STRATEGY,
                "io.confluent.kafka.serializers.subject.TopicRecordNameStrategy");
        AvroSerializer<ReadingBatch> batchSerializer = serializer(batches);
        AvroSerializer<Reading> readingSerializer = serializer(config);

        byte[] batchBytes = batchSerializer.serialize("readings", batch);
        byte[] readingBytes = readingSerializer.serialize("readings", reading());

        var client = MockSchemaRegistry.client(scope);
        assertThat(client.latest("readings-dev.tspipe.schemas.ReadingBatch").id()).isEqualTo(WireFormat.schemaId(batchBytes));
        assertThat(client.latest("readings-value").id()).isEqualTo(WireFormat.schemaId(readingBytes));
        AvroDeserializer<Object> generic = deserializer(config);
        assertThat(((GenericRecord) generic.deserialize("readings", batchBytes)).getSchema().getFullName())
                .isEqualTo("dev.tspipe.schemas.ReadingBatch");
        assertThat(((GenericRecord) generic.deserialize("readings", readingBytes)).getSchema().getFullName())
                .isEqualTo("dev.tspipe.schemas.Reading");
    }

    @Test
    void recordNameStrategyNamesTheSubjectByTheRecordAlone() {
        AvroSerializer<Reading> serializer = serializer(with(AvroSerdeConfig.VALUE_SUBJECT_NAME_STRATEGY, "RecordNameStrategy"));
        byte[] bytes = serializer.serialize("any-topic", reading());
        assertThat(MockSchemaRegistry.client(scope).latest("dev.tspipe.schemas.Reading").id()).isEqualTo(WireFormat.schemaId(bytes));
    }

    @Test
    void anUnknownSubjectNameStrategyIsRefusedWithTheChoices() {
        assertThatThrownBy(() -> serializer(with(AvroSerdeConfig.VALUE_SUBJECT_NAME_STRATEGY, "io.example.MyStrategy")))
                .isInstanceOf(org.apache.kafka.common.config.ConfigException.class)
                .hasMessageContaining("value.subject.name.strategy")
                .hasMessageContaining("TopicRecordNameStrategy");
    }

    @Test
    void aRecordStrategyRefusesAPrimitiveWithAReason() {
        AvroSerializer<String> serializer = serializer(with(AvroSerdeConfig.VALUE_SUBJECT_NAME_STRATEGY, "TopicRecordNameStrategy"));
        assertThatThrownBy(() -> serializer.serialize("readings", "text"))
                .isInstanceOf(SerializationException.class)
                .hasMessageContaining("needs a record");
    }

    @Test
    void aBatchOfFiveMetricsAtTwentyInstantsTakesFifteenBytesAReadingWhereAReadingTakesFortyFive() {
        long t0 = Instant.parse("2026-12-07T00:00:00Z").toEpochMilli();
        java.util.List<BatchSeries> series = new java.util.ArrayList<>();
        for (int m = 0; m < 5; m++) {
            java.util.List<BatchPoint> points = new java.util.ArrayList<>();
            for (int t = 0; t < 20; t++) {
                points.add(new BatchPoint(Instant.ofEpochMilli(t0 + t * 1_000L), 20.0 + t));
            }
            series.add(BatchSeries.newBuilder().setMetric("temperatur" + m).setPoints(points).build());
        }
        ReadingBatch batch = ReadingBatch.newBuilder().setDeviceId("device-0001").setSeries(series).build();
        Reading reading = Reading.newBuilder().setDeviceId("device-0001").setMetric("temperatur0")
                .setTimestamp(Instant.ofEpochMilli(t0)).setValue(20.0).build();

        // docs/schemas-and-serde.md: 1,495 bytes for the 100 readings, 45 for one Reading
        assertThat(serializer(with(AvroSerdeConfig.VALUE_SUBJECT_NAME_STRATEGY, "TopicRecordNameStrategy"))
                .serialize("readings", batch)).hasSize(1_495);
        assertThat(serializer(config).serialize("readings", reading)).hasSize(45);
    }
}
