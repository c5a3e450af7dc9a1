package dev.tspipe.query.auth;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;

/**
 * The tokens of a tokens file (docs/security.md): each line is the SHA-256 of one token (hex), the
 * tenant it belongs to ({@code *} for every tenant), its scope and, optionally, a name for logs:
 *
 * <pre>
 * # sha256 of the token                                             tenant  scope  name
 * 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08  acme    read   grafana-acme
 * </pre>
 *
 * Only digests are stored: the file reveals no token. A token is looked up by comparing its digest
 * with every line's, each comparison in constant time and without stopping at a match, so the time
 * an answer takes tells nothing about which tokens exist.
 */
public final class ApiTokens {

    /** The start of every token {@link #newToken} makes (secret scanners recognise it). */
    public static final String TOKEN_PREFIX = "tsp_";
    private static final int TOKEN_BYTES = 32;
    private static final HexFormat HEX = HexFormat.of();

    private record Entry(byte[] digest, Grant grant) {
    }

    private final List<Entry> entries;

    private ApiTokens(List<Entry> entries) {
        this.entries = List.copyOf(entries);
    }

    /**
     * The tokens of a file's lines; {@code #} comments and blank lines are skipped.
     *
     * @param source      how errors name the file
     * @param multiTenant whether the deployment has tenants; without, every token's tenant is {@code *}
     * @throws IllegalArgumentException naming the line and what is wrong with it (never a token)
     */
    public static ApiTokens parse(List<String> lines, String source, boolean multiTenant) {
        List<Entry> entries = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i).strip();
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            String where = source + " line " + (i + 1) + ": ";
            String[] fields = line.split("\\s+", 4);
            if (fields[0].startsWith(TOKEN_PREFIX)) {
                throw new IllegalArgumentException(where + "holds a token itself; the file holds only the SHA-256 of each "
                        + "token (tspipe tokens create prints the line to add). Replace the token, and revoke it: it was stored in clear");
            }
            if (fields.length < 3) {
                throw new IllegalArgumentException(where + "needs at least three fields: <sha256 of the token, hex> <tenant or *> "
                        + "<read|write|admin> [name]");
            }
            byte[] digest;
            try {
                digest = HEX.parseHex(fields[0].toLowerCase(java.util.Locale.ROOT));
            } catch (IllegalArgumentException e) {
                digest = new byte[0];
            }
            if (digest.length != 32) {
                throw new IllegalArgumentException(where + "the first field is not a SHA-256 in hex (64 characters 0-9a-f)");
            }
            Scope scope;
            try {
                scope = Scope.parse(fields[2]);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(where + e.getMessage());
            }
            String tenant = fields[1].equals(Grant.EVERY_TENANT) ? null : fields[1];
            if (tenant != null && scope == Scope.ADMIN) {
                throw new IllegalArgumentException(where + "an admin token is for every tenant: write * as its tenant, or give "
                        + "tenant '" + tenant + "' a read or write token");
            }
            if (tenant != null && !multiTenant) {
                throw new IllegalArgumentException(where + "tenant '" + tenant + "' in a single-tenant deployment: write * as "
                        + "its tenant");
            }
            for (Entry other : entries) {
                if (MessageDigest.isEqual(other.digest(), digest)) {
                    throw new IllegalArgumentException(where + "the same token as an earlier line; keep one of them");
                }
            }
            String name = fields.length > 3 ? fields[3].strip() : "line " + (i + 1);
            entries.add(new Entry(digest, new Grant(tenant, scope, name)));
        }
        return new ApiTokens(entries);
    }

    /** What {@code token} allows; empty when it is none of these tokens. */
    public Optional<Grant> find(String token) {
        byte[] digest = sha256(token);
        Grant found = null;
        for (Entry entry : entries) {
            if (MessageDigest.isEqual(entry.digest(), digest) && found == null) {
                found = entry.grant();
            }
        }
        return Optional.ofNullable(found);
    }

    public int size() {
        return entries.size();
    }

    /** A new random token: {@value #TOKEN_PREFIX} and 32 random bytes in URL-safe base64. */
    public static String newToken(SecureRandom random) {
        byte[] bytes = new byte[TOKEN_BYTES];
        random.nextBytes(bytes);
        return TOKEN_PREFIX + Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    }

    /** The line of the tokens file that lets {@code token} in. */
    public static String line(String token, Grant grant) {
        return HEX.formatHex(sha256(token)) + "  " + grant.tenantLabel() + "  " + grant.scope().label()
                + (grant.name() == null || grant.name().isBlank() ? "" : "  " + grant.name());
    }

    private static byte[] sha256(String token) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(token.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java runtime has SHA-256", e);
        }
    }
}
