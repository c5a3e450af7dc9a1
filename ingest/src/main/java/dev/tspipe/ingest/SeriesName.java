package dev.tspipe.ingest;

import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * The metric of a series that has labels besides its device: a Prometheus series, a line-protocol point with tags.
 * Written as Prometheus writes a series, {@code name{label="value",...}}, labels sorted by name, values quoted with
 * {@code \\}, {@code \"} and {@code \n} escaped, names quoted the same way when they are not identifiers
 * (docs/ingest.md, "Series and their labels").
 *
 * <p>The labels are part of the metric because a series is a device and a metric in tspipe's keys: two series that
 * differ only in a label ({@code cpu=cpu0} and {@code cpu=cpu1} of one host, sent with one timestamp by Telegraf) kept
 * as tags alone would share a key, and one would overwrite the other.
 */
public final class SeriesName {

    private static final Pattern IDENTIFIER = Pattern.compile("[a-zA-Z_][a-zA-Z0-9_]*");

    /** A metric taken apart: its name, and its labels (none for a plain metric). */
    public record Parsed(String name, SortedMap<String, String> labels) {
    }

    private SeriesName() {
    }

    /** {@code name}, or {@code name{labels}}; labels with an empty value are left out, as Prometheus treats them as absent. */
    public static String of(String name, Map<String, String> labels) {
        TreeMap<String, String> sorted = new TreeMap<>();
        labels.forEach((label, value) -> {
            if (value != null && !value.isEmpty()) {
                sorted.put(label, value);
            }
        });
        if (sorted.isEmpty()) {
            return name;
        }
        StringBuilder metric = new StringBuilder(name).append('{');
        sorted.forEach((label, value) -> {
            if (metric.charAt(metric.length() - 1) != '{') {
                metric.append(',');
            }
            metric.append(IDENTIFIER.matcher(label).matches() ? label : quote(label)).append('=').append(quote(value));
        });
        return metric.append('}').toString();
    }

    /** The parts of a metric written by {@link #of}; any other metric is a name without labels. */
    public static Parsed parse(String metric) {
        int open = metric.indexOf('{');
        if (open <= 0 || !metric.endsWith("}")) {
            return new Parsed(metric, new TreeMap<>());
        }
        TreeMap<String, String> labels = new TreeMap<>();
        int[] pos = {open + 1};
        int end = metric.length() - 1;
        while (pos[0] < end) {
            String label = metric.charAt(pos[0]) == '"' ? unquote(metric, pos) : identifier(metric, pos);
            if (label == null || pos[0] >= end || metric.charAt(pos[0]) != '=') {
                return new Parsed(metric, new TreeMap<>());
            }
            pos[0]++;
            String value = pos[0] < end && metric.charAt(pos[0]) == '"' ? unquote(metric, pos) : null;
            if (value == null || labels.put(label, value) != null) {
                return new Parsed(metric, new TreeMap<>());
            }
            if (pos[0] < end) {
                if (metric.charAt(pos[0]) != ',' || pos[0] + 1 == end) {
                    return new Parsed(metric, new TreeMap<>());
                }
                pos[0]++;
            }
        }
        if (labels.isEmpty() || pos[0] != end) {
            return new Parsed(metric, new TreeMap<>());
        }
        return new Parsed(metric.substring(0, open), labels);
    }

    private static String quote(String text) {
        return "\"" + text.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n") + "\"";
    }

    private static String identifier(String text, int[] pos) {
        int start = pos[0];
        while (pos[0] < text.length() && (Character.isLetterOrDigit(text.charAt(pos[0])) && text.charAt(pos[0]) < 128
                || text.charAt(pos[0]) == '_')) {
            pos[0]++;
        }
        return pos[0] == start ? null : text.substring(start, pos[0]);
    }

    /** The quoted string at {@code pos[0]}, unescaped, with {@code pos[0]} after its closing quote; null if malformed. */
    private static String unquote(String text, int[] pos) {
        StringBuilder value = new StringBuilder();
        int i = pos[0] + 1;
        while (i < text.length()) {
            char c = text.charAt(i++);
            if (c == '"') {
                pos[0] = i;
                return value.toString();
            }
            if (c == '\\') {
                if (i >= text.length()) {
                    return null;
                }
                char escaped = text.charAt(i++);
                switch (escaped) {
                    case '\\', '"' -> value.append(escaped);
                    case 'n' -> value.append('\n');
                    default -> {
                        return null;
                    }
                }
            } else {
                value.append(c);
            }
        }
        return null;
    }
}
