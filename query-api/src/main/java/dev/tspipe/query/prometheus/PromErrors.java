package dev.tspipe.query.prometheus;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tspipe.query.error.ApiException;

import java.nio.charset.StandardCharsets;

/** Errors in Prometheus' envelope, and those another instance answered, handed on. */
public final class PromErrors {

    private static final ObjectMapper JSON = new ObjectMapper();

    /** The errorType of a query that ran out of time, and the code of its {@link ApiException}. */
    static final String TIMEOUT = "timeout";

    private PromErrors() {
    }

    /**
     * The Prometheus envelope of an error: {@code errorType} {@code timeout} for a query out of time (code
     * {@value #TIMEOUT}), else from the status as Prometheus maps them.
     */
    public static byte[] error(int status, String code, String message) {
        String type = TIMEOUT.equals(code) ? TIMEOUT : switch (status) {
            case 400 -> "bad_data";
            case 422 -> "execution";
            case 404 -> "not_found";
            case 503 -> "unavailable";
            case 500 -> "internal";
            case 401 -> "unauthorized";
            case 403 -> "forbidden";
            default -> status >= 500 ? "internal" : "bad_data";
        };
        return PromJson.error(type, message);
    }

    /**
     * The error another instance answered for a partition, to hand on: its status and message, but a 503 timeout
     * (with {@code Retry-After}) when its errorType is {@code timeout}.
     */
    public static ApiException relayedError(int status, byte[] body) {
        String message = errorMessage(body);
        try {
            if (TIMEOUT.equals(JSON.readTree(body).path("errorType").asText(null))) {
                return ApiException.timeout(message);
            }
        } catch (java.io.IOException notJson) {
            // not Prometheus' envelope: relayed as it is, below
        }
        return ApiException.relayed(status, message);
    }

    /** The message of an error in Prometheus' envelope or tspipe's, or the body itself when it is neither. */
    public static String errorMessage(byte[] body) {
        try {
            com.fasterxml.jackson.databind.JsonNode error = JSON.readTree(body);
            // Prometheus' envelope has the message in "error"; tspipe's own shape (a refusal before any route), in "message".
            String message = error.path(error.has("errorType") ? "error" : "message").asText(null);
            if (message != null) {
                return message;
            }
        } catch (java.io.IOException notJson) {
            // the body as it is, below
        }
        return new String(body, StandardCharsets.UTF_8);
    }
}
