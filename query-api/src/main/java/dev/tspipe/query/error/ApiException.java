package dev.tspipe.query.error;

/**
 * An answer other than 200 that the client can act on: HTTP status, a stable error code and a
 * message that says what to fix. Rendered as {@code {"error": code, "message": message}}.
 */
public final class ApiException extends RuntimeException {

    private final int status;
    private final String code;
    private final String retryAfterSeconds;
    private final String wwwAuthenticate;
    private Integer line;

    private ApiException(int status, String code, String message, String retryAfterSeconds) {
        this(status, code, message, retryAfterSeconds, null);
    }

    private ApiException(int status, String code, String message, String retryAfterSeconds, String wwwAuthenticate) {
        super(message, null, false, false);
        this.status = status;
        this.code = code;
        this.retryAfterSeconds = retryAfterSeconds;
        this.wwwAuthenticate = wwwAuthenticate;
    }

    /** 429 with {@code Retry-After}: the server takes no more writes right now. */
    public static ApiException tooManyRequests(String message) {
        return new ApiException(429, "too-many-requests", message, "1");
    }

    /** 413: the request's body is larger than the API takes; the message says the limit. */
    public static ApiException tooLarge(String message) {
        return new ApiException(413, "too-large", message, null);
    }

    /** 401 with {@code WWW-Authenticate: Bearer}: the request has no token, or one that no instance knows (RFC 6750). */
    public static ApiException unauthorized(String message) {
        return new ApiException(401, "unauthorized", message, null, "Bearer realm=\"tspipe\"");
    }

    /** 403: the token is valid but does not allow this request; the message says what it allows. */
    public static ApiException forbidden(String message) {
        return new ApiException(403, "forbidden", message, null);
    }

    /** 400: a parameter is missing or malformed; the message names it and its accepted form. */
    public static ApiException badParameter(String parameter, String message) {
        return new ApiException(400, "bad-parameter", parameter + ": " + message, null);
    }

    /** 422: the request is well formed but asks for more than one answer may compute; the message says the bound. */
    public static ApiException unprocessable(String message) {
        return new ApiException(422, "too-much", message, null);
    }

    /** The 4xx another instance answered, handed on to the client with its status and message. */
    public static ApiException relayed(int status, String message) {
        return new ApiException(status, "relayed", message, null);
    }

    /** An answer of {@code status} with {@code code}, for another instance that reads the code (an internal route's). */
    public static ApiException relayed(int status, String code, String message) {
        return new ApiException(status, code, message, null);
    }

    /** 400 for a line of a written body: {@link #badParameter} that also names the line (InfluxDB's errors carry it). */
    public static ApiException badLine(int line, String parameter, String message) {
        ApiException e = badParameter(parameter, message);
        e.line = line;
        return e;
    }

    /** 404: nothing is stored under what the request names. */
    public static ApiException notFound(String code, String message) {
        return new ApiException(404, code, message, null);
    }

    /** 503 with {@code Retry-After}: the data is not queryable right now (rebalance, restore). */
    public static ApiException unavailable(String message) {
        return new ApiException(503, "unavailable", message, "1");
    }

    /**
     * 503 with {@code Retry-After}: the query took longer than its time budget (code {@code timeout}, which Prometheus'
     * envelope names as its errorType).
     */
    public static ApiException timeout(String message) {
        return new ApiException(503, "timeout", message, "1");
    }

    public int status() {
        return status;
    }

    public String code() {
        return code;
    }

    /** The line of a written body that was refused (from 1), or null. */
    public Integer line() {
        return line;
    }

    /** The {@code Retry-After} header value, or null. */
    public String retryAfterSeconds() {
        return retryAfterSeconds;
    }

    /** The {@code WWW-Authenticate} header value, or null. */
    public String wwwAuthenticate() {
        return wwwAuthenticate;
    }
}
