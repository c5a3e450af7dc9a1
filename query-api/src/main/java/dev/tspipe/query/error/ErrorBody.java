package dev.tspipe.query.error;

/** The body of a refusal in tspipe's own dialect: a code a program can test, and a message that says what to fix. */
public record ErrorBody(String error, String message) {
}
