package dev.tspipe.app;

import dev.tspipe.embedded.EmbeddedKafka;
import dev.tspipe.embedded.EmbeddedSchemaRegistry;
import dev.tspipe.embedded.FreePorts;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.ScramCredentialInfo;
import org.apache.kafka.clients.admin.ScramMechanism;
import org.apache.kafka.clients.admin.UserScramCredentialUpsertion;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every Kafka client of tspipe against a broker that requires SASL/SCRAM-SHA-512 on the listener the
 * clients use, with the settings of one {@code --kafka-config} file: the registry's journal, the
 * producers of {@code generate}, the node's Kafka Streams and admin clients (packaged jar, own JVM).
 * With a wrong password, a node and a producer stop at once with a message about the credentials.
 */
class SaslScramIT {

    private static final Duration HANG_GUARD = Duration.ofMinutes(3);
    private static final String USER = "tspipe-it";
    private static final String PASSWORD = "correct-horse-battery";
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @TempDir
    static Path workDir;

    private static EmbeddedKafka kafka;
    private static EmbeddedSchemaRegistry registry;
    private static String saslBootstrap;

    @BeforeAll
    static void startABrokerWithAScramListener() throws Exception {
        int port = FreePorts.next();
        int controllerPort = FreePorts.next();
        int saslPort = FreePorts.next();
        saslBootstrap = "127.0.0.1:" + saslPort;
        kafka = EmbeddedKafka.builder().port(port).controllerPort(controllerPort)
                .brokerConfig("listeners", "PLAINTEXT://127.0.0.1:" + port + ",CONTROLLER://127.0.0.1:" + controllerPort
                        + ",SASL_PLAINTEXT://127.0.0.1:" + saslPort)
                .brokerConfig("advertised.listeners", "PLAINTEXT://127.0.0.1:" + port + ",SASL_PLAINTEXT://" + saslBootstrap)
                .brokerConfig("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT,SASL_PLAINTEXT:SASL_PLAINTEXT")
                .brokerConfig("sasl.enabled.mechanisms", "SCRAM-SHA-512")
                .brokerConfig("listener.name.sasl_plaintext.scram-sha-512.sasl.jaas.config",
                        "org.apache.kafka.common.security.scram.ScramLoginModule required;")
                .start();
        try (Admin admin = Admin.create(kafka.clientConfig())) {
            admin.alterUserScramCredentials(List.of(new UserScramCredentialUpsertion(USER,
                    new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_512, 4096), PASSWORD))).all().get(1, TimeUnit.MINUTES);
            admin.createTopics(List.of(new NewTopic("readings", 4, (short) 1), new NewTopic("readings-dlq", 1, (short) 1)))
                    .all().get(1, TimeUnit.MINUTES);
        }
        registry = EmbeddedSchemaRegistry.builder().bootstrapServers(saslBootstrap)
                .clientSettings(KafkaClientConfig.load(clientConfig("client.properties", PASSWORD))).start();
    }

    @AfterAll
    static void stop() {
        if (registry != null) {
            registry.close();
        }
        if (kafka != null) {
            kafka.close();
        }
    }

    @Test
    void withTheRightCredentialsTheWholePipelineRunsOverScram() throws Exception {
        Path config = clientConfig("client.properties", PASSWORD);
        int httpPort = FreePorts.next();
        try (JarProcess node = JarProcess.start("node", workDir.resolve("node.log"), "node",
                "--bootstrap-servers", saslBootstrap, "--kafka-config", config.toString(),
                "--schema-registry-url", registry.url(), "--application-id", "sasl-it", "--http-port", Integer.toString(httpPort),
                "--advertised-host", "127.0.0.1", "--state-dir", workDir.resolve("state").toString(), "--standby-replicas", "0")) {
            node.awaitLineContaining("is running", HANG_GUARD);

            CommandRun generate = CommandRun.of("generate", "--devices", "4", "--metrics", "2", "--rate", "200", "--duration", "2s",
                    "--bootstrap-servers", saslBootstrap, "--kafka-config", config.toString(), "--schema-registry-url", registry.url());
            assertThat(generate.exitCode()).as(generate.err()).isZero();
            assertThat(generate.out()).contains("0 failed");

            String latest = "http://127.0.0.1:" + httpPort + "/api/v1/series/device-00001/temperature/latest";
            long deadline = System.nanoTime() + HANG_GUARD.toNanos();
            int status = 0;
            while (status != 200 && System.nanoTime() < deadline) {
                Thread.sleep(250);
                status = status(latest);
            }
            assertThat(status).as("a generated series is queryable from the node").isEqualTo(200);
            assertThat(node.stopWithSigterm(HANG_GUARD)).isEqualTo(143);
        }
        assertThat(Files.readString(workDir.resolve("node.log"))).as("the password never reaches the log").doesNotContain(PASSWORD);
    }

    @Test
    void aWrongPasswordStopsANodeAndAProducerWithAMessageAboutTheCredentials() throws Exception {
        Path wrong = clientConfig("wrong.properties", "not-the-password");
        CommandRun generate = CommandRun.of("generate", "--devices", "1", "--metrics", "1", "--rate", "10", "--duration", "1s",
                "--bootstrap-servers", saslBootstrap, "--kafka-config", wrong.toString(), "--schema-registry-url", registry.url());
        assertThat(generate.exitCode()).isEqualTo(2);
        assertThat(generate.err()).contains("refused this client's credentials", "--kafka-config").doesNotContain("not-the-password");

        Path log = workDir.resolve("node-wrong.log");
        try (JarProcess node = JarProcess.start("node-wrong", log, "node",
                "--bootstrap-servers", saslBootstrap, "--kafka-config", wrong.toString(),
                "--schema-registry-url", registry.url(), "--application-id", "sasl-it-wrong", "--http-port", Integer.toString(FreePorts.next()),
                "--state-dir", workDir.resolve("state-wrong").toString())) {
            assertThat(node.awaitExit(HANG_GUARD)).as("the node exits by itself, with a usage error").isEqualTo(2);
        }
        assertThat(Files.readString(log)).contains("refused this client's credentials", "--kafka-config")
                .doesNotContain("not-the-password");
    }

    private static Path clientConfig(String name, String password) throws IOException {
        Path file = workDir.resolve(name);
        Files.writeString(file, String.join("\n",
                "security.protocol=SASL_PLAINTEXT",
                "sasl.mechanism=SCRAM-SHA-512",
                "sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username=\"" + USER
                        + "\" password=\"" + password + "\";",
                ""));
        return file;
    }

    private static int status(String url) throws InterruptedException {
        try {
            return HTTP.send(HttpRequest.newBuilder(URI.create(url)).build(), HttpResponse.BodyHandlers.discarding()).statusCode();
        } catch (IOException notYet) {
            return 0;
        }
    }
}
