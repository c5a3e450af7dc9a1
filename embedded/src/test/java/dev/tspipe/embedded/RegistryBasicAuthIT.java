package dev.tspipe.embedded;

import dev.tspipe.embedded.junit.EmbeddedKafkaExtension;
import dev.tspipe.embedded.registry.RegistryUsers;
import dev.tspipe.schemas.serde.AvroSerdeConfig;
import dev.tspipe.schemas.serde.AvroSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.Base64;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A registry that requires HTTP basic authentication: every route answers 401 with Confluent's
 * error shape and {@code WWW-Authenticate} unless the credentials match a user of its file; the
 * serde passes with credentials in the URL or in Confluent's {@code basic.auth.user.info}.
 */
class RegistryBasicAuthIT {

    @RegisterExtension
    static final EmbeddedKafkaExtension KAFKA = new EmbeddedKafkaExtension();

    private static final String PASSWORD = "registry-secret-1";
    private static final HttpClient HTTP = HttpClient.newHttpClient();

    @TempDir
    static Path dir;

    private static EmbeddedSchemaRegistry registry;

    @BeforeAll
    static void start() throws Exception {
        String digest = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(PASSWORD.getBytes(StandardCharsets.UTF_8)));
        Path users = Files.writeString(dir.resolve("users"), "# registry users\n\nalice:" + digest + "\n");
        registry = EmbeddedSchemaRegistry.builder().bootstrapServers(KAFKA.broker().bootstrapServers())
                .topic("_schemas_auth").users(RegistryUsers.load(users)).start();
    }

    @AfterAll
    static void stop() {
        registry.close();
    }

    @Test
    void everyRouteNeedsTheCredentialsOfAUser() throws Exception {
        for (String authorization : new String[] {null, basic("alice", "wrong"), basic("mallory", PASSWORD), "Bearer " + PASSWORD,
                "Basic not-base64!"}) {
            HttpResponse<String> answer = get("/subjects", authorization);
            assertThat(answer.statusCode()).as(String.valueOf(authorization)).isEqualTo(401);
            assertThat(answer.body()).isEqualTo("{\"error_code\":401,\"message\":\"Unauthorized\"}");
            assertThat(answer.headers().firstValue("WWW-Authenticate")).hasValue("Basic realm=\"tspipe-schema-registry\"");
        }
        assertThat(get("/schemas/ids/1", null).statusCode()).isEqualTo(401);
        HttpResponse<String> allowed = get("/subjects", basic("alice", PASSWORD));
        assertThat(allowed.statusCode()).isEqualTo(200);
    }

    @Test
    void theSerdeAuthenticatesByUrlOrByUserInfoAndIsRefusedWithout() {
        String schemaless = "a string value";
        String host = registry.url().substring("http://".length());
        Map<String, Object> byUrl = Map.of(AvroSerdeConfig.SCHEMA_REGISTRY_URL, "http://alice:" + PASSWORD + "@" + host);
        assertThat(serialize(byUrl, "by-url", schemaless)).isNotEmpty();

        Map<String, Object> byUserInfo = new HashMap<>();
        byUserInfo.put(AvroSerdeConfig.SCHEMA_REGISTRY_URL, registry.url());
        byUserInfo.put(AvroSerdeConfig.BASIC_AUTH_CREDENTIALS_SOURCE, "USER_INFO");
        byUserInfo.put(AvroSerdeConfig.BASIC_AUTH_USER_INFO, "alice:" + PASSWORD);
        assertThat(serialize(byUserInfo, "by-user-info", schemaless)).isNotEmpty();

        assertThatThrownBy(() -> serialize(Map.of(AvroSerdeConfig.SCHEMA_REGISTRY_URL, registry.url()), "anonymous", schemaless))
                .hasMessageContaining("Unauthorized").hasMessageContaining("anonymous-value");
    }

    private static byte[] serialize(Map<String, Object> config, String topic, Object value) {
        try (AvroSerializer<Object> serializer = new AvroSerializer<>()) {
            serializer.configure(config, false);
            return serializer.serialize(topic, value);
        }
    }

    private static HttpResponse<String> get(String path, String authorization) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(registry.url() + path)).GET();
        if (authorization != null) {
            request.header("Authorization", authorization);
        }
        return HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static String basic(String user, String password) {
        return "Basic " + Base64.getEncoder().encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8));
    }
}
