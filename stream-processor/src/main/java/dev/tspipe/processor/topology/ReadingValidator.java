package dev.tspipe.processor.topology;

import dev.tspipe.model.keys.InvalidKeyException;
import dev.tspipe.model.keys.KeyLayout;
import dev.tspipe.model.keys.RowKey;
import dev.tspipe.model.keys.SeriesId;
import dev.tspipe.model.rows.RawRow;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericRecord;

import java.util.HashMap;
import java.util.Map;
import java.util.Objects;

/**
 * Decides whether a decoded record is a reading tspipe can store (docs/design.md §5), independently of
 * stream time: fields present and of the right type, device and metric non-empty, a finite
 * value, a timestamp in the valid range, a tenant as the deployment's tenancy demands, a row key
 * within 1,024 bytes. The checks against stream time (expired, future) belong to the ingest step.
 *
 * <p>It reads the record with the writer's schema, by field name, so that a record written with
 * any schema (an older {@code Reading}, or another producer's) gets a precise verdict.
 */
public final class ReadingValidator {

    /** The verdict on one record: one reading accepted or rejected, or a batch of readings with a verdict each. */
    public sealed interface Verdict permits Accepted, Rejected, BatchVerdict {
    }

    /** A storable reading and its row key. */
    public record Accepted(ValidReading reading, byte[] rowKey) implements Verdict {
    }

    /** A record to send to the dead-letter topic, and why. */
    public record Rejected(RejectReason reason, String message) implements Verdict {
    }

    private final KeyLayout layout;

    public ReadingValidator(KeyLayout layout) {
        this.layout = Objects.requireNonNull(layout, "layout");
    }

    /** The verdict on a decoded value: a record of any schema, or (written with a schema that is not a record) anything else. */
    public Verdict validate(Object decoded) {
        if (!(decoded instanceof GenericRecord record)) {
            return new Rejected(RejectReason.INVALID_FIELD, "the value is "
                    + (decoded == null ? "null" : "a " + decoded.getClass().getSimpleName())
                    + ", not a record with the fields of a reading");
        }
        Schema schema = record.getSchema();
        String device;
        String metric;
        long timestamp;
        double value;
        Map<String, String> tags;
        String tenant;
        try {
            device = requiredString(record, "deviceId");
            metric = requiredString(record, "metric");
            timestamp = requiredLong(record, "timestamp");
            value = requiredDouble(record, "value");
            tags = tags(record);
            tenant = optionalString(record, "tenant");
        } catch (FieldException e) {
            return new Rejected(RejectReason.INVALID_FIELD, e.getMessage() + " (writer schema " + schema.getFullName() + ")");
        }
        return reading(tenant, device, metric, timestamp, value, tags);
    }

    /**
     * The verdict on a reading whose fields were read (printable names, of the right types): a finite value, a
     * timestamp in range, a tenant as the deployment's tenancy demands, a row key within 1,024 bytes.
     */
    Verdict reading(String tenant, String device, String metric, long timestamp, double value, Map<String, String> tags) {
        if (Double.isNaN(value) || Double.isInfinite(value)) {
            return new Rejected(RejectReason.INVALID_VALUE, "value is " + value + "; a reading needs a finite number");
        }
        try {
            SeriesId series = new SeriesId(tenant, device, metric);
            byte[] rowKey = RowKey.encode(layout, series, timestamp);
            return new Accepted(new ValidReading(series, timestamp, value, new RawRow(value, tags).toBytes()), rowKey);
        } catch (InvalidKeyException e) {
            RejectReason reason = switch (e.reason()) {
                case KEY_TOO_LONG -> RejectReason.KEY_TOO_LONG;
                case INVALID_TIMESTAMP -> RejectReason.INVALID_TIMESTAMP;
                case INVALID_FIELD -> RejectReason.INVALID_FIELD;
            };
            return new Rejected(reason, e.getMessage());
        }
    }

    static final class FieldException extends Exception {
        FieldException(String message) {
            super(message, null, false, false);
        }
    }

    static Object field(GenericRecord record, String name, boolean required) throws FieldException {
        Schema.Field field = record.getSchema().getField(name);
        if (field == null) {
            if (required) {
                throw new FieldException("field '" + name + "' is missing");
            }
            return null;
        }
        // By position: record.get(name) would look the name up a second time.
        Object value = record.get(field.pos());
        if (value == null && required) {
            throw new FieldException("field '" + name + "' is null");
        }
        return value;
    }

    static String requiredString(GenericRecord record, String name) throws FieldException {
        Object value = field(record, name, true);
        if (!(value instanceof CharSequence text)) {
            throw new FieldException("field '" + name + "' must be a string, not " + value.getClass().getSimpleName());
        }
        String s = text.toString();
        if (s.isEmpty()) {
            throw new FieldException("field '" + name + "' is empty");
        }
        return printable(name, s);
    }

    /**
     * A name with a control character (U+0000..U+001F, U+007F..U+009F) could be stored but never asked for:
     * the query API addresses series by name in the URL, where Jetty and tspipe refuse control characters.
     */
    static String printable(String name, String s) throws FieldException {
        for (int i = 0; i < s.length(); i++) {
            if (Character.isISOControl(s.charAt(i))) {
                throw new FieldException(String.format("field '%s' holds the control character U+%04X at index %d; "
                        + "names must be printable text, or no query can ask for them", name, (int) s.charAt(i), i));
            }
        }
        return s;
    }

    static String optionalString(GenericRecord record, String name) throws FieldException {
        Object value = field(record, name, false);
        if (value == null) {
            return null;
        }
        if (!(value instanceof CharSequence text)) {
            throw new FieldException("field '" + name + "' must be a string or null, not " + value.getClass().getSimpleName());
        }
        return printable(name, text.toString());
    }

    static long requiredLong(GenericRecord record, String name) throws FieldException {
        Object value = field(record, name, true);
        if (value instanceof Long l) {
            return l;
        }
        if (value instanceof Integer i) {
            return i;
        }
        if (value instanceof java.time.Instant instant) {
            return instant.toEpochMilli();
        }
        throw new FieldException("field '" + name + "' must be a long (epoch milliseconds), not " + value.getClass().getSimpleName());
    }

    static double requiredDouble(GenericRecord record, String name) throws FieldException {
        Object value = field(record, name, true);
        if (value instanceof Number number) {
            return number.doubleValue();
        }
        throw new FieldException("field '" + name + "' must be a number, not " + value.getClass().getSimpleName());
    }

    static Map<String, String> tags(GenericRecord record) throws FieldException {
        Object value = field(record, "tags", false);
        if (value == null) {
            return Map.of();
        }
        if (!(value instanceof Map<?, ?> map)) {
            throw new FieldException("field 'tags' must be a map of strings, not " + value.getClass().getSimpleName());
        }
        if (map.isEmpty()) {
            return Map.of();
        }
        Map<String, String> tags = new HashMap<>(map.size() * 2);
        for (Map.Entry<?, ?> entry : map.entrySet()) {
            if (!(entry.getValue() instanceof CharSequence tagValue)) {
                throw new FieldException("tag '" + entry.getKey() + "' must have a string value");
            }
            tags.put(entry.getKey().toString(), tagValue.toString());
        }
        return tags;
    }
}
