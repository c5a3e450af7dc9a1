package dev.tspipe.embedded;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.Key;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A self-signed certificate made at test time with the JDK's {@code keytool} (no key or certificate
 * is committed): an EC P-256 key whose certificate names {@code localhost} and {@code 127.0.0.1},
 * written in the forms servers and clients take: PEM certificate and PKCS#8 key (tspipe's HTTPS),
 * and a PKCS#12 key store (Kafka's listeners).
 *
 * @param certificatePem the certificate, PEM; also what a client trusts
 * @param keyPem         the private key, unencrypted PKCS#8 PEM
 * @param keyStore       key and certificate, PKCS#12, protected by {@code password}
 */
public record SelfSignedCertificate(Path certificatePem, Path keyPem, Path keyStore, String password) {

    /** Makes one in {@code dir}, its files named after {@code name}; valid for two days. */
    public static SelfSignedCertificate create(Path dir, String name) {
        String password = "test-" + Long.toHexString(System.nanoTime());
        Path keyStore = dir.resolve(name + ".p12");
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "keytool").toString(),
                "-genkeypair", "-alias", name, "-keyalg", "EC", "-groupname", "secp256r1", "-sigalg", "SHA256withECDSA",
                "-dname", "CN=" + name, "-ext", "SAN=dns:localhost,ip:127.0.0.1", "-validity", "2",
                "-keystore", keyStore.toString(), "-storetype", "PKCS12", "-storepass", password, "-keypass", password));
        try {
            Files.createDirectories(dir);
            Process keytool = new ProcessBuilder(command).redirectErrorStream(true).start();
            String output = new String(keytool.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!keytool.waitFor(60, TimeUnit.SECONDS) || keytool.exitValue() != 0) {
                throw new IllegalStateException("keytool could not make a certificate: " + output);
            }
            KeyStore store = KeyStore.getInstance("PKCS12");
            try (InputStream in = Files.newInputStream(keyStore)) {
                store.load(in, password.toCharArray());
            }
            Certificate certificate = store.getCertificate(name);
            Key key = store.getKey(name, password.toCharArray());
            Path certificatePem = dir.resolve(name + ".crt.pem");
            Path keyPem = dir.resolve(name + ".key.pem");
            Files.writeString(certificatePem, pem("CERTIFICATE", certificate.getEncoded()));
            Files.writeString(keyPem, pem("PRIVATE KEY", key.getEncoded()));
            return new SelfSignedCertificate(certificatePem, keyPem, keyStore, password);
        } catch (IOException | GeneralSecurityException e) {
            throw new IllegalStateException("cannot make a self-signed certificate in " + dir, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while making a certificate", e);
        }
    }

    private static String pem(String type, byte[] der) {
        return "-----BEGIN " + type + "-----\n" + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII))
                .encodeToString(der) + "\n-----END " + type + "-----\n";
    }
}
