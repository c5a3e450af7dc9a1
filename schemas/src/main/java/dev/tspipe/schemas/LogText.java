package dev.tspipe.schemas;

/**
 * Text from users (device ids, metric names, error messages that quote them) made safe for a log
 * line: a control character cannot end the line, forge a new one or drive the terminal.
 *
 * <table>
 *   <caption>What is escaped</caption>
 *   <tr><th>character</th><th>written as</th><th>example</th></tr>
 *   <tr><td>{@code \} (backslash)</td><td>{@code \\}</td><td>{@code a\b} → {@code a\\b}</td></tr>
 *   <tr><td>CR, LF, TAB</td><td>{@code \r}, {@code \n}, {@code \t}</td><td>CR LF → {@code \r\n}</td></tr>
 *   <tr><td>other C0 controls (U+0000..U+001F), DEL (U+007F)</td><td>{@code \xNN}</td><td>ESC → {@code \x1b}</td></tr>
 *   <tr><td>C1 controls (U+0080..U+009F), line and paragraph separators (U+2028, U+2029)</td><td>{@code \}{@code uNNNN}</td><td>CSI (U+009B) → {@code \}{@code u009b}</td></tr>
 * </table>
 *
 * Every other character is kept, so ids stay readable; the escaping is one-to-one (a backslash is
 * doubled), so the original can be read back from the log.
 */
public final class LogText {

    private LogText() {
    }

    /** {@code text} with its control characters escaped (see the table); {@code "null"} for null. */
    public static String escape(Object text) {
        return escape(String.valueOf(text), true);
    }

    /**
     * {@code text} with its control characters escaped but backslashes kept: for a whole log message, whose ids a call
     * site may have escaped already (doubling their backslashes again would garble them). Not one-to-one.
     */
    public static String escapeControls(Object text) {
        return escape(String.valueOf(text), false);
    }

    private static String escape(String s, boolean backslash) {
        int first = firstToEscape(s, backslash);
        if (first < 0) {
            return s;
        }
        StringBuilder out = new StringBuilder(s.length() + 16).append(s, 0, first);
        for (int i = first; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '\\' -> out.append(backslash ? "\\\\" : "\\");
                case '\r' -> out.append("\\r");
                case '\n' -> out.append("\\n");
                case '\t' -> out.append("\\t");
                default -> {
                    if (c < 0x20 || c == 0x7f) {
                        out.append("\\x").append(Character.forDigit(c >> 4, 16)).append(Character.forDigit(c & 0xf, 16));
                    } else if (isOtherControl(c)) {
                        out.append(String.format("\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        return out.toString();
    }

    /** Whether {@code text} holds nothing that {@link #escape} would change. */
    public static boolean isPlain(CharSequence text) {
        return firstToEscape(text, true) < 0;
    }

    private static int firstToEscape(CharSequence s, boolean backslash) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if ((backslash && c == '\\') || c < 0x20 || c == 0x7f || isOtherControl(c)) {
                return i;
            }
        }
        return -1;
    }

    private static boolean isOtherControl(char c) {
        return (c >= 0x80 && c <= 0x9f) || c == '\u2028' || c == '\u2029';
    }
}
