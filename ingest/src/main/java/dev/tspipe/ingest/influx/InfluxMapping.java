package dev.tspipe.ingest.influx;

import dev.tspipe.ingest.SeriesName;
import dev.tspipe.schemas.Reading;

import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * How line protocol becomes readings (docs/ingest.md, "InfluxDB line protocol"): one reading per field;
 * its metric is {@code measurement.field} (or the field alone) with the point's other tags as labels
 * ({@link SeriesName}: {@code cpu.usage_idle{cpu="cpu0"}}), which are also its tags; its device, the value of the
 * device tag ({@code device} by default, else {@code host}, as Telegraf tags every point).
 * Floats, integers and unsigned integers are the value (integers beyond 2^53 lose their last digits as a
 * 64-bit float does); booleans are 1 and 0; a string field is refused (a reading is a number).
 *
 * @param deviceTags        the tags that name the device, tried in order
 * @param measurementPrefix whether the metric is {@code measurement.field} ({@code true}) or the field alone
 */
public record InfluxMapping(List<String> deviceTags, boolean measurementPrefix) {

    public static final InfluxMapping DEFAULT = new InfluxMapping(List.of("device", "host"), true);

    /** The unit of a body's timestamps, as {@code precision=} names it. */
    public enum Precision {
        NS, US, MS, S;

        /** {@code ns}, {@code us}, {@code ms}, {@code s} (also InfluxDB 1's {@code n}, {@code u}); null is {@code ns}. */
        public static Precision parse(String text) {
            if (text == null || text.isEmpty()) {
                return NS;
            }
            return switch (text.toLowerCase(Locale.ROOT)) {
                case "ns", "n" -> NS;
                case "us", "u", "µs" -> US;
                case "ms" -> MS;
                case "s" -> S;
                default -> throw new IllegalArgumentException("precision '" + text + "' is not one of ns, us, ms, s");
            };
        }

        long toMillis(long timestamp) {
            return switch (this) {
                case NS -> Math.floorDiv(timestamp, 1_000_000L);
                case US -> Math.floorDiv(timestamp, 1_000L);
                case MS -> timestamp;
                case S -> Math.multiplyExact(timestamp, 1_000L);
            };
        }
    }

    /**
     * The readings of a body, all or none: the first line that is not line protocol or cannot be a reading
     * refuses the whole body with its line number.
     *
     * @param tenant    the tenant of every reading, or null
     * @param nowMillis the timestamp of points without one
     */
    public List<Reading> readings(String body, Precision precision, String tenant, long nowMillis) throws LineProtocolException {
        List<Reading> readings = new ArrayList<>();
        LineProtocol.parse(body, (line, point) -> add(line, point, precision, tenant, nowMillis, readings));
        return readings;
    }

    private void add(int line, LinePoint point, Precision precision, String tenant, long nowMillis, List<Reading> readings)
            throws LineProtocolException {
        String device = null;
        String deviceTag = null;
        for (String tag : deviceTags) {
            if (point.tags().containsKey(tag)) {
                device = point.tags().get(tag);
                deviceTag = tag;
                break;
            }
        }
        if (device == null) {
            throw new LineProtocolException(line, "no device: the point needs a tag " + String.join(" or ", deviceTags)
                    + " that names its device");
        }
        long millis;
        try {
            millis = point.timestamp() == null ? nowMillis : precision.toMillis(point.timestamp());
        } catch (ArithmeticException e) {
            millis = -1;
        }
        if (millis < 0) {
            throw new LineProtocolException(line, "timestamp " + point.timestamp() + " (" + precision.name().toLowerCase(Locale.ROOT)
                    + ") is before 1970 or beyond the year 292278994");
        }
        Map<String, String> tags = new LinkedHashMap<>(point.tags());
        tags.remove(deviceTag);
        for (Map.Entry<String, FieldValue> field : point.fields().entrySet()) {
            double value = number(line, field.getKey(), field.getValue());
            String metric = SeriesName.of(measurementPrefix ? point.measurement() + "." + field.getKey() : field.getKey(), tags);
            readings.add(Reading.newBuilder().setTenant(tenant).setDeviceId(device).setMetric(metric)
                    .setTimestamp(Instant.ofEpochMilli(millis)).setValue(value).setTags(tags).build());
        }
    }

    private static double number(int line, String field, FieldValue value) throws LineProtocolException {
        if (value instanceof FieldValue.FloatValue f) {
            return f.value();
        } else if (value instanceof FieldValue.IntegerValue n) {
            return n.value();
        } else if (value instanceof FieldValue.UnsignedValue u) {
            return Double.parseDouble(Long.toUnsignedString(u.bits()));
        } else if (value instanceof FieldValue.BooleanValue b) {
            return b.value() ? 1 : 0;
        }
        throw new LineProtocolException(line, "field '" + field + "' is a string; a reading is a number (float, integer, "
                + "unsigned or boolean): send strings as tags");
    }
}
