package dev.tspipe.app;

import dev.tspipe.model.keys.KeyLayout;
import dev.tspipe.model.keys.RowKey;
import dev.tspipe.model.keys.SeriesId;
import dev.tspipe.processor.store.SeriesStoreSpec;

import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.time.Instant;

/** The listing of a row key and its parts that {@code keys encode} and {@code keys decode} both print. */
final class KeyParts {

    private KeyParts() {
    }

    static void print(PrintWriter out, byte[] key, KeyLayout layout, RowKey rowKey) {
        SeriesId series = rowKey.series();
        line(out, "key", new String(key, StandardCharsets.UTF_8));
        if (layout.salted()) {
            line(out, "salt", new String(key, 0, RowKey.SALT_CHARS, StandardCharsets.US_ASCII));
        }
        line(out, "tenant", series.tenant() == null ? "(none)" : printable(series.tenant()));
        line(out, "device", printable(series.device()));
        line(out, "metric", printable(series.metric()));
        line(out, "timestamp", rowKey.epochMillis() + " (" + Instant.ofEpochMilli(rowKey.epochMillis()) + ")");
        line(out, "reversed", String.format("%0" + RowKey.TIMESTAMP_DIGITS + "d", Long.MAX_VALUE - rowKey.epochMillis()));
        line(out, "bytes", Integer.toString(key.length));
        // The raw table stores the reading in the block of its hour, keyed by the hour's start (docs/row-keys.md).
        long hour = rowKey.epochMillis() - Math.floorMod(rowKey.epochMillis(), SeriesStoreSpec.RAW_BLOCK_MS);
        byte[] block = RowKey.withTimestamp(RowKey.seriesPrefixOf(key), hour);
        line(out, "block", new String(block, StandardCharsets.UTF_8) + " (the raw block of the hour from " + Instant.ofEpochMilli(hour) + ")");
        out.flush();
    }

    private static void line(PrintWriter out, String label, String value) {
        out.printf("%-9s  %s%n", label, value);
    }

    /** Control characters, which would break the listing, shown as {@code \}{@code uXXXX}. */
    static String printable(String text) {
        StringBuilder out = new StringBuilder(text.length());
        text.codePoints().forEach(c -> {
            if (Character.isISOControl(c)) {
                out.append(String.format("\\u%04X", c));
            } else {
                out.appendCodePoint(c);
            }
        });
        return out.toString();
    }
}
