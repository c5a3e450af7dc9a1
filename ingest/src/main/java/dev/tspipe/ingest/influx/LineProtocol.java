package dev.tspipe.ingest.influx;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A parser of InfluxDB line protocol (docs/ingest.md, "InfluxDB line protocol"), as InfluxDB 2 and
 * Telegraf write it:
 *
 * <pre>measurement[,tag=value...] field=value[,field=value...] [timestamp]</pre>
 *
 * Escapes as InfluxDB's: in a measurement {@code \,} and {@code \ }; in tag keys, tag values and field
 * keys {@code \,}, {@code \=} and {@code \ }; in a string field {@code \"} and {@code \\}. Field values:
 * floats ({@code 1}, {@code -1.5e3}), integers ({@code 1i}), unsigned integers ({@code 1u}), booleans
 * ({@code t}, {@code T}, {@code true}, {@code True}, {@code TRUE} and the same for false) and strings
 * ({@code "..."}). Blank lines and lines starting with {@code #} are skipped; {@code \r\n} line ends are taken.
 */
public final class LineProtocol {

    private LineProtocol() {
    }

    /** What takes each point of a body with its line number; it may refuse a point with a {@link LineProtocolException}. */
    @FunctionalInterface
    public interface PointConsumer {
        void accept(int line, LinePoint point) throws LineProtocolException;
    }

    /** The points of a body, in order; the first line that is not line protocol stops the parse. */
    public static List<LinePoint> parse(String body) throws LineProtocolException {
        List<LinePoint> points = new ArrayList<>();
        parse(body, (line, point) -> points.add(point));
        return points;
    }

    /** Each point of a body to {@code consumer}, in order; the first line that is not line protocol stops the parse. */
    public static void parse(String body, PointConsumer consumer) throws LineProtocolException {
        int number = 0;
        int start = 0;
        while (start <= body.length()) {
            int end = body.indexOf('\n', start);
            if (end < 0) {
                end = body.length();
            }
            number++;
            String line = body.substring(start, end);
            if (line.endsWith("\r")) {
                line = line.substring(0, line.length() - 1);
            }
            String trimmed = line.strip();
            if (!trimmed.isEmpty() && !trimmed.startsWith("#")) {
                consumer.accept(number, new Parser(line, number).point());
            }
            start = end + 1;
        }
    }

    /** One line, read left to right. */
    private static final class Parser {
        private final String line;
        private final int number;
        private int pos;

        Parser(String line, int number) {
            this.line = line;
            this.number = number;
            while (pos < line.length() && line.charAt(pos) == ' ') {
                pos++;
            }
        }

        LinePoint point() throws LineProtocolException {
            String measurement = token(",  ".toCharArray(), false, "measurement");
            if (measurement.isEmpty()) {
                throw error("the measurement is missing");
            }
            TreeMap<String, String> tags = new TreeMap<>();
            while (pos < line.length() && line.charAt(pos) == ',') {
                pos++;
                String key = token(new char[] {'=', ',', ' '}, true, "tag key");
                expect('=', "tag '" + key + "' has no '=value'");
                String value = token(new char[] {',', ' '}, true, "tag value");
                if (key.isEmpty() || value.isEmpty()) {
                    throw error("a tag needs a key and a value (key=value), got '" + key + "=" + value + "'");
                }
                tags.put(key, value);
            }
            if (pos >= line.length() || line.charAt(pos) != ' ') {
                throw error("no fields: after the measurement and tags comes a space, then field=value");
            }
            skipSpaces();
            Map<String, FieldValue> fields = new LinkedHashMap<>();
            do {
                if (!fields.isEmpty()) {
                    pos++; // the comma
                }
                String key = token(new char[] {'=', ',', ' '}, true, "field key");
                if (key.isEmpty()) {
                    throw error("a field needs a key (key=value)");
                }
                expect('=', "field '" + key + "' has no '=value'");
                fields.put(key, fieldValue(key));
            } while (pos < line.length() && line.charAt(pos) == ',');
            Long timestamp = null;
            if (pos < line.length()) {
                if (line.charAt(pos) != ' ') {
                    throw error("unexpected '" + line.charAt(pos) + "' after field '" + last(fields) + "'");
                }
                skipSpaces();
                if (pos < line.length()) {
                    String text = line.substring(pos).strip();
                    try {
                        timestamp = Long.parseLong(text);
                    } catch (NumberFormatException e) {
                        throw error("the timestamp '" + text + "' is not a whole number (in the unit of precision)");
                    }
                }
            }
            return new LinePoint(measurement, tags, fields, timestamp);
        }

        /** Characters up to the first unescaped stop character; backslash escapes any stop character and space. */
        private String token(char[] stops, boolean escapeEquals, String what) throws LineProtocolException {
            StringBuilder text = new StringBuilder();
            while (pos < line.length()) {
                char c = line.charAt(pos);
                if (c == '\\' && pos + 1 < line.length()) {
                    char next = line.charAt(pos + 1);
                    if (next == ',' || next == ' ' || escapeEquals && next == '=' || next == '\\') {
                        text.append(next);
                        pos += 2;
                        continue;
                    }
                }
                if (isStop(c, stops)) {
                    break;
                }
                text.append(c);
                pos++;
            }
            return text.toString();
        }

        private FieldValue fieldValue(String key) throws LineProtocolException {
            if (pos < line.length() && line.charAt(pos) == '"') {
                pos++;
                StringBuilder text = new StringBuilder();
                while (pos < line.length() && line.charAt(pos) != '"') {
                    char c = line.charAt(pos);
                    if (c == '\\' && pos + 1 < line.length() && (line.charAt(pos + 1) == '"' || line.charAt(pos + 1) == '\\')) {
                        c = line.charAt(pos + 1);
                        pos++;
                    }
                    text.append(c);
                    pos++;
                }
                if (pos >= line.length()) {
                    throw error("the string of field '" + key + "' has no closing quote");
                }
                pos++;
                return new FieldValue.StringValue(text.toString());
            }
            int start = pos;
            while (pos < line.length() && line.charAt(pos) != ',' && line.charAt(pos) != ' ') {
                pos++;
            }
            String text = line.substring(start, pos);
            if (text.isEmpty()) {
                throw error("field '" + key + "' has no value");
            }
            switch (text) {
                case "t", "T", "true", "True", "TRUE":
                    return new FieldValue.BooleanValue(true);
                case "f", "F", "false", "False", "FALSE":
                    return new FieldValue.BooleanValue(false);
                default:
                    break;
            }
            char suffix = text.charAt(text.length() - 1);
            try {
                if (suffix == 'i') {
                    return new FieldValue.IntegerValue(Long.parseLong(text.substring(0, text.length() - 1)));
                }
                if (suffix == 'u') {
                    String digits = text.substring(0, text.length() - 1);
                    if (digits.startsWith("-") || digits.startsWith("+")) {
                        throw new NumberFormatException();
                    }
                    return new FieldValue.UnsignedValue(Long.parseUnsignedLong(digits));
                }
                if (!text.matches("[+-]?(\\d+\\.?\\d*|\\.\\d+)([eE][+-]?\\d+)?")) {
                    throw new NumberFormatException();
                }
                double value = Double.parseDouble(text);
                if (Double.isInfinite(value)) {
                    throw error("field '" + key + "' = " + text + " is beyond a 64-bit float");
                }
                return new FieldValue.FloatValue(value);
            } catch (NumberFormatException e) {
                throw error("field '" + key + "' = " + text + " is not a float (1.5), an integer (1i), an unsigned "
                        + "integer (1u), a boolean (t, false, ...) or a string (\"...\")");
            }
        }

        private void expect(char c, String otherwise) throws LineProtocolException {
            if (pos >= line.length() || line.charAt(pos) != c) {
                throw error(otherwise);
            }
            pos++;
        }

        private void skipSpaces() {
            while (pos < line.length() && line.charAt(pos) == ' ') {
                pos++;
            }
        }

        private static boolean isStop(char c, char[] stops) {
            for (char stop : stops) {
                if (c == stop) {
                    return true;
                }
            }
            return false;
        }

        private static String last(Map<String, FieldValue> fields) {
            String last = null;
            for (String key : fields.keySet()) {
                last = key;
            }
            return last;
        }

        private LineProtocolException error(String reason) {
            return new LineProtocolException(number, reason);
        }
    }
}
