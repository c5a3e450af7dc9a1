package dev.tspipe.app;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** {@code tspipe tokens}: bearer tokens of the HTTP API (docs/security.md). */
@Command(
        name = "tokens",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        usageHelpAutoWidth = true,
        header = "Make bearer tokens for the HTTP API.",
        description = {
                "",
                "With tspipe node --auth-tokens FILE every query needs 'Authorization: Bearer <token>'. The file holds "
                        + "one line per token: the token's SHA-256, the tenant it may read (* for all), its scope "
                        + "(read, write or admin) and a name. Only digests are stored, so the file "
                        + "reveals no token; nodes read it again when it changes.",
                ""
        },
        commandListHeading = "%nCommands:%n",
        footerHeading = "%nExamples:%n",
        footer = {
                "  tspipe tokens create --tenant acme --scope read --name grafana-acme",
                "  tspipe tokens create --tenant '*' --scope admin --name ops --append /etc/tspipe/tokens"
        },
        subcommands = TokensCreateCommand.class)
final class TokensCommand implements Runnable {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }
}
