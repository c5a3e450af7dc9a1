package dev.tspipe.query.series;

import dev.tspipe.query.error.ApiException;
import dev.tspipe.model.keys.RowKey;

import java.time.Instant;
import java.time.format.DateTimeParseException;

/**
 * The half-open time window {@code [from, to)} of a query, in epoch milliseconds. Without
 * bounds it is everything a row key can hold: {@code [0, 9999-12-31T23:59:59.999Z + 1 ms)}.
 */
public record TimeWindow(long from, long to) {

    public static final long EVERYTHING_TO = RowKey.MAX_EPOCH_MILLIS + 1;

    /** Parses {@code from} and {@code to} (epoch ms or ISO-8601 instants; absent = unbounded). */
    public static TimeWindow parse(String fromText, String toText) {
        long from = fromText == null || fromText.isEmpty() ? 0 : instant("from", fromText);
        long to = toText == null || toText.isEmpty() ? EVERYTHING_TO : instant("to", toText);
        if (from >= to) {
            throw ApiException.badParameter("from", "from (" + from + ") must be before to (" + to
                    + "): the window [from, to) includes from and excludes to");
        }
        return new TimeWindow(from, to);
    }

    private static long instant(String parameter, String text) {
        long millis;
        if (isInteger(text)) {
            try {
                millis = Long.parseLong(text);
            } catch (NumberFormatException e) {
                throw outOfRange(parameter, text);
            }
        } else {
            try {
                millis = Instant.parse(text).toEpochMilli();
            } catch (DateTimeParseException | ArithmeticException e) {
                throw ApiException.badParameter(parameter, "'" + text + "' is neither epoch milliseconds (e.g. 1700000000000) "
                        + "nor an ISO-8601 instant (e.g. 2026-11-01T00:00:00Z)");
            }
        }
        if (millis < 0 || millis > EVERYTHING_TO) {
            throw outOfRange(parameter, text);
        }
        return millis;
    }

    private static ApiException outOfRange(String parameter, String text) {
        return ApiException.badParameter(parameter, "'" + text + "' is outside 0 (1970-01-01T00:00:00Z) .. "
                + EVERYTHING_TO + " (10000-01-01T00:00:00Z)");
    }

    private static boolean isInteger(String text) {
        int start = text.startsWith("-") ? 1 : 0;
        if (start == text.length()) {
            return false;
        }
        for (int i = start; i < text.length(); i++) {
            if (!Character.isDigit(text.charAt(i)) || text.charAt(i) > '9') {
                return false;
            }
        }
        return true;
    }
}
