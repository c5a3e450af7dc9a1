package dev.tspipe.query.series;

import dev.tspipe.query.error.ApiException;
import java.util.Locale;

/** The order of a page: newest first (the default, a forward scan of reversed timestamps) or oldest first. */
public enum Order {
    DESC, ASC;

    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    static Order parse(String text) {
        if (text == null || text.isEmpty()) {
            return DESC;
        }
        return switch (text.toLowerCase(Locale.ROOT)) {
            case "desc" -> DESC;
            case "asc" -> ASC;
            default -> throw ApiException.badParameter("order", "'" + text + "' is not an order; use desc (newest first, the default) or asc");
        };
    }
}
