package dev.tspipe.embedded;

import dev.tspipe.embedded.junit.EmbeddedKafkaExtension;
import dev.tspipe.embedded.registry.RegistryUsers;
import dev.tspipe.schemas.serde.AvroDeserializer;
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
import java.util.HashMap;
import java.util.HexFormat;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A registry secured as Confluent's is in production: HTTPS (a certificate made at test time) and
 * basic authentication. The serde reaches it with Confluent's keys ({@code schema.registry.ssl.truststore.*},
 * {@code basic.auth.*}); without the trust store the TLS handshake fails and nothing is sent in clear.
 */
class RegistryTlsIT {

    @RegisterExtension
    static final EmbeddedKafkaExtension KAFKA = new EmbeddedKafkaExtension();

    private static final String PASSWORD = "registry-secret-2";

    @TempDir
    static Path dir;

    private static EmbeddedSchemaRegistry registry;
    private static SelfSignedCertificate certificate;

    @BeforeAll
    static void start() throws Exception {
        certificate = SelfSignedCertificate.create(dir, "registry");
        String digest = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(PASSWORD.getBytes(StandardCharsets.UTF_8)));
        Path users = Files.writeString(dir.resolve("users"), "bob:" + digest + "\n");
        registry = EmbeddedSchemaRegistry.builder().bootstrapServers(KAFKA.broker().bootstrapServers())
                .topic("_schemas_tls").users(RegistryUsers.load(users))
                .tls(certificate.certificatePem(), certificate.keyPem()).start();
    }

    @AfterAll
    static void stop() {
        registry.close();
    }

    @Test
    void theSerdeRegistersAndReadsOverHttpsWithConfluentsKeys() {
        assertThat(registry.url()).startsWith("https://127.0.0.1:");
        for (String type : new String[] {"PEM", "PKCS12"}) {
            Map<String, Object> config = secured(type);
            byte[] bytes = serialize(config, "tls-" + type, "a reading");
            try (AvroDeserializer<Object> deserializer = new AvroDeserializer<>()) {
                deserializer.configure(config, false);
                assertThat(deserializer.deserialize("tls-" + type, bytes).toString()).isEqualTo("a reading");
            }
        }
    }

    @Test
    void withoutTheTrustStoreTheHandshakeFailsAndWithoutCredentialsTheRegistrySaysUnauthorized() {
        Map<String, Object> untrusted = secured("PEM");
        untrusted.remove(AvroSerdeConfig.SSL_TRUSTSTORE_LOCATION);
        assertThatThrownBy(() -> serialize(untrusted, "untrusted", "x")).hasMessageContaining("untrusted-value")
                .hasStackTraceContaining("SSLHandshakeException");

        Map<String, Object> anonymous = secured("PEM");
        anonymous.remove(AvroSerdeConfig.BASIC_AUTH_CREDENTIALS_SOURCE);
        anonymous.remove(AvroSerdeConfig.BASIC_AUTH_USER_INFO);
        assertThatThrownBy(() -> serialize(anonymous, "anonymous", "x")).hasMessageContaining("Unauthorized");

        Map<String, Object> unreadable = secured("PEM");
        unreadable.put(AvroSerdeConfig.SSL_TRUSTSTORE_LOCATION, dir.resolve("absent.pem").toString());
        assertThatThrownBy(() -> serialize(unreadable, "unreadable", "x"))
                .hasMessageContaining(AvroSerdeConfig.SSL_TRUSTSTORE_LOCATION).hasMessageContaining("absent.pem");
    }

    @Test
    void plainHttpIsNotServed() {
        String plain = registry.url().replace("https://", "http://") + "/subjects";
        try {
            HttpResponse<String> answer = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(plain)).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(answer.statusCode()).isNotEqualTo(200);
        } catch (Exception refused) {
            assertThat(refused).isNotNull();
        }
    }

    private static Map<String, Object> secured(String trustStoreType) {
        Map<String, Object> config = new HashMap<>();
        config.put(AvroSerdeConfig.SCHEMA_REGISTRY_URL, registry.url());
        config.put(AvroSerdeConfig.BASIC_AUTH_CREDENTIALS_SOURCE, "USER_INFO");
        config.put(AvroSerdeConfig.BASIC_AUTH_USER_INFO, "bob:" + PASSWORD);
        config.put(AvroSerdeConfig.SSL_TRUSTSTORE_TYPE, trustStoreType);
        if (trustStoreType.equals("PEM")) {
            config.put(AvroSerdeConfig.SSL_TRUSTSTORE_LOCATION, certificate.certificatePem().toString());
        } else {
            config.put(AvroSerdeConfig.SSL_TRUSTSTORE_LOCATION, certificate.keyStore().toString());
            config.put(AvroSerdeConfig.SSL_TRUSTSTORE_PASSWORD, certificate.password());
        }
        return config;
    }

    private static byte[] serialize(Map<String, Object> config, String topic, Object value) {
        try (AvroSerializer<Object> serializer = new AvroSerializer<>()) {
            serializer.configure(config, false);
            return serializer.serialize(topic, value);
        }
    }
}
