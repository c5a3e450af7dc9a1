package dev.tspipe.app;

import dev.tspipe.query.tls.HttpTls;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.nio.file.Path;
import java.util.Optional;

/**
 * The HTTP API's security options of {@code tspipe node} (docs/security.md): bearer tokens bound to
 * tenants, and HTTPS from PEM files. Like every option, each also comes from the environment
 * ({@code TSPIPE_AUTH_TOKENS}, {@code TSPIPE_TLS_CERT}, ...) or the config file.
 */
final class HttpSecurityOptions {

    @Option(names = "--auth-tokens", paramLabel = "FILE",
            description = "Require a bearer token on every route but /health, /ready and /openapi.json: the file's "
                    + "lines are '<sha256 of a token> <tenant or *> <read|write|admin> [name]' (tspipe tokens create "
                    + "prints one). Re-read when it changes: a removed line revokes its token without a restart.")
    Path authTokens;

    @Mixin
    ServerTlsOptions server;

    @Option(names = "--tls-ca", paramLabel = "FILE",
            description = "Certificates (PEM) that the other instances' certificates are checked against when a query is "
                    + "forwarded over HTTPS (default: the JVM's trust store).")
    Path tlsCa;

    /** HTTPS settings when a certificate is given; a {@link UserError} when the options do not go together. */
    Optional<HttpTls> tls() {
        Optional<ServerTlsOptions.Certificate> certificate = server.certificate();
        if (certificate.isEmpty() && tlsCa != null) {
            throw new UserError("--tls-ca is for forwarding over HTTPS: give --tls-cert and --tls-key too, or leave it out");
        }
        return certificate.map(c -> new HttpTls(c.certificate(), c.key(), Optional.ofNullable(tlsCa)));
    }

    /** The tokens file, if the API requires tokens. */
    Optional<Path> authTokens() {
        return Optional.ofNullable(authTokens);
    }
}
