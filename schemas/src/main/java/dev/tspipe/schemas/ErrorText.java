package dev.tspipe.schemas;

import java.util.regex.Pattern;

/**
 * A failure in words for an answer to a client: the messages of an exception and its causes, without Java class
 * names ({@code org.apache.kafka.common.errors.SerializationException: } says nothing a client can act on, and shows
 * the server's internals). The full exception belongs in the server's log.
 */
public final class ErrorText {

    /** A fully qualified exception or error class name, with the ": " that {@link Throwable#toString()} puts after it. */
    private static final Pattern CLASS_NAME =
            Pattern.compile("\\b(?:[a-z][a-z0-9_]*\\.)+[A-Z][A-Za-z0-9_$]*(?:Exception|Error)\\b:?\\s*");

    private ErrorText() {
    }

    /** The first message in {@code error}'s chain of causes, class names removed; {@code fallback} when none has one. */
    public static String describe(Throwable error, String fallback) {
        for (Throwable t = error; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t.getMessage() != null) {
                String words = withoutClassNames(t.getMessage());
                if (!words.isBlank()) {
                    return words;
                }
            }
        }
        return fallback;
    }

    /** {@code text} without fully qualified exception class names. */
    public static String withoutClassNames(String text) {
        return CLASS_NAME.matcher(text).replaceAll("").strip();
    }
}
