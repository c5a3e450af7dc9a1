package dev.tspipe.query.promql;

import java.util.regex.Pattern;

/**
 * The characters of a query as PromQL's lexer reads them: strings with their escapes, durations, identifiers, and
 * the position of every error. {@link PromQl} parses expressions from what it reads.
 */
abstract class PromQlScanner {

    private static final Pattern DURATION_PART = Pattern.compile("(\\d+)(ms|s|m|h|d|w|y)");
    /** The longest range or duration taken: 10,000 years. */
    static final long MAX_DURATION_MILLIS = 10_000L * 31_536_000_000L;

    final String query;
    int pos;

    PromQlScanner(String query) {
        this.query = query;
    }

    String string() throws PromQlException {
        if (atEnd()) {
            throw error("expected a quoted string");
        }
        char quote = peek();
        if (quote != '"' && quote != '\'' && quote != '`') {
            throw error("expected a quoted string");
        }
        int start = pos;
        pos++;
        StringBuilder value = new StringBuilder();
        while (!atEnd() && peek() != quote) {
            char c = query.charAt(pos++);
            if (c == '\\' && quote != '`') {
                if (atEnd()) {
                    break;
                }
                char escaped = query.charAt(pos++);
                switch (escaped) {
                    case 'n' -> value.append('\n');
                    case 't' -> value.append('\t');
                    case '\\', '"', '\'' -> value.append(escaped);
                    default -> throw new PromQlException(pos - 2, "unknown escape \\" + escaped + " in a string");
                }
            } else {
                value.append(c);
            }
        }
        if (atEnd()) {
            throw new PromQlException(start, "the string has no closing " + quote);
        }
        pos++;
        return value.toString();
    }

    long duration() throws PromQlException {
        int start = pos;
        while (!atEnd() && (Character.isLetterOrDigit(peek()))) {
            pos++;
        }
        String text = query.substring(start, pos);
        var matcher = DURATION_PART.matcher(text);
        long millis = 0;
        int end = 0;
        while (matcher.find() && matcher.start() == end) {
            long unit = switch (matcher.group(2)) {
                case "ms" -> 1L;
                case "s" -> 1_000L;
                case "m" -> 60_000L;
                case "h" -> 3_600_000L;
                case "d" -> 86_400_000L;
                case "w" -> 604_800_000L;
                default -> 31_536_000_000L;
            };
            try {
                millis = Math.addExact(millis, Math.multiplyExact(Long.parseLong(matcher.group(1)), unit));
            } catch (ArithmeticException | NumberFormatException e) {
                throw new PromQlException(start, "the duration " + text + " is too long");
            }
            end = matcher.end();
        }
        if (millis > MAX_DURATION_MILLIS) {
            throw new PromQlException(start, "the duration " + text + " is longer than 10,000 years");
        }
        if (text.isEmpty() || end != text.length() || millis == 0) {
            throw new PromQlException(start, "'" + text + "' is not a duration such as 5m, 1h30m or 30s");
        }
        return millis;
    }

    String identifier(boolean metric) throws PromQlException {
        int start = pos;
        while (!atEnd() && (Character.isLetterOrDigit(peek()) && peek() < 128 || peek() == '_' || metric && peek() == ':')) {
            if (pos == start && Character.isDigit(peek())) {
                break;
            }
            pos++;
        }
        if (pos == start) {
            throw error(atEnd() ? "unexpected end of the query" : "unexpected '" + peek() + "'");
        }
        return query.substring(start, pos);
    }

    void expect(char c) throws PromQlException {
        if (!peekIs(c)) {
            throw error(atEnd() ? "expected '" + c + "' at the end" : "expected '" + c + "', got '" + peek() + "'");
        }
        pos++;
    }

    boolean peekWord(String word) {
        if (!query.startsWith(word, pos)) {
            return false;
        }
        int after = pos + word.length();
        return after >= query.length() || !(Character.isLetterOrDigit(query.charAt(after)) || query.charAt(after) == '_');
    }

    boolean peekIs(char c) {
        return !atEnd() && peek() == c;
    }

    char peek() {
        return query.charAt(pos);
    }

    boolean atEnd() {
        return pos >= query.length();
    }

    void skipSpace() {
        while (!atEnd() && Character.isWhitespace(peek())) {
            pos++;
        }
    }

    String rest() {
        String rest = query.substring(pos);
        return rest.length() > 20 ? rest.substring(0, 20) + "..." : rest;
    }

    PromQlException error(String reason) {
        return new PromQlException(pos, reason);
    }
}
