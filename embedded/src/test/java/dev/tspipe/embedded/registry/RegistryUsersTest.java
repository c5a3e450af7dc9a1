package dev.tspipe.embedded.registry;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class RegistryUsersTest {

    /** SHA-256 of "secret", as {@code printf %s secret | sha256sum} prints it. */
    private static final String SECRET_DIGEST = "2bb80d537b1da3e38bd30361aa855686bde0eacd7162fef6a25fe97bf527a25b";

    private static String basic(String credentials) {
        return "Basic " + Base64.getEncoder().encodeToString(credentials.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void aUserWithTheRightPasswordIsAuthenticatedAndNoOneElse() {
        RegistryUsers users = RegistryUsers.parse(List.of("# who may use the registry", "", "ops:" + SECRET_DIGEST.toUpperCase()), "users");
        assertThat(users.authenticates(basic("ops:secret"))).isTrue();
        assertThat(users.authenticates("basic " + basic("ops:secret").substring(6))).as("the scheme is case-insensitive").isTrue();
        assertThat(users.authenticates(basic("ops:Secret"))).isFalse();
        assertThat(users.authenticates(basic("dev:secret"))).isFalse();
        assertThat(users.authenticates(basic("ops"))).isFalse();
        assertThat(users.authenticates(null)).isFalse();
        assertThat(users.authenticates("Bearer secret")).isFalse();
        assertThat(users.authenticates("Basic %%%")).isFalse();
    }

    @Test
    void aLineThatIsNotUserColonDigestIsRefusedWithItsNumber() {
        assertThatThrownBy(() -> RegistryUsers.parse(List.of("ops:" + SECRET_DIGEST, "dev:secret"), "users.txt"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("users.txt line 2")
                .hasMessageNotContaining("secret\"");
        assertThatThrownBy(() -> RegistryUsers.parse(List.of("# nobody"), "users.txt"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("names no user");
    }
}
