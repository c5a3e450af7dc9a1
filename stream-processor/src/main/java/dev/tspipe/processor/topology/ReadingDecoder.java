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
 * <p>A batch of readings ({@code ReadingBatch}: a record with a {@code series} field, {@link BatchValidator}) takes
 * the generic path and gets a {@link BatchVerdict}, a verdict per reading.
 */
public final class ReadingDecoder {

    /** The fields of tspipe's Reading schema (schemas/src/main/avro/Reading.avsc), in the order its values hold them. */
    private static final List<String> LAYOUT_FIELDS = List.of("deviceId", "metric", "timestamp", "value", "tags", "tenant");

    private final AvroDeserializer<Object> deserializer;
    private final ReadingValidator validator;
    private final BatchValidator batches;
    private final KeyLayout layout;
    /** Per schema id: whether its values have the Reading layout. */
    private final Map<Integer, Boolean> layoutById = new HashMap<>();
    private int lastLayoutId = -1;
    private boolean lastHasLayout;
    private final FastReader fast = new FastReader();

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
        ReadingValidator.Accepted accepted = hasLayout(value) ? fast.read(value, layout) : null;
        return accepted != null ? accepted : generic(topic, value);
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

    /** Whether {@code value} was written with a schema of the Reading layout; false also when it cannot tell (the generic path will say why). */
    private boolean hasLayout(byte[] value) {
        if (value.length < WireFormat.HEADER_SIZE || value[0] != WireFormat.MAGIC_BYTE) {
            return false;
        }
        int id = WireFormat.schemaId(value);
        if (id == lastLayoutId) {
            return lastHasLayout;
        }
        Boolean known = layoutById.get(id);
        if (known == null) {
            try {
                known = isReadingLayout(deserializer.writerSchema(value));
            } catch (SerializationException e) {
                return false;
            }
            layoutById.put(id, known);
        }
        lastLayoutId = id;
        lastHasLayout = known;
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
    static final class FastReader {
        /** Tags a reading can have on this path; more go the generic way. */
        private static final int MAX_TAGS = 32;

        private byte[] data;
        private int pos;
        private boolean failed;
        /** Per tag: offset and length of its name, offset and length of its value. */
        private final int[] tags = new int[MAX_TAGS * 4];
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

        /** Skips a string of {@code length} bytes (from {@link #readStringLength}); where it starts, or -1 if reading failed. */
        private int skip(int length) {
            if (failed) {
                return -1;
            }
            int start = pos;
            pos += length;
            return start;
        }

        /**
         * The {@code length} bytes at {@code start} as a string if they are well-formed UTF-8 without control characters
         * (and non-empty unless allowed), else null: what {@code ReadingValidator} accepts as a name.
         */
        private String printableText(int start, int length, boolean emptyAllowed) {
            if (length == 0 && !emptyAllowed) {
                return null;
            }
            int end = start + length;
            boolean ascii = true;
            for (int i = start; i < end; i++) {
                byte b = data[i];
                if (b < 0) {
                    ascii = false;
                } else if (b < 0x20 || b == 0x7F) {
                    return null;
                }
            }
            if (!ascii && (!wellFormedUtf8(data, start, end) || hasC1Control(data, start, end))) {
                return null;
            }
            return new String(data, start, length, ascii ? StandardCharsets.ISO_8859_1 : StandardCharsets.UTF_8);
        }

        /** Whether UTF-8 text holds U+0080..U+009F (C2 80..C2 9F), the C1 controls. */
        private static boolean hasC1Control(byte[] bytes, int from, int to) {
            for (int i = from; i + 1 < to; i++) {
                if (bytes[i] == (byte) 0xC2 && (bytes[i + 1] & 0xFF) <= 0x9F) {
                    return true;
                }
            }
            return false;
        }

        /**
         * Whether the bytes are well-formed UTF-8 (Unicode table 3-7: no overlong forms, no surrogates, nothing above
         * U+10FFFF), the rule of the JDK's strict decoder that the generic path uses.
         */
        static boolean wellFormedUtf8(byte[] bytes, int from, int to) {
            int i = from;
            while (i < to) {
                int c = bytes[i] & 0xFF;
                if (c < 0x80) {
                    i++;
                } else if (c < 0xC2) {
                    return false;
                } else if (c < 0xE0) {
                    if (i + 1 >= to || !continuation(bytes[i + 1])) {
                        return false;
                    }
                    i += 2;
                } else if (c < 0xF0) {
                    if (i + 2 >= to) {
                        return false;
                    }
                    int c1 = bytes[i + 1] & 0xFF;
                    if ((c == 0xE0 && c1 < 0xA0) || (c == 0xED && c1 > 0x9F) || !continuation(bytes[i + 1])
                            || !continuation(bytes[i + 2])) {
                        return false;
                    }
                    i += 3;
                } else if (c < 0xF5) {
                    if (i + 3 >= to) {
                        return false;
                    }
                    int c1 = bytes[i + 1] & 0xFF;
                    if ((c == 0xF0 && c1 < 0x90) || (c == 0xF4 && c1 > 0x8F) || !continuation(bytes[i + 1])
                            || !continuation(bytes[i + 2]) || !continuation(bytes[i + 3])) {
                        return false;
                    }
                    i += 4;
                } else {
                    return false;
                }
            }
            return true;
        }

        private static boolean continuation(byte b) {
            return (b & 0xC0) == 0x80;
        }

        /** A string's length, checked against the bytes left; -1 (and failed) if it does not fit. */
        private int readStringLength() {
            int length = readInt();
            if (failed || length < 0 || length > data.length - pos) {
                failed = true;
                return -1;
            }
            return length;
        }

        /** Reads the tags into {@link #tags}, sorted by name; their number, or -1 (and failed). */
        private int readTags() {
            int count = 0;
            while (!failed) {
                long block = readLong();
                if (failed || block < 0 || block > (data.length - pos) / 2 || count + block > MAX_TAGS) {
                    break;
                }
                if (block == 0) {
                    return count;
                }
                for (long i = 0; i < block; i++) {
                    int nameLength = readStringLength();
                    if (failed || !tagText(pos, nameLength, true)) {
                        return fail();
                    }
                    int nameStart = pos;
                    pos += nameLength;
                    int valueLength = readStringLength();
                    if (failed || !tagText(pos, valueLength, false)) {
                        return fail();
                    }
                    int valueStart = pos;
                    pos += valueLength;
                    if (!insertSorted(count, nameStart, nameLength, valueStart, valueLength)) {
                        return fail();
                    }
                    count++;
                }
            }
            return fail();
        }

        private int fail() {
            failed = true;
            return -1;
        }

        /**
         * Whether a tag's name or value is well-formed UTF-8 (any text: tags are not checked for control characters).
         * A name with a character above U+FFFF goes the generic way: sorted as a Java string (by UTF-16 units) it
         * can come before a name that its UTF-8 bytes come after.
         */
        private boolean tagText(int start, int length, boolean name) {
            int end = start + length;
            for (int i = start; i < end; i++) {
                if (data[i] < 0) {
                    if (name) {
                        for (int j = i; j < end; j++) {
                            if ((data[j] & 0xFF) >= 0xF0) {
                                return false;
                            }
                        }
                    }
                    return wellFormedUtf8(data, i, end);
                }
            }
            return true;
        }

        /** Inserts a tag by name (below U+10000, UTF-8 byte order is String order); false on a name seen before (the map keeps the last, the generic path decides). */
        private boolean insertSorted(int count, int nameStart, int nameLength, int valueStart, int valueLength) {
            int at = count;
            while (at > 0) {
                int c = compare(tags[(at - 1) * 4], tags[(at - 1) * 4 + 1], nameStart, nameLength);
                if (c == 0) {
                    return false;
                }
                if (c < 0) {
                    break;
                }
                at--;
            }
            System.arraycopy(tags, at * 4, tags, (at + 1) * 4, (count - at) * 4);
            tags[at * 4] = nameStart;
            tags[at * 4 + 1] = nameLength;
            tags[at * 4 + 2] = valueStart;
            tags[at * 4 + 3] = valueLength;
            return true;
        }

        private int compare(int aStart, int aLength, int bStart, int bLength) {
            return java.util.Arrays.compareUnsigned(data, aStart, aStart + aLength, data, bStart, bStart + bLength);
        }

        /** The raw row ({@code RawRow.toBytes()}'s layout) of the value and the sorted tags. */
        private byte[] row(double value, int tagCount) {
            int size = 12;
            for (int i = 0; i < tagCount; i++) {
                size += 8 + tags[i * 4 + 1] + tags[i * 4 + 3];
            }
            byte[] row = new byte[size];
            putLong(row, 0, Double.doubleToRawLongBits(value));
            putInt(row, 8, tagCount);
            int at = 12;
            for (int i = 0; i < tagCount; i++) {
                at = putString(row, at, tags[i * 4], tags[i * 4 + 1]);
                at = putString(row, at, tags[i * 4 + 2], tags[i * 4 + 3]);
            }
            return row;
        }

        private int putString(byte[] row, int at, int start, int length) {
            putInt(row, at, length);
            System.arraycopy(data, start, row, at + 4, length);
            return at + 4 + length;
        }

        private static void putInt(byte[] target, int at, int value) {
            target[at] = (byte) (value >>> 24);
            target[at + 1] = (byte) (value >>> 16);
            target[at + 2] = (byte) (value >>> 8);
            target[at + 3] = (byte) value;
        }

        private static void putLong(byte[] target, int at, long value) {
            putInt(target, at, (int) (value >>> 32));
            putInt(target, at + 4, (int) value);
        }

        /** An Avro int of at most 4 varint bytes (longer ones, legal or not, go the generic way). */
        private int readInt() {
            long n = readVarint(4);
            return (int) ((n >>> 1) ^ -(n & 1));
        }

        /** An Avro long of at most 9 varint bytes (|value| < 2^62; longer ones go the generic way). */
        private long readLong() {
            long n = readVarint(9);
            return (n >>> 1) ^ -(n & 1);
        }

        private long readVarint(int maxBytes) {
            long n = 0;
            for (int i = 0; i < maxBytes && pos < data.length; i++) {
                int b = data[pos++] & 0xFF;
                n |= (long) (b & 0x7F) << (7 * i);
                if ((b & 0x80) == 0) {
                    return n;
                }
            }
            failed = true;
            return 0;
        }

        private double readDouble() {
            if (failed || data.length - pos < 8) {
                failed = true;
                return 0;
            }
            long bits = 0;
            for (int i = 7; i >= 0; i--) {
                bits = (bits << 8) | (data[pos + i] & 0xFF);
            }
            pos += 8;
            return Double.longBitsToDouble(bits);
        }
    }
}
