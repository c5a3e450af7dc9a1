package dev.tspipe.query.auth;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The token of an {@code Authorization: Bearer <token>} header (RFC 6750; the scheme is case-insensitive), or of
 * InfluxDB's {@code Authorization: Token <token>}, which its client libraries and Telegraf send.
 */
public final class BearerTokens {

    private static final Pattern BEARER = Pattern.compile("(?i)(?:bearer|token) +([A-Za-z0-9._~+/-]+=*) *");

    private BearerTokens() {
    }

    /** The token, or null when the header is not a bearer token. */
    public static String token(String authorizationHeader) {
        Matcher matcher = BEARER.matcher(authorizationHeader);
        return matcher.matches() ? matcher.group(1) : null;
    }
}
