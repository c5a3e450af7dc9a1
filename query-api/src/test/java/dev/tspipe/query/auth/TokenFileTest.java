package dev.tspipe.query.auth;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class TokenFileTest {

    private static final SecureRandom RANDOM = new SecureRandom();
    /** Long enough that the poller never runs during a test: each test reads the file itself. */
    private static final Duration NO_POLL = Duration.ofHours(1);

    @TempDir
    Path dir;

    @Test
    void aChangedFileReplacesTheTokensAndABrokenOneKeepsTheLastGoodOnes() throws Exception {
        String first = ApiTokens.newToken(RANDOM);
        String second = ApiTokens.newToken(RANDOM);
        Path file = dir.resolve("tokens");
        Files.writeString(file, ApiTokens.line(first, new Grant("acme", Scope.READ, "first")) + "\n");
        try (TokenFile tokens = TokenFile.open(file, true, NO_POLL)) {
            assertThat(tokens.tokens().find(first)).isPresent();
            assertThat(tokens.valid()).isTrue();

            // Revoked: the first token's line replaced by the second's.
            Files.writeString(file, ApiTokens.line(second, new Grant("acme", Scope.READ, "second")) + "\n");
            tokens.reloadIfChanged();
            assertThat(tokens.tokens().find(first)).isEmpty();
            assertThat(tokens.tokens().find(second)).isPresent();

            // A broken edit: the second token stays usable until the file is right again.
            Files.writeString(file, "not a line\n");
            tokens.reloadIfChanged();
            assertThat(tokens.valid()).isFalse();
            assertThat(tokens.tokens().find(second)).isPresent();

            Files.delete(file);
            tokens.reloadIfChanged();
            assertThat(tokens.valid()).isFalse();
            assertThat(tokens.tokens().find(second)).isPresent();

            Files.writeString(file, "# no tokens left\n");
            tokens.reloadIfChanged();
            assertThat(tokens.valid()).isTrue();
            assertThat(tokens.tokens().size()).isZero();
            assertThat(tokens.tokens().find(second)).isEmpty();
        }
    }

    @Test
    void theFileIsReadAgainByItselfWhenItChanges() throws Exception {
        String token = ApiTokens.newToken(RANDOM);
        Path file = dir.resolve("tokens");
        Files.writeString(file, "");
        try (TokenFile tokens = TokenFile.open(file, false, Duration.ofMillis(50))) {
            assertThat(tokens.tokens().find(token)).isEmpty();
            Files.writeString(file, ApiTokens.line(token, new Grant(null, Scope.READ, "late")) + "\n");
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (tokens.tokens().find(token).isEmpty() && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertThat(tokens.tokens().find(token)).isPresent();
        }
    }

    @Test
    void aMissingOrWrongFileStopsTheStartWithItsNameAndTheLine() throws Exception {
        assertThatThrownBy(() -> TokenFile.open(dir.resolve("absent"), true, NO_POLL))
                .hasMessageContaining("cannot read the tokens file " + dir.resolve("absent"));
        Path file = dir.resolve("tokens");
        Files.writeString(file, "# header\n" + "b".repeat(64) + " acme superuser\n");
        assertThatThrownBy(() -> TokenFile.open(file, true, NO_POLL))
                .hasMessage(file + " line 2: scope 'superuser' is not one of read, write, admin");
    }
}
