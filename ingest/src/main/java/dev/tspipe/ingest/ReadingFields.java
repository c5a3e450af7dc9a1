package dev.tspipe.ingest;

import dev.tspipe.schemas.Reading;

import java.time.DateTimeException;
import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.util.LinkedHashMap;
import java.util.Map;

/** The checks and conversions that CSV and JSON Lines share: the same fields, the same rules, the same reasons. */
final class ReadingFields {

    static final String DEVICE = "device";
    static final String METRIC = "metric";
    static final String TIMESTAMP = "timestamp";
    static final String VALUE = "value";
    static final String TENANT = "tenant";
    static final String TAGS = "tags";

    private ReadingFields() {
    }

    static Reading reading(String tenant, String device, String metric, long epochMillis, double value, Map<String, String> tags)
            throws InvalidLineException {
        return Reading.newBuilder()
                .setTenant(tenant == null || tenant.isBlank() ? null : tenant.trim())
                .setDeviceId(required(DEVICE, device, "every reading needs a device id"))
                .setMetric(required(METRIC, metric, "every reading needs a metric name such as temperature"))
                .setTimestamp(Instant.ofEpochMilli(epochMillis))
                .setValue(value)
                .setTags(tags)
                .build();
    }

    private static String required(String field, String text, String why) throws InvalidLineException {
        if (text == null || text.isBlank()) {
            throw new InvalidLineException(field + " is empty: " + why);
        }
        return text.trim();
    }

    /** Epoch milliseconds ({@code 1796032800000}) or an ISO-8601 instant with a zone ({@code 2026-11-30T10:00:00Z}). */
    static long timestamp(String text) throws InvalidLineException {
        String t = text == null ? "" : text.trim();
        if (t.isEmpty()) {
            throw new InvalidLineException("timestamp is empty: write epoch milliseconds (1796032800000) "
                    + "or an ISO-8601 instant (2026-11-30T10:00:00Z)");
        }
        long millis;
        if (t.matches("-?[0-9]+")) {
            try {
                millis = Long.parseLong(t);
            } catch (NumberFormatException e) {
                throw new InvalidLineException("timestamp '" + t + "' is too large for epoch milliseconds");
            }
        } else {
            try {
                millis = DateTimeFormatter.ISO_OFFSET_DATE_TIME.parse(t, Instant::from).toEpochMilli();
            } catch (DateTimeException | ArithmeticException e) {
                String hint = t.matches("\\d{4}-\\d{2}-\\d{2}T[0-9:.]+") ? " (it has no zone: add Z for UTC or an offset such as +01:00)" : "";
                throw new InvalidLineException("timestamp '" + t + "' is not a time" + hint
                        + ": write epoch milliseconds (1796032800000) or an ISO-8601 instant (2026-11-30T10:00:00Z)");
            }
        }
        if (millis < 0) {
            throw new InvalidLineException("timestamp '" + t + "' is before 1970-01-01T00:00:00Z: tspipe stores times from 1970 on");
        }
        return millis;
    }

    static double value(String text) throws InvalidLineException {
        String t = text == null ? "" : text.trim();
        if (t.isEmpty()) {
            throw new InvalidLineException("value is empty: write a decimal number such as 21.5");
        }
        double value;
        try {
            value = Double.parseDouble(t);
        } catch (NumberFormatException e) {
            throw new InvalidLineException("value '" + t + "' is not a number: write a decimal number such as 21.5");
        }
        return finite(value, t);
    }

    static double finite(double value, String text) throws InvalidLineException {
        if (!Double.isFinite(value)) {
            throw new InvalidLineException("value '" + text + "' is not a finite number: NaN and infinities cannot be stored");
        }
        return value;
    }

    /** Tags written as {@code key=value;key=value} (CSV). */
    static Map<String, String> tags(String text) throws InvalidLineException {
        Map<String, String> tags = new LinkedHashMap<>();
        if (text == null || text.isBlank()) {
            return tags;
        }
        for (String pair : text.split(";")) {
            if (pair.isBlank()) {
                continue;
            }
            int eq = pair.indexOf('=');
            if (eq <= 0) {
                throw new InvalidLineException("tag '" + pair.trim() + "' is not key=value: write tags as key=value;key=value");
            }
            tags.put(pair.substring(0, eq).trim(), pair.substring(eq + 1).trim());
        }
        return tags;
    }
}
