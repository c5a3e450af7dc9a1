package dev.tspipe.schemas.serde;

import dev.tspipe.schemas.registry.RegisteredSchema;
import dev.tspipe.schemas.registry.RegistryException;
import dev.tspipe.schemas.registry.RegistryUnavailableException;
import dev.tspipe.schemas.registry.SchemaRegistryClient;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericContainer;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.DatumWriter;
import org.apache.avro.io.EncoderFactory;
import org.apache.avro.specific.SpecificData;
import org.apache.avro.specific.SpecificDatumWriter;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.serialization.Serializer;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Writes Avro records (generated classes or {@link GenericContainer}s) and Avro primitives in the
 * Confluent wire format ({@link WireFormat}): byte for byte what Confluent's
 * {@code KafkaAvroSerializer} writes, so that Confluent's deserializer reads it.
 *
 * <p>The subject is {@code <topic>-value} or {@code <topic>-key} (TopicNameStrategy, the default), or as
 * {@code value.subject.name.strategy}/{@code key.subject.name.strategy} say ({@link Subjects}). The id is
 * obtained by registering the schema ({@code auto.register.schemas=true}, the default), by looking
 * it up ({@code false}), or from the subject's latest version ({@code use.latest.version=true}).
 */
public class AvroSerializer<T> implements Serializer<T> {

    private SchemaRegistryClient registry;
    private AvroSerdeConfig config;
    private boolean isKey;
    private final Map<Schema, DatumWriter<Object>> writers = new ConcurrentHashMap<>();

    /** For Kafka's reflective creation; {@link #configure} must follow. */
    public AvroSerializer() {
    }

    /** A configured serializer over a given registry client (tests, or a shared client). */
    public AvroSerializer(SchemaRegistryClient registry, Map<String, ?> configs, boolean isKey) {
        this.registry = Objects.requireNonNull(registry, "registry");
        this.config = new AvroSerdeConfig(configs);
        this.isKey = isKey;
    }

    @Override
    public void configure(Map<String, ?> configs, boolean isKey) {
        this.config = new AvroSerdeConfig(configs);
        this.registry = SchemaRegistryClients.forConfig(config);
        this.isKey = isKey;
    }

    @Override
    public byte[] serialize(String topic, T data) {
        if (data == null) {
            return null;
        }
        if (registry == null) {
            throw new IllegalStateException("AvroSerializer is not configured: call configure() with schema.registry.url");
        }
        Schema schema = schemaOf(data);
        String subject = config.subjectNameStrategy(isKey).subject(topic, isKey, schema);
        int id;
        Schema writerSchema = schema;
        try {
            if (config.useLatestVersion()) {
                RegisteredSchema latest = registry.latest(subject);
                id = latest.id();
                writerSchema = registry.schemaById(id);
            } else if (config.autoRegisterSchemas()) {
                id = registry.register(subject, schema);
            } else {
                id = registry.lookupId(subject, schema);
            }
        } catch (RegistryException | RegistryUnavailableException e) {
            throw new SerializationException("Could not get a schema id for subject '" + subject + "' (topic '" + topic
                    + "') from the schema registry at " + registry.location() + ": " + e.getMessage(), e);
        }
        return write(topic, id, writerSchema, data);
    }

    private byte[] write(String topic, int id, Schema writerSchema, T data) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(64);
        byte[] header = new byte[WireFormat.HEADER_SIZE];
        WireFormat.writeHeader(header, id);
        out.writeBytes(header);
        try {
            BinaryEncoder encoder = EncoderFactory.get().directBinaryEncoder(out, null);
            writerFor(writerSchema, data).write(data instanceof byte[] bytes ? ByteBuffer.wrap(bytes) : data, encoder);
            encoder.flush();
        } catch (IOException | RuntimeException e) {
            throw new SerializationException("Could not write a " + writerSchema.getFullName() + " as Avro for topic '"
                    + topic + "' with schema id " + id + ": " + e.getMessage(), e);
        }
        return out.toByteArray();
    }

    private DatumWriter<Object> writerFor(Schema schema, Object data) {
        return writers.computeIfAbsent(schema, s -> data instanceof SpecificRecord
                ? new SpecificDatumWriter<>(s, SpecificData.getForSchema(s))
                : new GenericDatumWriter<>(s, GenericData.get()));
    }

    static Schema schemaOf(Object data) {
        if (data instanceof GenericContainer container) {
            return container.getSchema();
        }
        if (data instanceof CharSequence) {
            return Schema.create(Schema.Type.STRING);
        }
        if (data instanceof Integer) {
            return Schema.create(Schema.Type.INT);
        }
        if (data instanceof Long) {
            return Schema.create(Schema.Type.LONG);
        }
        if (data instanceof Double) {
            return Schema.create(Schema.Type.DOUBLE);
        }
        if (data instanceof Float) {
            return Schema.create(Schema.Type.FLOAT);
        }
        if (data instanceof Boolean) {
            return Schema.create(Schema.Type.BOOLEAN);
        }
        if (data instanceof byte[] || data instanceof ByteBuffer) {
            return Schema.create(Schema.Type.BYTES);
        }
        throw new SerializationException("Cannot write a " + data.getClass().getName() + " as Avro: expected a "
                + "generated Avro class, a GenericRecord, or a String, Integer, Long, Float, Double, Boolean or byte[]");
    }
}
