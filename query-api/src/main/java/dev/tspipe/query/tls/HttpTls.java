package dev.tspipe.query.tls;

import dev.tspipe.schemas.tls.PemFiles;
import org.eclipse.jetty.util.ssl.SslContextFactory;

import java.nio.file.Path;
import java.util.Optional;

/**
 * HTTPS of the query API: the server's certificate and key (PEM), and what the instances trust when
 * they forward to each other (a PEM file of certificates; the JVM's trust store when none is given).
 * Host names are verified: each instance's certificate must name the host it advertises.
 */
public record HttpTls(Path certificate, Path key, Optional<Path> trusted) {

    /** The server side, read from the files now (an error names the file and what is wrong). */
    public SslContextFactory.Server server() {
        SslContextFactory.Server factory = new SslContextFactory.Server();
        factory.setSslContext(PemFiles.serverContext(certificate, key));
        return factory;
    }

    /** The client side of forwarding between instances. */
    public SslContextFactory.Client client() {
        SslContextFactory.Client factory = new SslContextFactory.Client();
        trusted.ifPresent(pem -> factory.setTrustStore(PemFiles.trustStore(pem)));
        factory.setEndpointIdentificationAlgorithm("HTTPS");
        return factory;
    }
}
