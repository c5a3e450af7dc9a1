package dev.tspipe.model.analysis;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * A key layout to lint with {@code tspipe keys check} (docs/row-keys.md, "Checking a layout"): ordered segments
 * and the delimiter between them. Written as the key looks, segments in braces and the delimiter between them,
 * {@code {device:id}#{metric:enum}#{ts:timestamp:19:reversed}}, or as JSON,
 * {@code {"delimiter": "#", "segments": [{"name": "device", "kind": "id"}, ...]}}.
 *
 * <p>In braces: {@code name:kind}, then optionally the width in characters and the flags {@code reversed} (a
 * timestamp stored as MAX - t), {@code monotonic} (an id that grows: an order number, an auto-increment) and
 * {@code example=VALUE}.
 */
public record KeyLayoutProposal(String delimiter, List<Segment> segments) {

    /** What a segment holds. */
    public enum Kind {
        ID, ENUM, NUMBER, TIMESTAMP, HASH;

        public String label() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** One segment; {@code width} null when it has none, {@code example} null when none is given. */
    public record Segment(String name, Kind kind, Integer width, boolean reversed, boolean monotonic, String example) {
    }

    private static final ObjectMapper JSON = new ObjectMapper();

    /**
     * The layout of {@code text}: JSON when it is a JSON object with "segments", else the brace form; an
     * {@link InvalidLayoutException} that says what to fix when it is neither.
     */
    public static KeyLayoutProposal parse(String text) {
        String trimmed = text.strip();
        if (trimmed.isEmpty()) {
            throw new InvalidLayoutException("the layout is empty; write it as the key looks, such as '{device:id}#{metric:enum}#"
                    + "{ts:timestamp:19:reversed}'");
        }
        JsonNode json = null;
        try {
            json = JSON.readTree(trimmed);
        } catch (IOException notJson) {
            // the brace form, below
        }
        return json != null && json.isObject() && json.has("segments") ? fromJson(json) : fromText(trimmed);
    }

    private static KeyLayoutProposal fromText(String text) {
        List<Segment> segments = new ArrayList<>();
        Set<String> delimiters = new HashSet<>();
        int pos = 0;
        while (pos < text.length()) {
            if (text.charAt(pos) != '{') {
                throw new InvalidLayoutException("layout: expected '{' at character " + (pos + 1) + " of '" + text + "'; a segment is "
                        + "{name:kind[:width][:reversed][:monotonic][:example=VALUE]}");
            }
            int close = text.indexOf('}', pos);
            if (close < 0) {
                throw new InvalidLayoutException("layout: the segment at character " + (pos + 1) + " has no closing '}'");
            }
            segments.add(segment(text.substring(pos + 1, close)));
            pos = close + 1;
            int next = text.indexOf('{', pos);
            if (next < 0) {
                if (pos < text.length()) {
                    throw new InvalidLayoutException("layout: '" + text.substring(pos) + "' follows the last segment; end it with '}'");
                }
                break;
            }
            delimiters.add(text.substring(pos, next));
            pos = next;
        }
        return checked(delimiters.size() == 1 ? delimiters.iterator().next() : delimiters.isEmpty() ? "" : null,
                segments, delimiters);
    }

    private static Segment segment(String spec) {
        String[] parts = spec.split(":", -1);
        if (parts.length < 2 || parts[0].isBlank()) {
            throw new InvalidLayoutException("layout: segment '{" + spec + "}' needs a name and a kind, such as {device:id}");
        }
        Kind kind = kind(parts[1], parts[0]);
        Integer width = null;
        boolean reversed = false;
        boolean monotonic = false;
        String example = null;
        for (int i = 2; i < parts.length; i++) {
            String part = parts[i];
            if (part.matches("\\d{1,4}")) {
                width = Integer.parseInt(part);
            } else if (part.equals("reversed")) {
                reversed = true;
            } else if (part.equals("monotonic")) {
                monotonic = true;
            } else if (part.startsWith("example=")) {
                example = String.join(":", java.util.Arrays.copyOfRange(parts, i, parts.length)).substring("example=".length());
                break;
            } else {
                throw new InvalidLayoutException("layout: '" + part + "' in segment '{" + spec + "}' is none of a width (digits), "
                        + "reversed, monotonic, example=VALUE");
            }
        }
        return new Segment(parts[0].strip(), kind, width, reversed, monotonic, example);
    }

    private static KeyLayoutProposal fromJson(JsonNode json) {
        List<Segment> segments = new ArrayList<>();
        for (JsonNode s : json.get("segments")) {
            String name = s.path("name").asText("");
            if (name.isBlank()) {
                throw new InvalidLayoutException("layout: every segment needs a \"name\"");
            }
            segments.add(new Segment(name, kind(s.path("kind").asText(""), name),
                    s.hasNonNull("width") ? s.get("width").asInt() : null, s.path("reversed").asBoolean(false),
                    s.path("monotonic").asBoolean(false), s.hasNonNull("example") ? s.get("example").asText() : null));
        }
        String delimiter = json.path("delimiter").asText("");
        return checked(delimiter, segments, Set.of(delimiter));
    }

    private static Kind kind(String text, String segment) {
        for (Kind kind : Kind.values()) {
            if (kind.label().equals(text.strip().toLowerCase(Locale.ROOT))) {
                return kind;
            }
        }
        throw new InvalidLayoutException("layout: segment '" + segment + "' has kind '" + text + "'; it is one of id, enum, number, "
                + "timestamp, hash");
    }

    private static KeyLayoutProposal checked(String delimiter, List<Segment> segments, Set<String> delimiters) {
        if (segments.isEmpty()) {
            throw new InvalidLayoutException("layout: no segments");
        }
        if (delimiter == null) {
            throw new InvalidLayoutException("layout: the segments are separated by different delimiters " + delimiters
                    + "; a key has one");
        }
        if (segments.size() > 1 && delimiter.length() != 1) {
            throw new InvalidLayoutException("layout: the delimiter must be one character, not '" + delimiter + "'");
        }
        return new KeyLayoutProposal(delimiter, List.copyOf(segments));
    }
}
