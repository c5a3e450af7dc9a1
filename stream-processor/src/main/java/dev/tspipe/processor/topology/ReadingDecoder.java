package dev.tspipe.processor.topology;

import dev.tspipe.model.keys.InvalidKeyException;
import dev.tspipe.model.keys.KeyLayout;
import dev.tspipe.model.keys.RowKey;
import dev.tspipe.model.keys.SeriesId;
import dev.tspipe.schemas.serde.AvroDeserializer;
import dev.tspipe.schemas.serde.AvroSerdeConfig;
import dev.tspipe.schemas.serde.RegistryUnavailableSerializationException;
import dev.tspipe.schemas.serde.UnknownSchemaException;
import dev.tspipe.schemas.serde.WireFormat;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericRecord;
import org.apache.kafka.common.errors.SerializationException;

import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.IntFunction;

/**
 * The verdict on a record value: decoded from the Confluent wire format and validated
 * ({@link ReadingValidator}), as docs/design.md §5 defines it.
 *
 * <p>Two paths give the same verdict. Values written with the layout of tspipe's own {@code Reading}
 * schema (deviceId, metric, timestamp, value, tags, tenant, of those types, under any schema id) are read
 * straight from their bytes into a {@link ValidReading}: no generic record, no map copies, the raw row
 * built from the tag bytes. Anything unusual about such a value (a tag name above U+FFFF, a map block
 * written with its byte size, a tag name twice, a varint longer than its values need, bytes left over,
 * any reason to reject it) and every
 * value of another schema take the generic path ({@link AvroDeserializer} and {@link ReadingValidator}),
 * which reads any schema by field name and words every rejection. The fast path only ever accepts what
 * the generic path accepts, with the same row key and row bytes (ReadingDecoderTest compares them on
 * random and mutated values).
 *
 * <p>A batch of readings ({@code ReadingBatch}: a record with a {@code series} field) gets a {@link BatchVerdict}, a
 * verdict per reading, the same two ways: {@link BatchReader} for values of the batch layout whose every reading is
 * valid, {@link BatchValidator} for everything else.
 */
public final class ReadingDecoder {

    /** The fields of tspipe's Reading schema (schemas/src/main/avro/Reading.avsc), in the order its values hold them. */
    private static final List<String> LAYOUT_FIELDS = List.of("deviceId", "metric", "timestamp", "value", "tags", "tenant");

    private final AvroDeserializer<Object> deserializer;
    private final ReadingValidator validator;
    private final BatchValidator batches;
    private final KeyLayout layout;
    /** The layouts the fast paths read. */
    private enum Layout { READING, BATCH, OTHER }

    /** Per schema id: the layout of its values. */
    private final Map<Integer, Layout> layoutById = new HashMap<>();
    private int lastLayoutId = -1;
    private Layout lastLayout;
    private final FastReader fast = new FastReader();
    private final BatchReader fastBatches = new BatchReader();

    /** A decoder of {@code config}'s registry and key layout, reading generic records. */
    public ReadingDecoder(PipelineConfig config) {
        this(deserializerFor(config), config.keyLayout());
    }

    ReadingDecoder(AvroDeserializer<Object> deserializer, KeyLayout layout) {
        this.deserializer = Objects.requireNonNull(deserializer, "deserializer");
        this.layout = Objects.requireNonNull(layout, "layout");
        this.validator = new ReadingValidator(layout);
        this.batches = new BatchValidator(validator);
    }

    private static AvroDeserializer<Object> deserializerFor(PipelineConfig config) {
        AvroDeserializer<Object> deserializer = new AvroDeserializer<>();
        // The registry client's own settings (credentials, TLS: Confluent's keys) when the pipeline's settings have them.
        Map<String, Object> settings = AvroSerdeConfig.settingsIn(config.originals());
        settings.put(AvroSerdeConfig.SCHEMA_REGISTRY_URL, config.schemaRegistryUrl());
        deserializer.configure(settings, false);
        return deserializer;
    }

    /**
     * The verdict on a non-null value of {@code topic}: one reading's, or a {@link BatchVerdict} for a batch.
     *
     * @throws RegistryUnavailableSerializationException while the registry cannot be reached for the value's
     *                                                   schema: not the record's fault, try again
     */
    public ReadingValidator.Verdict verdict(String topic, byte[] value) {
        ReadingValidator.Verdict accepted = switch (layoutOf(value)) {
            case READING -> fast.read(value, layout);
            // A reading of the batch may still be rejected by the ingest step (expired, future): its dead letter is
            // then made from the generic decoding, which the fast path skipped.
            case BATCH -> fastBatches.read(value, layout, deadLettersLater(topic, value));
            case OTHER -> null;
        };
        return accepted != null ? accepted : generic(topic, value);
    }

    /**
     * The dead-letter values of a batch the fast path read: from its generic decoding, made at the first rejection and
     * kept for the next (a replayed batch of old readings may have all of its thousands of readings expire).
     */
    private IntFunction<byte[]> deadLettersLater(String topic, byte[] value) {
        BatchVerdict[] decoded = new BatchVerdict[1];
        return index -> {
            if (decoded[0] == null) {
                decoded[0] = (BatchVerdict) generic(topic, value);
            }
            return decoded[0].deadLetterValue(index);
        };
    }

