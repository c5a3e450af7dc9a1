package dev.tspipe.processor.badinput;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The text forms of the corpus manifest: escapes that can spell any byte string (including ones
 * that are not UTF-8) and repetitions, so that a 1,000-byte device name fits on one line.
 *
 * <table>
 *   <caption>Forms</caption>
 *   <tr><td>{@code \xHH}</td><td>the byte HH, as it is (it may break UTF-8)</td></tr>
 *   <tr><td><code>&#92;uHHHH</code>, <code>&#92;UHHHHHHHH</code></td><td>the UTF-8 bytes of that code point</td></tr>
 *   <tr><td>{@code \t}, {@code \n}</td><td>tab, newline</td></tr>
 *   <tr><td>{@code \} and any other character</td><td>that character (for {@code \\ \; \, \: \= \{ \} \|})</td></tr>
 *   <tr><td>{@code {text*n}}</td><td>text, n times</td></tr>
 *   <tr><td>anything else</td><td>its UTF-8 bytes</td></tr>
 * </table>
 */
final class Text {

    private Text() {
    }

    static byte[] bytes(String text) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int i = 0;
        while (i < text.length()) {
            char c = text.charAt(i);
            if (c == '\\') {
                char next = text.charAt(i + 1);
                switch (next) {
                    case 'x' -> {
                        out.write(Integer.parseInt(text.substring(i + 2, i + 4), 16));
                        i += 4;
                    }
                    case 'u' -> {
                        out.writeBytes(Character.toString(Integer.parseInt(text.substring(i + 2, i + 6), 16))
                                .getBytes(StandardCharsets.UTF_8));
                        i += 6;
                    }
                    case 'U' -> {
                        out.writeBytes(Character.toString(Integer.parseInt(text.substring(i + 2, i + 10), 16))
                                .getBytes(StandardCharsets.UTF_8));
                        i += 10;
                    }
                    case 't' -> {
                        out.write('\t');
                        i += 2;
                    }
                    case 'n' -> {
                        out.write('\n');
                        i += 2;
                    }
                    default -> {
                        out.writeBytes(Character.toString(next).getBytes(StandardCharsets.UTF_8));
                        i += 2;
                    }
                }
            } else if (c == '{') {
                int end = closing(text, i);
                String inner = text.substring(i + 1, end);
                int star = inner.lastIndexOf('*');
                if (star < 0) {
                    throw new IllegalArgumentException("'{" + inner + "}' is not {text*count}");
                }
                byte[] unit = bytes(inner.substring(0, star));
                int count = Integer.parseInt(inner.substring(star + 1));
                for (int n = 0; n < count; n++) {
                    out.writeBytes(unit);
                }
                i = end + 1;
            } else {
                int codePoint = text.codePointAt(i);
                out.writeBytes(Character.toString(codePoint).getBytes(StandardCharsets.UTF_8));
                i += Character.charCount(codePoint);
            }
        }
        return out.toByteArray();
    }

    private static int closing(String text, int open) {
        for (int i = open + 1; i < text.length(); i++) {
            if (text.charAt(i) == '\\') {
                i++;
            } else if (text.charAt(i) == '}') {
                return i;
            }
        }
        throw new IllegalArgumentException("'{' at " + open + " of '" + text + "' is not closed");
    }

    /** Splits at every {@code separator} that is not escaped; the parts keep their escapes. */
    static List<String> split(String text, char separator) {
        List<String> parts = new ArrayList<>();
        int start = 0;
        for (int i = 0; i < text.length(); i++) {
            if (text.charAt(i) == '\\') {
                i++;
            } else if (text.charAt(i) == separator) {
                parts.add(text.substring(start, i));
                start = i + 1;
            }
        }
        parts.add(text.substring(start));
        return parts;
    }

    /** Splits at the first {@code separator} that is not escaped: one part when there is none. */
    static List<String> splitFirst(String text, char separator) {
        for (int i = 0; i < text.length(); i++) {
            if (text.charAt(i) == '\\') {
                i++;
            } else if (text.charAt(i) == separator) {
                return List.of(text.substring(0, i), text.substring(i + 1));
            }
        }
        return List.of(text);
    }
}
