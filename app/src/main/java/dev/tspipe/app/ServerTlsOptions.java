package dev.tspipe.app;

import picocli.CommandLine.Option;

import java.nio.file.Path;
import java.util.Optional;

/**
 * {@code --tls-cert FILE --tls-key FILE}: HTTPS from PEM files, for the commands that serve HTTP
 * ({@code node}, {@code registry}; docs/security.md).
 */
final class ServerTlsOptions {

    /** A server's certificate (PEM, the chain after it) and its unencrypted PKCS#8 key (PEM). */
    record Certificate(Path certificate, Path key) {
    }

    @Option(names = "--tls-cert", paramLabel = "FILE",
            description = "Serve HTTPS with this certificate (PEM, the chain after it); needs --tls-key.")
    Path tlsCert;

    @Option(names = "--tls-key", paramLabel = "FILE", description = "The certificate's private key (PEM, unencrypted PKCS#8).")
    Path tlsKey;

    /** The certificate and key when HTTPS is asked for; a {@link UserError} when only one of them is given. */
    Optional<Certificate> certificate() {
        if (tlsCert == null && tlsKey == null) {
            return Optional.empty();
        }
        if (tlsCert == null || tlsKey == null) {
            throw new UserError("HTTPS needs both --tls-cert and --tls-key (PEM files); only "
                    + (tlsCert == null ? "--tls-key" : "--tls-cert") + " was given");
        }
        return Optional.of(new Certificate(tlsCert, tlsKey));
    }
}
