package dev.tspipe.query.http;

import dev.tspipe.query.error.ApiException;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * Refuses a path or query string that is not percent-encoded UTF-8, before any route reads it.
 *
 * <p>The query string is decoded leniently below: a parameter with a broken escape is dropped
 * ({@code limit=%zz} would mean "no limit") and invalid UTF-8 ({@code %C3%28}) becomes U+FFFD, so a
 * client's mistake would be answered as some other query. Jetty checks the path, but not the path
 * parameters after a {@code ;} ({@code /x;a=%zz}), which Javalin then fails to decode. Control
 * characters ({@code %00} .. {@code %1F}, {@code %7F} .. U+009F) are refused too: no name can hold them.
 */
final class UriCheck {

    private UriCheck() {
    }

    /** Throws a 400 for {@code path} when a segment of the raw path is not percent-encoded UTF-8. */
    static void requireWellFormedPath(String rawPath) {
        for (String segment : rawPath.split("/", -1)) {
            if (decode(segment, false) == null) {
                throw ApiException.badParameter("path", "the segment '" + printable(segment) + "' is not percent-encoded "
                        + "UTF-8 without control characters; encode device and metric names as UTF-8, each byte outside "
                        + "A-Z a-z 0-9 - . _ ~ as %XX");
            }
        }
    }

    /** Throws a 400 that names the parameter (or "query string" when its name is what is broken). */
    static void requireWellFormedQuery(String rawQuery) {
        if (rawQuery == null || rawQuery.isEmpty()) {
            return;
        }
        for (String pair : rawQuery.split("&", -1)) {
            int equals = pair.indexOf('=');
            String rawName = equals < 0 ? pair : pair.substring(0, equals);
            String name = decode(rawName, true);
            if (name == null) {
                throw ApiException.badParameter("query string", "the parameter name '" + printable(rawName)
                        + "' is not percent-encoded UTF-8 without control characters; encode every name and value "
                        + "as UTF-8, each byte outside A-Z a-z 0-9 - . _ ~ as %XX");
            }
            if (equals >= 0 && decode(pair.substring(equals + 1), true) == null) {
                throw ApiException.badParameter(printable(name), "the value '" + printable(pair.substring(equals + 1))
                        + "' is not percent-encoded UTF-8 without control characters; encode it as UTF-8, each byte "
                        + "outside A-Z a-z 0-9 - . _ ~ as %XX");
            }
        }
    }

    /**
     * The decoded text ({@code plusIsSpace} in a query string), or null when an escape is broken, the bytes
     * are not UTF-8 or hold a control character.
     */
    static String decode(String raw, boolean plusIsSpace) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(raw.length());
        for (int i = 0; i < raw.length(); i++) {
            char c = raw.charAt(i);
            if (c == '%') {
                if (i + 2 >= raw.length()) {
                    return null;
                }
                int high = Character.digit(raw.charAt(i + 1), 16);
                int low = Character.digit(raw.charAt(i + 2), 16);
                if (high < 0 || low < 0) {
                    return null;
                }
                bytes.write(high << 4 | low);
                i += 2;
            } else if (c == '+' && plusIsSpace) {
                bytes.write(' ');
            } else if (c < 0x80) {
                bytes.write(c);
            } else {
                return null;    // not percent-encoded at all: Jetty reads the request line as ISO-8859-1
            }
        }
        String text;
        try {
            text = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes.toByteArray())).toString();
        } catch (CharacterCodingException e) {
            return null;
        }
        for (int i = 0; i < text.length(); i++) {
            if (Character.isISOControl(text.charAt(i))) {
                return null;
            }
        }
        return text;
    }

    /** {@code raw} as it can be shown in a message: at most 64 characters, escapes left as they are. */
    private static String printable(String raw) {
        StringBuilder shown = new StringBuilder();
        for (int i = 0; i < raw.length() && shown.length() < 64; i++) {
            char c = raw.charAt(i);
            shown.append(c >= 0x20 && c < 0x7F ? c : '?');
        }
        return raw.length() > 64 ? shown + "..." : shown.toString();
    }
}
