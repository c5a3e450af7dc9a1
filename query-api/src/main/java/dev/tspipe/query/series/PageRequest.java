package dev.tspipe.query.series;

import dev.tspipe.query.error.ApiException;
import dev.tspipe.model.keys.SeriesId;

/**
 * A validated request for one page of a series (readings or rollups): the series, the window the
 * client asked for, the page size and order, and where the previous page ended.
 *
 * @param kind   {@code readings} or {@code rollups-<step>}: part of the cursor's identity
 * @param cursor where the previous page ended, or null for the first page
 */
public record PageRequest(String kind, SeriesId series, TimeWindow window, int limit, Order order, Cursor cursor) {

    public static final int DEFAULT_LIMIT = 100;
    public static final int MAX_LIMIT = 10_000;

    /** Parses and validates the query parameters of a page; every bad one is a 400 that names it. */
    public static PageRequest parse(String kind, SeriesId series, String from, String to, String limit,
                                    String order, String cursor) {
        TimeWindow window = TimeWindow.parse(from, to);
        int size = parseLimit(limit);
        Order parsedOrder = Order.parse(order);
        Cursor position = cursor == null || cursor.isEmpty() ? null
                : Cursor.decode(cursor, parsedOrder, queryHash(kind, series, window));
        return new PageRequest(kind, series, window, size, parsedOrder, position);
    }

    static int parseLimit(String text) {
        if (text == null || text.isEmpty()) {
            return DEFAULT_LIMIT;
        }
        int limit;
        try {
            limit = Integer.parseInt(text);
        } catch (NumberFormatException e) {
            throw ApiException.badParameter("limit", "'" + text + "' is not a whole number; use 1.." + MAX_LIMIT
                    + " (default " + DEFAULT_LIMIT + ")");
        }
        if (limit < 1 || limit > MAX_LIMIT) {
            throw ApiException.badParameter("limit", limit + " is outside 1.." + MAX_LIMIT + " (default " + DEFAULT_LIMIT + ")");
        }
        return limit;
    }

    private static int queryHash(String kind, SeriesId series, TimeWindow window) {
        return Cursor.queryHash(kind, series.tenant(), series.device(), series.metric(), window);
    }

    /** The part of the window still to read after the cursor: rows after the last one returned, in this order. */
    public TimeWindow remaining() {
        if (cursor == null) {
            return window;
        }
        return order == Order.DESC
                ? new TimeWindow(window.from(), Math.min(window.to(), cursor.lastTimestamp()))
                : new TimeWindow(Math.max(window.from(), cursor.lastTimestamp() + 1), window.to());
    }

    /** The cursor that resumes after a page whose last row has {@code lastTimestamp}. */
    public String nextCursor(long lastTimestamp) {
        return new Cursor(order, lastTimestamp, queryHash(kind, series, window)).encode();
    }
}
