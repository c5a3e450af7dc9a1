package dev.tspipe.app;

import dev.tspipe.query.auth.ApiTokens;
import dev.tspipe.query.auth.Grant;
import dev.tspipe.query.auth.Scope;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.SecureRandom;
import java.util.List;
import java.util.concurrent.Callable;

/** {@code tspipe tokens create}: a new random token, printed once, and its line for the tokens file. */
@Command(
        name = "create",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        usageHelpAutoWidth = true,
        header = "Make a new token and the line of the tokens file that lets it in.",
        description = {
                "",
                "Prints the token (shown this once: give it to its user) and the line to add to the tokens file; "
                        + "with --append, adds the line itself. Revoke a token by removing its line.",
                ""
        })
final class TokensCreateCommand implements Callable<Integer> {

    @Option(names = "--tenant", paramLabel = "TENANT", required = true,
            description = "The tenant whose series the token reads, or * for every tenant (single-tenant deployments: *).")
    String tenant;

    @Option(names = "--scope", paramLabel = "SCOPE", defaultValue = "read",
            description = "read (the series endpoints), write (also writes) or admin (every tenant, /metrics and "
                    + "/api/v1/stats; needs --tenant '*') (default: ${DEFAULT-VALUE}).")
    String scope;

    @Option(names = "--name", paramLabel = "NAME",
            description = "Who or what uses the token, written at the end of its line so that the file says whose "
                    + "line to remove to revoke it.")
    String name;

    @Option(names = "--append", paramLabel = "FILE", description = "Add the line to this tokens file (created if missing).")
    Path append;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        Scope parsedScope;
        try {
            parsedScope = Scope.parse(scope);
        } catch (IllegalArgumentException e) {
            throw new UserError("--scope: " + e.getMessage());
        }
        if (tenant.isBlank() || tenant.chars().anyMatch(Character::isWhitespace)) {
            throw new UserError("--tenant must be a tenant id without spaces, or *");
        }
        if (name != null && name.contains("\n")) {
            throw new UserError("--name must be one line");
        }
        Grant grant = new Grant(tenant.equals(Grant.EVERY_TENANT) ? null : tenant, parsedScope, name);
        if (grant.tenant() != null && parsedScope == Scope.ADMIN) {
            throw new UserError("an admin token is for every tenant: use --tenant '*'");
        }
        String token = ApiTokens.newToken(new SecureRandom());
        String line = ApiTokens.line(token, grant);
        PrintWriter out = spec.commandLine().getOut();
        out.println("Token (shown once; give it to its user, who sends it as 'Authorization: Bearer <token>'):");
        out.println("  " + token);
        if (append == null) {
            out.println("Line for the tokens file (tspipe node --auth-tokens FILE):");
            out.println("  " + line);
        } else {
            try {
                Files.write(append, List.of(line), StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
            } catch (IOException e) {
                throw new UserError("cannot add the line to " + append + ": " + e.getMessage());
            }
            out.println("Added to " + append + " (nodes that use it take the token within a second):");
            out.println("  " + line);
        }
        out.flush();
        return 0;
    }
}
