package dev.tspipe.query.tls;

import org.eclipse.jetty.util.ssl.SslContextFactory;

import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.Optional;

/**
 * HTTPS of the query API: the server's certificate and key (PEM), and what the instances trust when
 * they forward to each other (a PEM file of certificates; the JVM's trust store when none is given).
 * Host names are verified: each instance's certificate must name the host it advertises.
 */
public record HttpTls(Path certificate, Path key, Optional<Path> trusted) {

    /** The server side, read from the files now (an error names the file and what is wrong). */
    public SslContextFactory.Server server() {
        char[] password = randomPassword();
        SslContextFactory.Server factory = new SslContextFactory.Server();
        factory.setKeyStore(PemFiles.keyStore(certificate, key, password));
        factory.setKeyStorePassword(new String(password));
        return factory;
    }

    /** The client side of forwarding between instances. */
    public SslContextFactory.Client client() {
        SslContextFactory.Client factory = new SslContextFactory.Client();
        trusted.ifPresent(pem -> factory.setTrustStore(PemFiles.trustStore(pem)));
        factory.setEndpointIdentificationAlgorithm("HTTPS");
        return factory;
    }

    private static char[] randomPassword() {
        byte[] bytes = new byte[18];
        new SecureRandom().nextBytes(bytes);
        return Base64.getEncoder().encodeToString(bytes).toCharArray();
    }
}