    /** The verdict of the generic path alone (every schema, every message). */
    ReadingValidator.Verdict generic(String topic, byte[] value) {
        Object decoded;
        try {
            decoded = deserializer.deserialize(topic, value);
        } catch (RegistryUnavailableSerializationException e) {
            throw e;
        } catch (UnknownSchemaException e) {
            return new ReadingValidator.Rejected(RejectReason.UNKNOWN_SCHEMA, e.getMessage());
        } catch (SerializationException e) {
            return new ReadingValidator.Rejected(RejectReason.UNDECODABLE, e.getMessage());
        }
        if (decoded instanceof GenericRecord record && BatchValidator.isBatch(record.getSchema())) {
            return batches.validate(record, value);
        }
        return validator.validate(decoded);
    }

    /** The layout of {@code value}'s schema; OTHER also when it cannot tell (the generic path will say why). */
    private Layout layoutOf(byte[] value) {
        if (value.length < WireFormat.HEADER_SIZE || value[0] != WireFormat.MAGIC_BYTE) {
            return Layout.OTHER;
        }
        int id = WireFormat.schemaId(value);
        if (id == lastLayoutId) {
            return lastLayout;
        }
        Layout known = layoutById.get(id);
        if (known == null) {
            try {
                Schema schema = deserializer.writerSchema(value);
                known = isReadingLayout(schema) ? Layout.READING : BatchReader.isBatchLayout(schema) ? Layout.BATCH : Layout.OTHER;
            } catch (SerializationException e) {
                return Layout.OTHER;
            }
            layoutById.put(id, known);
        }
        lastLayoutId = id;
        lastLayout = known;
        return known;
    }

    /** Whether values of {@code schema} hold, in this order: two strings, a long, a double, a map of strings, a null-or-string union. */
    static boolean isReadingLayout(Schema schema) {
        if (schema.getType() != Schema.Type.RECORD || schema.getFields().size() != LAYOUT_FIELDS.size()) {
            return false;
        }
        List<Schema.Field> fields = schema.getFields();
        for (int i = 0; i < fields.size(); i++) {
            if (!fields.get(i).name().equals(LAYOUT_FIELDS.get(i))) {
                return false;
            }
        }
        Schema tags = fields.get(4).schema();
        Schema tenant = fields.get(5).schema();
        return fields.get(0).schema().getType() == Schema.Type.STRING
                && fields.get(1).schema().getType() == Schema.Type.STRING
                && fields.get(2).schema().getType() == Schema.Type.LONG
                && fields.get(3).schema().getType() == Schema.Type.DOUBLE
                && tags.getType() == Schema.Type.MAP && tags.getValueType().getType() == Schema.Type.STRING
                && tenant.getType() == Schema.Type.UNION && tenant.getTypes().size() == 2
                && tenant.getTypes().get(0).getType() == Schema.Type.NULL
                && tenant.getTypes().get(1).getType() == Schema.Type.STRING;
    }

    public void close() {
        deserializer.close();
    }

    /**
     * Reads one value of the Reading layout (Avro binary: zig-zag varints, little-endian double, length-prefixed
     * strings, map blocks); {@code null} as soon as anything is not the plain case, so that the generic path decides.
     * Not thread-safe: one per decoder, reused for every value.
     */
    static final class FastReader extends AvroLayoutReader {
        private final RecentSeries recent = new RecentSeries();
        /** The key layout of the prefixes in {@link #recent}. */
        private KeyLayout recentLayout;

        ReadingValidator.Accepted read(byte[] value, KeyLayout layout) {
            if (layout != recentLayout) {
                recent.clear();
                recentLayout = layout;
            }
            data = value;
            pos = WireFormat.HEADER_SIZE;
            failed = false;
            int deviceLength = readStringLength();
            int deviceStart = skip(deviceLength);
            int metricLength = readStringLength();
            int metricStart = skip(metricLength);
            long timestamp = readLong();
            double reading = readDouble();
            int tagCount = readTags();
            int tenantStart = -1;
            int tenantLength = -1;
            int branch = readInt();
            if (branch == 1) {
                tenantLength = readStringLength();
                tenantStart = skip(tenantLength);
            } else if (branch != 0) {
                return null;
            }
            if (failed || pos != data.length || Double.isNaN(reading) || Double.isInfinite(reading)) {
                return null;
            }
            // A series seen before (the same bytes of device, metric and tenant) was valid then and has the same key
            // prefix now: only its timestamp is new.
            RecentSeries.Known known = recent.find(data, deviceStart, deviceLength, metricStart, metricLength,
                    tenantStart, tenantLength);
            byte[] rowKey;
            try {
                if (known != null) {
                    rowKey = RowKey.withTimestamp(known.prefix(), timestamp);
                } else {
                    String device = printableText(deviceStart, deviceLength, false);
                    String metric = printableText(metricStart, metricLength, false);
                    String tenant = tenantStart < 0 ? null : printableText(tenantStart, tenantLength, true);
                    if (device == null || metric == null || (tenantStart >= 0 && tenant == null)) {
                        return null;
                    }
                    SeriesId series = new SeriesId(tenant, device, metric);
                    rowKey = RowKey.encode(layout, series, timestamp);
                    known = recent.remember(series, RowKey.seriesPrefixOf(rowKey));
                }
            } catch (InvalidKeyException e) {
                return null;
            }
            return new ReadingValidator.Accepted(new ValidReading(known.series(), timestamp, reading, row(reading, tagCount)), rowKey);
        }
    }
}
