package dev.tspipe.schemas.tls;

import java.io.ByteArrayInputStream;
import javax.net.ssl.KeyManager;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Certificates and keys from PEM files, the form that openssl, cert-manager and Let's Encrypt write,
 * as the in-memory key stores and TLS contexts Java takes: HTTPS of the query API and of the schema
 * registry, and the registry client's trust store.
 */
public final class PemFiles {

    private static final Pattern PRIVATE_KEY = Pattern.compile(
            "-----BEGIN PRIVATE KEY-----([A-Za-z0-9+/=\\s]+)-----END PRIVATE KEY-----");
    private static final String CONVERT = "convert it with: openssl pkcs8 -topk8 -nocrypt -in KEY -out key.pem";

    private PemFiles() {
    }

    /** The certificates of a PEM file, in order (a server's certificate, then the chain). */
    public static List<Certificate> certificates(Path pem) {
        byte[] content = read(pem, "certificate");
        try {
            List<Certificate> certificates = new ArrayList<>(CertificateFactory.getInstance("X.509")
                    .generateCertificates(new ByteArrayInputStream(content)));
            if (certificates.isEmpty()) {
                throw new IllegalArgumentException("no certificate in " + pem + " (expected -----BEGIN CERTIFICATE----- blocks)");
            }
            return certificates;
        } catch (GeneralSecurityException e) {
            throw new IllegalArgumentException("cannot read the certificates in " + pem + " (expected PEM, "
                    + "-----BEGIN CERTIFICATE----- blocks): " + e.getMessage());
        }
    }

    /** The unencrypted PKCS#8 private key ({@code -----BEGIN PRIVATE KEY-----}) of a PEM file: RSA, EC or Ed25519. */
    public static PrivateKey privateKey(Path pem) {
        String content = new String(read(pem, "private key"), StandardCharsets.US_ASCII);
        Matcher matcher = PRIVATE_KEY.matcher(content);
        if (!matcher.find()) {
            if (content.contains("-----BEGIN ENCRYPTED PRIVATE KEY-----")) {
                throw new IllegalArgumentException("the private key in " + pem + " is encrypted; give an unencrypted one "
                        + "readable only by tspipe's user (openssl pkcs8 -topk8 -nocrypt -in KEY -out key.pem)");
            }
            if (content.contains("-----BEGIN RSA PRIVATE KEY-----") || content.contains("-----BEGIN EC PRIVATE KEY-----")) {
                throw new IllegalArgumentException("the private key in " + pem + " is in the older PKCS#1/SEC1 form; " + CONVERT);
            }
            throw new IllegalArgumentException("no private key in " + pem + " (expected -----BEGIN PRIVATE KEY-----)");
        }
        byte[] der = Base64.getMimeDecoder().decode(matcher.group(1));
        PKCS8EncodedKeySpec spec = new PKCS8EncodedKeySpec(der);
        for (String algorithm : List.of("RSA", "EC", "Ed25519", "EdDSA")) {
            try {
                return KeyFactory.getInstance(algorithm).generatePrivate(spec);
            } catch (GeneralSecurityException notThisAlgorithm) {
                // the next one
            }
        }
        throw new IllegalArgumentException("the private key in " + pem + " is not an RSA, EC or Ed25519 key");
    }

    /** A key store holding one key with its certificate chain, for a server; {@code password} protects it in memory only. */
    public static KeyStore keyStore(Path certificatePem, Path keyPem, char[] password) {
        List<Certificate> chain = certificates(certificatePem);
        PrivateKey key = privateKey(keyPem);
        try {
            KeyStore store = KeyStore.getInstance("PKCS12");
            store.load(null, null);
            store.setKeyEntry("tspipe", key, password, chain.toArray(Certificate[]::new));
            return store;
        } catch (GeneralSecurityException | IOException e) {
            throw new IllegalArgumentException("the key in " + keyPem + " does not go with the certificate in "
                    + certificatePem + ": " + e.getMessage());
        }
    }

    /** A trust store of every certificate in a PEM file (certificate authorities, or self-signed certificates). */
    public static KeyStore trustStore(Path pem) {
        List<Certificate> certificates = certificates(pem);
        try {
            KeyStore store = KeyStore.getInstance("PKCS12");
            store.load(null, null);
            for (int i = 0; i < certificates.size(); i++) {
                store.setCertificateEntry("trusted-" + i, certificates.get(i));
            }
            return store;
        } catch (GeneralSecurityException | IOException e) {
            throw new IllegalStateException("cannot hold certificates in memory", e);
        }
    }

    /** A TLS context that presents this certificate and key (a server's). */
    public static SSLContext serverContext(Path certificatePem, Path keyPem) {
        char[] password = randomPassword();
        return context(keyStore(certificatePem, keyPem, password), password, null);
    }

    /**
     * A TLS context from key stores: {@code keys} (may be null) is presented to the peer, {@code trusted} (null: the
     * JVM's trust store) decides which peers are trusted.
     */
    public static SSLContext context(KeyStore keys, char[] keyPassword, KeyStore trusted) {
        try {
            KeyManager[] keyManagers = null;
            if (keys != null) {
                KeyManagerFactory factory = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
                factory.init(keys, keyPassword);
                keyManagers = factory.getKeyManagers();
            }
            TrustManager[] trustManagers = null;
            if (trusted != null) {
                TrustManagerFactory factory = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
                factory.init(trusted);
                trustManagers = factory.getTrustManagers();
            }
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(keyManagers, trustManagers, null);
            return context;
        } catch (GeneralSecurityException e) {
            throw new IllegalArgumentException("cannot set up TLS with these keys and certificates: " + e.getMessage(), e);
        }
    }

    /** A key store of a file: {@code type} PEM (certificates only, as a trust store), PKCS12 or JKS. */
    public static KeyStore load(Path file, String type, char[] password) {
        if ("PEM".equalsIgnoreCase(type)) {
            return trustStore(file);
        }
        try (InputStream in = Files.newInputStream(file)) {
            KeyStore store = KeyStore.getInstance(type);
            store.load(in, password);
            return store;
        } catch (IOException | GeneralSecurityException e) {
            throw new IllegalArgumentException("cannot read the " + type + " key store " + file + ": " + e.getMessage());
        }
    }

    private static char[] randomPassword() {
        byte[] bytes = new byte[18];
        new SecureRandom().nextBytes(bytes);
        return Base64.getEncoder().encodeToString(bytes).toCharArray();
    }

    private static byte[] read(Path file, String what) {
        try {
            return Files.readAllBytes(file);
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot read the " + what + " file " + file + ": " + e);
        }
    }
}
