package dev.tspipe.app;

import dev.tspipe.query.auth.ApiTokens;
import dev.tspipe.query.auth.Grant;
import dev.tspipe.query.auth.Scope;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class TokensCommandTest {

    @TempDir
    Path dir;

    @Test
    void createPrintsATokenOnceAndTheLineThatLetsExactlyItIn() {
        CommandRun run = CommandRun.of("tokens", "create", "--tenant", "acme", "--scope", "read", "--name", "grafana-acme");
        assertThat(run.exitCode()).as(run.err()).isZero();
        List<String> lines = run.out().lines().map(String::strip).toList();
        String token = lines.get(1);
        String line = lines.get(3);
        assertThat(token).startsWith(ApiTokens.TOKEN_PREFIX);
        assertThat(line).endsWith("acme  read  grafana-acme").doesNotContain(token);
        ApiTokens tokens = ApiTokens.parse(List.of(line), "printed", true);
        assertThat(tokens.find(token)).contains(new Grant("acme", Scope.READ, "grafana-acme"));

        String other = CommandRun.of("tokens", "create", "--tenant", "acme").out().lines().toList().get(1).strip();
        assertThat(other).isNotEqualTo(token);
        assertThat(tokens.find(other)).isEmpty();
    }

    @Test
    void appendAddsTheLineToTheFile() throws Exception {
        Path file = dir.resolve("tokens");
        Files.writeString(file, "# tokens\n");
        CommandRun first = CommandRun.of("tokens", "create", "--tenant", "*", "--scope", "admin", "--append", file.toString());
        CommandRun second = CommandRun.of("tokens", "create", "--tenant", "globex", "--append", file.toString());
        assertThat(first.exitCode()).isZero();
        assertThat(first.out()).contains("Added to " + file);
        ApiTokens tokens = ApiTokens.parse(Files.readAllLines(file), file.toString(), true);
        assertThat(tokens.size()).isEqualTo(2);
        assertThat(tokens.find(first.out().lines().toList().get(1).strip())).hasValueSatisfying(grant -> {
            assertThat(grant.everyTenant()).isTrue();
            assertThat(grant.scope()).isEqualTo(Scope.ADMIN);
        });
        assertThat(tokens.find(second.out().lines().toList().get(1).strip()))
                .hasValueSatisfying(grant -> assertThat(grant.tenant()).isEqualTo("globex"));
    }

    @Test
    void wrongOptionsSayWhatToFix() {
        CommandRun admin = CommandRun.of("tokens", "create", "--tenant", "acme", "--scope", "admin");
        assertThat(admin.exitCode()).isNotZero();
        assertThat(admin.err()).contains("an admin token is for every tenant: use --tenant '*'");
        CommandRun scope = CommandRun.of("tokens", "create", "--tenant", "acme", "--scope", "owner");
        assertThat(scope.err()).contains("--scope: scope 'owner' is not one of read, write, admin");
        assertThat(CommandRun.of("tokens", "create").err()).contains("Missing required option: '--tenant=TENANT'");
    }

    @Test
    void nodeRefusesHalfAnHttpsSetting() {
        CommandRun keyless = CommandRun.of("node", "--bootstrap-servers", "127.0.0.1:1", "--tls-cert", "node.crt");
        assertThat(keyless.exitCode()).isNotZero();
        assertThat(keyless.err()).contains("HTTPS needs both --tls-cert and --tls-key (PEM files); only --tls-cert was given");
    }

    @Test
    void helpListsTheCommandAndItsOptions() {
        assertThat(CommandRun.of("--help").out()).contains("tspipe tokens create --tenant acme --scope read");
        CommandRun help = CommandRun.of("tokens", "create", "--help");
        assertThat(help.out()).contains("--tenant=TENANT", "--scope=SCOPE", "--append=FILE", "(default: read)");
        assertThat(CommandRun.of("node", "--help").out()).contains("--auth-tokens=FILE", "--tls-cert=FILE", "--tls-key=FILE",
                "--tls-ca=FILE");
    }
}
