package dev.tspipe.query;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;

/** URL pieces the tests build. */
final class Urls {

    private Urls() {
    }

    /** Text as a path segment or a query parameter: percent-encoded UTF-8, {@code %20} (not {@code +}) for a space. */
    static String segment(String text) {
        return URLEncoder.encode(text, StandardCharsets.UTF_8).replace("+", "%20");
    }
}
