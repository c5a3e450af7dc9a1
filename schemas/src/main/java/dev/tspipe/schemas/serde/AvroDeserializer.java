package dev.tspipe.schemas.serde;

import dev.tspipe.schemas.registry.RegistryException;
import dev.tspipe.schemas.registry.RegistryUnavailableException;
import dev.tspipe.schemas.registry.SchemaRegistryClient;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.io.BinaryDecoder;
import org.apache.avro.io.DatumReader;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.specific.SpecificData;
import org.apache.avro.specific.SpecificDatumReader;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.serialization.Deserializer;

import java.io.IOException;
import java.util.HashSet;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Reads records in the Confluent wire format ({@link WireFormat}), as written by Confluent's
 * {@code KafkaAvroSerializer} or by {@link AvroSerializer}: the writer's schema is fetched by id
 * (once per process) and resolved against the reader's schema.
 *
 * <p>Reads strictly ({@link StrictDecoder}): lengths that do not fit the record, strings that are
 * not UTF-8 and bytes left after the datum are refused, never allocated, replaced or ignored.
 *
 * <p>Returns {@code GenericRecord}s, or generated classes when {@code specific.avro.reader=true}
 * or when created for a class ({@link #AvroDeserializer(Class)}). Every failure (not our magic
 * byte, unknown schema id, registry unreachable, undecodable data) is a Kafka
 * {@link SerializationException} whose message says what and where, so that a deserialization
 * exception handler can send the record to a dead-letter topic.
 */
public class AvroDeserializer<T> implements Deserializer<T> {

    private final Class<? extends SpecificRecord> readerClass;
    private SchemaRegistryClient registry;
    private boolean specific;
    private final Map<Integer, Reader> readers = new ConcurrentHashMap<>();

    /**
     * The reader of one writer schema, and the {@code fixed} sizes that bound a record before Avro allocates
     * one: the largest fixed every record holds (reached through record fields only), and the largest anywhere
     * (in a union branch, an array or a map a record need not use).
     */
    private record Reader(Schema writer, DatumReader<Object> datumReader, int largestRequiredFixed, int largestFixed) {
        /** Whether a record of {@code length} bytes cannot be of this schema, or could make Avro allocate far more. */
        boolean refuses(int length) {
            return largestRequiredFixed > length || (largestFixed > length && largestFixed > ALLOCATION_GUARD_BYTES);
        }
    }

    /** A fixed larger than this and than the record is refused even where a record need not hold it. */
    static final int ALLOCATION_GUARD_BYTES = 1024 * 1024;

    /** For Kafka's reflective creation; {@link #configure} must follow. */
    public AvroDeserializer() {
        this.readerClass = null;
    }

    /** A deserializer that always returns {@code readerClass}, whatever the writer's schema version. */
    public AvroDeserializer(Class<? extends SpecificRecord> readerClass) {
        this.readerClass = Objects.requireNonNull(readerClass, "readerClass");
    }

    /** A configured deserializer over a given registry client. */
    public AvroDeserializer(SchemaRegistryClient registry, Map<String, ?> configs) {
        this.readerClass = null;
        this.registry = Objects.requireNonNull(registry, "registry");
        this.specific = new AvroSerdeConfig(configs).specificAvroReader();
    }

    @Override
    public void configure(Map<String, ?> configs, boolean isKey) {
        AvroSerdeConfig config = new AvroSerdeConfig(configs);
        this.registry = SchemaRegistryClients.forConfig(config);
        this.specific = readerClass != null || config.specificAvroReader();
    }

    @Override
    @SuppressWarnings("unchecked")
    public T deserialize(String topic, byte[] data) {
        if (data == null) {
            return null;
        }
        if (registry == null) {
            throw new IllegalStateException("AvroDeserializer is not configured: call configure() with schema.registry.url");
        }
        int id = WireFormat.schemaId(data);
        Reader reader = readers.computeIfAbsent(id, this::readerFor);
        if (reader.refuses(data.length - WireFormat.HEADER_SIZE)) {
            // Avro allocates a fixed before reading it: a writer schema with a 2 GB fixed would make a 10-byte record
            // allocate 2 GB. No record shorter than a fixed it must hold can be of the schema; a huge fixed that it
            // need not hold is refused too, at the price of a record that does not use it.
            throw new SerializationException("Could not decode the Avro data after the 5-byte header (" + data.length
                    + " bytes, schema id " + id + ", topic '" + topic + "'): the writer schema has a fixed of "
                    + reader.largestFixed() + " bytes, more than the record holds");
        }
        BinaryDecoder binary = DecoderFactory.get().binaryDecoder(data, WireFormat.HEADER_SIZE,
                data.length - WireFormat.HEADER_SIZE, null);
        StrictDecoder decoder = new StrictDecoder(binary, data);
        T datum;
        int left;
        try {
            datum = (T) reader.datumReader().read(null, decoder);
            left = decoder.remaining();
        } catch (IOException | RuntimeException e) {
            throw new SerializationException("Could not decode the Avro data after the 5-byte header (" + data.length
                    + " bytes, schema id " + id + ", topic '" + topic + "'): " + describe(e), e);
        } catch (StackOverflowError e) {
            // A recursive writer schema lets a small record nest deeper than any stack (each level is one byte).
            // Refused like any bad record: an Error would pass every exception handler and stop the consumer.
            throw new SerializationException("Could not decode the Avro data after the 5-byte header (" + data.length
                    + " bytes, schema id " + id + ", topic '" + topic + "'): the datum nests deeper than the stack allows");
        }
        if (left > 0) {
            // Bytes after the datum: the schema id does not name the schema the record was written with.
            throw new SerializationException("Could not decode the Avro data after the 5-byte header (" + data.length
                    + " bytes, schema id " + id + ", topic '" + topic + "'): the datum ends at offset "
                    + (data.length - left) + ", " + left + " bytes before the end of the record");
        }
        return datum;
    }

    /**
     * What went wrong in a decode, the same text for the same bytes. An exception the JVM throws itself (an index or a
     * length out of range, a null, a cast) has a message only until HotSpot compiles the code that throws it: then it
     * throws a preallocated one without message ({@code -XX:+OmitStackTraceInFastThrow}, on by default), and the same
     * record would get another dead-letter reason (ReadingDecoderTest met it once: "Index -11 out of bounds for length
     * 2" against nothing). Those are named by their kind; any other exception by its own words.
     */
    static String describe(Throwable e) {
        if (e instanceof IndexOutOfBoundsException || e instanceof NegativeArraySizeException || e instanceof NullPointerException
                || e instanceof ClassCastException || e instanceof ArithmeticException || e instanceof ArrayStoreException) {
            return "the bytes do not follow the writer schema (" + e.getClass().getSimpleName() + " while reading them)";
        }
        return e.toString();
    }

    /**
     * The schema {@code data} was written with (fetched once per id), for callers that read some schemas
     * themselves; fails as {@link #deserialize} does on a record that is not in the wire format, an unknown
     * id or an unreachable registry.
     */
    public Schema writerSchema(byte[] data) {
        if (registry == null) {
            throw new IllegalStateException("AvroDeserializer is not configured: call configure() with schema.registry.url");
        }
        return readers.computeIfAbsent(WireFormat.schemaId(data), this::readerFor).writer();
    }

    private Reader readerFor(int id) {
        Schema writer;
        try {
            writer = registry.schemaById(id);
        } catch (RegistryException e) {
            if (e.errorCode() == RegistryException.SCHEMA_NOT_FOUND) {
                throw new UnknownSchemaException(id, "Unknown schema id " + id + ": the schema registry at "
                        + registry.location() + " has no schema with this id", e);
            }
            throw new SerializationException("Could not fetch schema id " + id + " from the schema registry at "
                    + registry.location() + ": " + e.getMessage(), e);
        } catch (RegistryUnavailableException e) {
            throw new RegistryUnavailableSerializationException("Could not fetch schema id " + id + ": " + e.getMessage(), e);
        }
        int required = largestFixed(writer, new HashSet<>(), true);
        int anywhere = largestFixed(writer, new HashSet<>(), false);
        if (!specific) {
            return new Reader(writer, new GenericDatumReader<>(writer, writer, GenericData.get()), required, anywhere);
        }
        Schema reader = readerSchema(writer);
        return new Reader(writer, new SpecificDatumReader<>(writer, reader, SpecificData.getForSchema(reader)), required, anywhere);
    }

    /** The largest fixed in {@code schema}; with {@code requiredOnly}, only those that every datum of it holds. */
    private static int largestFixed(Schema schema, Set<String> seenRecords, boolean requiredOnly) {
        return switch (schema.getType()) {
            case FIXED -> schema.getFixedSize();
            case RECORD -> seenRecords.add(schema.getFullName())
                    ? schema.getFields().stream().mapToInt(f -> largestFixed(f.schema(), seenRecords, requiredOnly)).max().orElse(0)
                    : 0;
            case ARRAY -> requiredOnly ? 0 : largestFixed(schema.getElementType(), seenRecords, false);
            case MAP -> requiredOnly ? 0 : largestFixed(schema.getValueType(), seenRecords, false);
            case UNION -> requiredOnly ? 0 : schema.getTypes().stream().mapToInt(s -> largestFixed(s, seenRecords, false)).max().orElse(0);
            default -> 0;
        };
    }

    private Schema readerSchema(Schema writer) {
        if (readerClass != null) {
            return SpecificData.get().getSchema(readerClass);
        }
        if (writer.getType() != Schema.Type.RECORD) {
            return writer;
        }
        Class<?> generated = SpecificData.get().getClass(writer);
        if (generated == null || !SpecificRecord.class.isAssignableFrom(generated)) {
            throw new SerializationException("No generated class " + writer.getFullName() + " on the classpath to read "
                    + "a specific record; set specific.avro.reader=false to read GenericRecords");
        }
        return SpecificData.get().getSchema(generated);
    }
}
