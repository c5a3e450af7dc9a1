package dev.tspipe.embedded.registry;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;

/**
 * The users of a registry that requires HTTP basic authentication, as Confluent's does with
 * {@code authentication.method=BASIC}: a file of lines {@code user:sha256-of-password} (hex;
 * {@code printf %s 'the password' | sha256sum} makes one), {@code #} comments and blank lines
 * ignored. Only digests are stored; a password is checked by comparing digests in constant time,
 * and an unknown user costs the same comparison as a known one.
 */
public final class RegistryUsers {

    private static final byte[] NO_USER = new byte[32];

    private final Map<String, byte[]> digests;

    private RegistryUsers(Map<String, byte[]> digests) {
        this.digests = Map.copyOf(digests);
    }

    /** Reads the file; an {@link IllegalArgumentException} names the line that is not {@code user:64-hex-digits}. */
    public static RegistryUsers load(Path file) throws IOException {
        return parse(Files.readAllLines(file, StandardCharsets.UTF_8), file.toString());
    }

    static RegistryUsers parse(List<String> lines, String source) {
        Map<String, byte[]> digests = new HashMap<>();
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i).strip();
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            int colon = line.lastIndexOf(':');
            String user = colon > 0 ? line.substring(0, colon) : "";
            String hex = colon > 0 ? line.substring(colon + 1).strip().toLowerCase(java.util.Locale.ROOT) : "";
            if (user.isEmpty() || !hex.matches("[0-9a-f]{64}")) {
                throw new IllegalArgumentException(source + " line " + (i + 1) + ": expected user:sha256-hex-of-password"
                        + " (printf %s 'password' | sha256sum makes the digest)");
            }
            digests.put(user, HexFormat.of().parseHex(hex));
        }
        if (digests.isEmpty()) {
            throw new IllegalArgumentException(source + " names no user: nobody could use the registry");
        }
        return new RegistryUsers(digests);
    }

    /** Whether an {@code Authorization} header value ({@code Basic base64(user:password)}) names a user and its password. */
    public boolean authenticates(String authorization) {
        if (authorization == null || !authorization.regionMatches(true, 0, "Basic ", 0, 6)) {
            return false;
        }
        String credentials;
        try {
            credentials = new String(Base64.getDecoder().decode(authorization.substring(6).strip()), StandardCharsets.UTF_8);
        } catch (IllegalArgumentException notBase64) {
            return false;
        }
        int colon = credentials.indexOf(':');
        if (colon < 0) {
            return false;
        }
        byte[] expected = digests.getOrDefault(credentials.substring(0, colon), NO_USER);
        boolean matches = MessageDigest.isEqual(expected, sha256(credentials.substring(colon + 1)));
        return matches && expected != NO_USER;
    }

    private static byte[] sha256(String password) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(password.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
    }
}
