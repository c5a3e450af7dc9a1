package dev.tspipe.bench;

import dev.tspipe.schemas.Reading;
import dev.tspipe.schemas.registry.CachedSchemaRegistryClient;
import dev.tspipe.schemas.registry.MockSchemaRegistry;
import dev.tspipe.schemas.serde.AvroDeserializer;
import dev.tspipe.schemas.serde.AvroSerdeConfig;
import dev.tspipe.schemas.serde.AvroSerializer;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * One {@link Reading} through tspipe's Avro serde in the Confluent wire format, against an
 * in-process registry ({@code mock://bench}): the per-record cost of the input topic, without
 * the network.
 *
 * <p>A serializer configured with a {@code mock://} URL talks to the mock registry uncached (by
 * design: a test that drops a scope must not see stale ids), so {@link #serialize} registers the
 * schema again for every record. With an {@code http://} URL the serializer goes through
 * {@link CachedSchemaRegistryClient}; {@link #serializeCachedRegistry} measures that path, over
 * the same mock registry, as production sees it after the first record.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class AvroSerdeBenchmark {

    static final String TOPIC = "readings";

    AvroSerializer<Reading> serializer;
    AvroSerializer<Reading> cachedSerializer;
    AvroDeserializer<Reading> deserializer;
    Reading reading;
    byte[] serialized;

    @Setup
    public void setUp() {
        serializer = new AvroSerializer<>();
        serializer.configure(Map.of(AvroSerdeConfig.SCHEMA_REGISTRY_URL, "mock://bench"), false);
        cachedSerializer = new AvroSerializer<>(new CachedSchemaRegistryClient(MockSchemaRegistry.client("bench"),
                Duration.ofMinutes(1), Duration.ZERO, 0, Clock.systemUTC()), Map.of(AvroSerdeConfig.SCHEMA_REGISTRY_URL, "mock://bench"), false);
        deserializer = new AvroDeserializer<>();
        deserializer.configure(Map.of(AvroSerdeConfig.SCHEMA_REGISTRY_URL, "mock://bench",
                AvroSerdeConfig.SPECIFIC_AVRO_READER, true), false);
        reading = Reading.newBuilder()
                .setDeviceId("sensor-000123")
                .setMetric("temperature")
                .setTimestamp(Instant.ofEpochMilli(RowKeyBenchmark.TIMESTAMP))
                .setValue(21.5)
                .setTags(Map.of("unit", "celsius", "site", "plant-7"))
                .setTenant(null)
                .build();
        serialized = serializer.serialize(TOPIC, reading);
        cachedSerializer.serialize(TOPIC, reading);
    }

    @TearDown
    public void tearDown() {
        serializer.close();
        cachedSerializer.close();
        deserializer.close();
    }

    @Benchmark
    public byte[] serialize() {
        return serializer.serialize(TOPIC, reading);
    }

    @Benchmark
    public byte[] serializeCachedRegistry() {
        return cachedSerializer.serialize(TOPIC, reading);
    }

    @Benchmark
    public Reading deserialize() {
        return deserializer.deserialize(TOPIC, serialized);
    }
}
