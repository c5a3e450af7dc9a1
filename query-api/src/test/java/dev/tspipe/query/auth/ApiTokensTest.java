package dev.tspipe.query.auth;

import org.junit.jupiter.api.Test;

import java.security.SecureRandom;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ApiTokensTest {

    private static final SecureRandom RANDOM = new SecureRandom();

    @Test
    void aCreatedTokensLineLetsExactlyThatTokenIn() {
        String acme = ApiTokens.newToken(RANDOM);
        String ops = ApiTokens.newToken(RANDOM);
        assertThat(acme).startsWith("tsp_").hasSize(4 + 43).matches("tsp_[A-Za-z0-9_-]+");
        ApiTokens tokens = ApiTokens.parse(List.of(
                "# comment",
                "",
                ApiTokens.line(acme, new Grant("acme", Scope.READ, "grafana acme")),
                ApiTokens.line(ops, new Grant(null, Scope.ADMIN, null))), "tokens", true);
        assertThat(tokens.size()).isEqualTo(2);
        assertThat(tokens.find(acme)).contains(new Grant("acme", Scope.READ, "grafana acme"));
        assertThat(tokens.find(ops)).contains(new Grant(null, Scope.ADMIN, "line 4"));
        assertThat(tokens.find(acme + "x")).isEmpty();
        assertThat(tokens.find(ApiTokens.newToken(RANDOM))).isEmpty();
        assertThat(tokens.find("")).isEmpty();
    }

    @Test
    void theFileHoldsNoTokenOnlyItsDigest() {
        String token = ApiTokens.newToken(RANDOM);
        String line = ApiTokens.line(token, new Grant("acme", Scope.WRITE, "ingest"));
        assertThat(line).doesNotContain(token).doesNotContain(token.substring(4)).matches("[0-9a-f]{64}  acme  write  ingest");
    }

    @Test
    void scopesIncludeTheOnesBefore() {
        assertThat(Scope.ADMIN.includes(Scope.READ)).isTrue();
        assertThat(Scope.WRITE.includes(Scope.READ)).isTrue();
        assertThat(Scope.READ.includes(Scope.WRITE)).isFalse();
        assertThat(Scope.WRITE.includes(Scope.ADMIN)).isFalse();
    }

    @Test
    void wrongLinesAreRefusedWithTheLineAndWhatToFixButNeverTheToken() {
        String digest = "a".repeat(64);
        String token = ApiTokens.newToken(RANDOM);
        assertRefused(List.of("# tokens", token + " acme read"), "tokens line 2: holds a token itself", token);
        assertRefused(List.of(digest + " acme"), "tokens line 1: needs at least three fields", null);
        assertRefused(List.of("abc acme read"), "tokens line 1: the first field is not a SHA-256", null);
        assertRefused(List.of(digest + " acme owner"), "tokens line 1: scope 'owner' is not one of read, write, admin", null);
        assertRefused(List.of(digest + " acme admin"), "tokens line 1: an admin token is for every tenant", null);
        assertRefused(List.of(digest + " * read", digest.toUpperCase() + " acme read"),
                "tokens line 2: the same token as an earlier line", null);
        assertThatThrownBy(() -> ApiTokens.parse(List.of(digest + " acme read"), "tokens", false))
                .hasMessageStartingWith("tokens line 1: tenant 'acme' in a single-tenant deployment: write * as its tenant");
        assertThat(ApiTokens.parse(List.of(digest + " * read"), "tokens", false).size()).isEqualTo(1);
    }

    @Test
    void bearerHeadersAreReadAsRfc6750Says() {
        assertThat(BearerTokens.token("Bearer tsp_abc-_9")).isEqualTo("tsp_abc-_9");
        assertThat(BearerTokens.token("bearer  tsp_abc")).isEqualTo("tsp_abc");
        assertThat(BearerTokens.token("Basic dXNlcjpwdw==")).isNull();
        assertThat(BearerTokens.token("Bearer")).isNull();
        assertThat(BearerTokens.token("Bearer a b")).isNull();
    }

    private static void assertRefused(List<String> lines, String message, String secret) {
        assertThatThrownBy(() -> ApiTokens.parse(lines, "tokens", true))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith(message)
                .satisfies(e -> {
                    if (secret != null) {
                        assertThat(e.getMessage()).doesNotContain(secret);
                    }
                });
    }
}
