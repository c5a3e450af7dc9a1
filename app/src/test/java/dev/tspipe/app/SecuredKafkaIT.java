package dev.tspipe.app;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tspipe.embedded.EmbeddedKafka;
import dev.tspipe.embedded.EmbeddedSchemaRegistry;
import dev.tspipe.embedded.FreePorts;
import dev.tspipe.embedded.SelfSignedCertificate;
import dev.tspipe.embedded.registry.RegistryUsers;
import dev.tspipe.query.auth.ApiTokens;
import dev.tspipe.query.auth.Grant;
import dev.tspipe.query.auth.Scope;
import dev.tspipe.schemas.tls.PemFiles;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.ScramCredentialInfo;
import org.apache.kafka.clients.admin.ScramMechanism;
import org.apache.kafka.clients.admin.UserScramCredentialUpsertion;
import dev.tspipe.processor.topology.DeadLetters;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * Every Kafka client of tspipe against a broker secured as production clusters are: the listener the
 * clients use requires SASL/SCRAM-SHA-512 over TLS ({@code SASL_SSL}, the broker's certificate made at
 * test time), and the standard authorizer allows only what ACLs grant. With the settings of one
 * {@code --kafka-config} file and the ACLs of docs/security.md, the registry's journal, the producers of
 * {@code generate}, the node (packaged jar, own JVM: Kafka Streams with exactly-once, its changelogs,
 * the dead-letter topic) and {@code keys analyze} (a consumer without a group, the serde) all work. With
 * a wrong password, a node and a producer stop at once with a message about the credentials; without an
 * ACL on the readings topic, the node stops with a message that names the topic and the operations to
 * grant.
 */
class SecuredKafkaIT {

    private static final Duration HANG_GUARD = Duration.ofMinutes(3);
    private static final String USER = "tspipe-it";
    /** A user with every ACL of {@link #USER} but those on the readings topic. */
    private static final String UNGRANTED_USER = "tspipe-ungranted";
    /** A user with every ACL of {@link #USER} but READ on the readings topic. */
    private static final String UNREAD_USER = "tspipe-unread";
    private static final String PASSWORD = "correct-horse-battery";
    private static final String REGISTRY_PASSWORD = "registry-staple";
    private static final String APP = "secured-it";
    /** The topic {@code keys analyze} samples: written and read only by its test. */
    private static final String SAMPLED = "readings-sampled";
    /** The same generated readings, one record each and in batches: written and read only by their test. */
    private static final String ANALYZED_ALONE = "readings-analyzed-alone";
    private static final String ANALYZED_BATCHED = "readings-analyzed-batched";

    @TempDir
    static Path workDir;

    private static EmbeddedKafka kafka;
    private static EmbeddedSchemaRegistry registry;
    private static String saslBootstrap;
    private static SelfSignedCertificate certificate;

    /**
     * The broker: PLAINTEXT for the test's own admin client and the controller (their principal, ANONYMOUS, is the
     * super user), SASL_SSL for tspipe, the standard authorizer, and the ACLs of docs/security.md for {@link #USER}.
     */
    @BeforeAll
    static void startABrokerWithASaslSslListenerAndAcls() throws Exception {
        certificate = SelfSignedCertificate.create(workDir, "broker");
        int port = FreePorts.next();
        int controllerPort = FreePorts.next();
        int saslPort = FreePorts.next();
        saslBootstrap = "127.0.0.1:" + saslPort;
        kafka = EmbeddedKafka.builder().port(port).controllerPort(controllerPort)
                .brokerConfig("listeners", "PLAINTEXT://127.0.0.1:" + port + ",CONTROLLER://127.0.0.1:" + controllerPort
                        + ",SASL_SSL://127.0.0.1:" + saslPort)
                .brokerConfig("advertised.listeners", "PLAINTEXT://127.0.0.1:" + port + ",SASL_SSL://" + saslBootstrap)
                .brokerConfig("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT,SASL_SSL:SASL_SSL")
                .brokerConfig("sasl.enabled.mechanisms", "SCRAM-SHA-512")
                .brokerConfig("listener.name.sasl_ssl.scram-sha-512.sasl.jaas.config",
                        "org.apache.kafka.common.security.scram.ScramLoginModule required;")
                .brokerConfig("ssl.keystore.type", "PKCS12")
                .brokerConfig("ssl.keystore.location", certificate.keyStore().toString())
                .brokerConfig("ssl.keystore.password", certificate.password())
                .brokerConfig("ssl.key.password", certificate.password())
                .brokerConfig("authorizer.class.name", "org.apache.kafka.metadata.authorizer.StandardAuthorizer")
                .brokerConfig("super.users", "User:ANONYMOUS")
                .start();
        try (Admin admin = Admin.create(kafka.clientConfig())) {
            admin.alterUserScramCredentials(List.of(
                    new UserScramCredentialUpsertion(USER, new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_512, 4096), PASSWORD),
                    new UserScramCredentialUpsertion(UNGRANTED_USER, new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_512, 4096),
                            PASSWORD),
                    new UserScramCredentialUpsertion(UNREAD_USER, new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_512, 4096),
                            PASSWORD))).all().get(1, TimeUnit.MINUTES);
            admin.createTopics(List.of(new NewTopic("readings", 4, (short) 1), new NewTopic("readings-dlq", 1, (short) 1),
                    new NewTopic(SAMPLED, 3, (short) 1), new NewTopic("devices", 1, (short) 1),
                    new NewTopic(ANALYZED_ALONE, 3, (short) 1), new NewTopic(ANALYZED_BATCHED, 3, (short) 1)))
                    .all().get(1, TimeUnit.MINUTES);
            List<AclBinding> acls = new ArrayList<>(KafkaAcls.forNode(USER, APP, "readings", "readings-dlq"));
            acls.addAll(KafkaAcls.forProducer(USER, "readings"));
            acls.addAll(KafkaAcls.forRegistry(USER, "_schemas"));
            acls.addAll(KafkaAcls.forProducer(USER, SAMPLED));
            acls.addAll(KafkaAcls.forReader(USER, SAMPLED));
            for (String topic : List.of(ANALYZED_ALONE, ANALYZED_BATCHED)) {
                acls.addAll(KafkaAcls.forProducer(USER, topic));
                acls.addAll(KafkaAcls.forReader(USER, topic));
            }
            acls.addAll(KafkaAcls.forNode(UNGRANTED_USER, APP + "-ungranted", "readings", "readings-dlq").stream()
                    .filter(acl -> !acl.pattern().name().equals("readings")).toList());
            acls.addAll(KafkaAcls.forNode(UNREAD_USER, APP + "-unread", "readings", "readings-dlq").stream()
                    .filter(acl -> !(acl.pattern().name().equals("readings") && acl.entry().operation() == AclOperation.READ))
                    .toList());
            admin.createAcls(acls).all().get(1, TimeUnit.MINUTES);
        }
        // The registry as production runs it: HTTPS and basic authentication.
        String digest = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256")
                .digest(REGISTRY_PASSWORD.getBytes(StandardCharsets.UTF_8)));
        Path registryUsers = Files.writeString(workDir.resolve("registry-users"), USER + ":" + digest + "\n");
        registry = EmbeddedSchemaRegistry.builder().bootstrapServers(saslBootstrap)
                .clientSettings(KafkaClientConfig.load(clientConfig("client.properties", USER, PASSWORD)))
                .users(RegistryUsers.load(registryUsers))
                .tls(certificate.certificatePem(), certificate.keyPem()).start();
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
    void withTheRightCredentialsAndAclsTheWholePipelineRunsOverSaslSsl() throws Exception {
        Path config = clientConfig("client.properties", USER, PASSWORD);
        int httpPort = FreePorts.next();
        String token = ApiTokens.newToken(new SecureRandom());
        Path tokens = Files.writeString(workDir.resolve("tokens"), ApiTokens.line(token, new Grant(null, Scope.READ, "it")) + "\n");
        try (JarProcess node = JarProcess.start("node", workDir.resolve("node.log"), "node",
                "--bootstrap-servers", saslBootstrap, "--kafka-config", config.toString(),
                "--schema-registry-url", registry.url(), "--application-id", APP, "--http-port", Integer.toString(httpPort),
                "--advertised-host", "127.0.0.1", "--state-dir", workDir.resolve("state").toString(), "--standby-replicas", "0",
                "--auth-tokens", tokens.toString(), "--tls-cert", certificate.certificatePem().toString(),
                "--tls-key", certificate.keyPem().toString(), "--tls-ca", certificate.certificatePem().toString())) {
            node.awaitLineContaining("is running", HANG_GUARD);

            CommandRun generate = CommandRun.of("generate", "--devices", "4", "--metrics", "2", "--rate", "200", "--duration", "2s",
                    "--bootstrap-servers", saslBootstrap, "--kafka-config", config.toString(), "--schema-registry-url", registry.url());
            assertThat(generate.exitCode()).as(generate.err()).isZero();
            assertThat(generate.out()).contains("0 failed");

            String latest = "https://127.0.0.1:" + httpPort + "/api/v1/series/device-00001/temperature/latest";
            long deadline = System.nanoTime() + HANG_GUARD.toNanos();
            int status = 0;
            while (status != 200 && System.nanoTime() < deadline) {
                Thread.sleep(250);
                status = status(latest, token);
            }
            assertThat(status).as("a generated series is queryable from the node, over HTTPS with a token").isEqualTo(200);
            assertThat(status(latest, null)).isEqualTo(401);

            // A record that is not a reading goes to the dead-letter topic, written by the node over SASL_SSL.
            Map<String, Object> producerSettings = KafkaClientConfig.load(config);
            producerSettings.put("bootstrap.servers", saslBootstrap);
            try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(producerSettings, new ByteArraySerializer(),
                    new ByteArraySerializer())) {
                producer.send(new ProducerRecord<>("readings", "device-x".getBytes(StandardCharsets.UTF_8),
                        "not avro".getBytes(StandardCharsets.UTF_8))).get(1, TimeUnit.MINUTES);
            }
            Map<String, Object> consumerSettings = kafka.clientConfig();
            consumerSettings.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
            consumerSettings.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
            try (KafkaConsumer<byte[], byte[]> dlq = new KafkaConsumer<>(consumerSettings, new ByteArrayDeserializer(),
                    new ByteArrayDeserializer())) {
                dlq.assign(List.of(new TopicPartition("readings-dlq", 0)));
                List<ConsumerRecord<byte[], byte[]>> deadLetters = new ArrayList<>();
                long dlqDeadline = System.nanoTime() + HANG_GUARD.toNanos();
                while (deadLetters.isEmpty() && System.nanoTime() < dlqDeadline) {
                    dlq.poll(Duration.ofMillis(500)).forEach(deadLetters::add);
                }
                assertThat(deadLetters).hasSize(1);
                assertThat(new String(deadLetters.get(0).value(), StandardCharsets.UTF_8)).isEqualTo("not avro");
                assertThat(deadLetters.get(0).headers().lastHeader(DeadLetters.REASON)).isNotNull();
            }
            try (Admin admin = Admin.create(kafka.clientConfig())) {
                assertThat(admin.listTopics().names().get(1, TimeUnit.MINUTES))
                        .as("the changelogs the node created with its prefixed ACL")
                        .anyMatch(topic -> topic.startsWith(APP + "-") && topic.endsWith("-changelog"));
            }
            assertThat(node.stopWithSigterm(HANG_GUARD)).isEqualTo(143);
        }
        assertThat(Files.readString(workDir.resolve("node.log"))).as("no password or token reaches the log")
                .doesNotContain(PASSWORD).doesNotContain(REGISTRY_PASSWORD).doesNotContain(token.substring(4));
    }

    @Test
    void aWrongPasswordStopsANodeAndAProducerWithAMessageAboutTheCredentials() throws Exception {
        Path wrong = clientConfig("wrong.properties", USER, "not-the-password");
        CommandRun generate = CommandRun.of("generate", "--devices", "1", "--metrics", "1", "--rate", "10", "--duration", "1s",
                "--bootstrap-servers", saslBootstrap, "--kafka-config", wrong.toString(), "--schema-registry-url", registry.url());
        assertThat(generate.exitCode()).isEqualTo(2);
        assertThat(generate.err()).contains("refused this client's credentials", "--kafka-config").doesNotContain("not-the-password");

        Path log = workDir.resolve("node-wrong.log");
        try (JarProcess node = startNode("node-wrong", log, wrong, "sasl-it-wrong")) {
            assertThat(node.awaitExit(HANG_GUARD)).as("the node exits by itself, with a usage error").isEqualTo(2);
        }
        assertThat(Files.readString(log)).contains("refused this client's credentials", "--kafka-config")
                .doesNotContain("not-the-password");
    }

    @Test
    void withoutAnAclOnTheReadingsTopicTheNodeStopsAndNamesTheTopic() throws Exception {
        Path config = clientConfig("ungranted.properties", UNGRANTED_USER, PASSWORD);
        Path log = workDir.resolve("node-ungranted.log");
        try (JarProcess node = startNode("node-ungranted", log, config, APP + "-ungranted")) {
            assertThat(node.awaitExit(HANG_GUARD)).as("the node exits by itself, with a usage error").isEqualTo(2);
        }
        assertThat(Files.readString(log)).contains("does not allow this client to describe the readings topic 'readings'",
                "grant it DESCRIBE and READ on the topic");
    }

    @Test
    void withoutReadOnTheReadingsTopicTheNodeSaysWhatToGrantAndKeepsTrying() throws Exception {
        Path config = clientConfig("unread.properties", UNREAD_USER, PASSWORD);
        Path log = workDir.resolve("node-unread.log");
        try (JarProcess node = startNode("node-unread", log, config, APP + "-unread")) {
            node.awaitLineContaining("is running", HANG_GUARD);
            long deadline = System.nanoTime() + HANG_GUARD.toNanos();
            while (!Files.readString(log).contains("Kafka refused this client") && System.nanoTime() < deadline) {
                Thread.sleep(250);
            }
            assertThat(Files.readString(log)).contains("Kafka refused this client access to topic(s) [readings]",
                    "the readings topic: DESCRIBE and READ");
            assertThat(node.isAlive()).as("the node waits for the ACL").isTrue();
            assertThat(node.stopWithSigterm(HANG_GUARD)).isEqualTo(143);
        }
    }

    /**
     * {@code keys analyze} counts each reading of a batch as it counts the same reading alone: the same seeded readings
     * written one record each and in batches of up to 10 give the same report, record counts aside.
     */
    @Test
    void keysAnalyzeCountsTheReadingsOfBatchesAsTheSameReadingsAlone() throws Exception {
        Path config = clientConfig("analyze-batches.properties", USER, PASSWORD);
        Map<String, JsonNode> reports = new TreeMap<>();
        for (String topic : List.of(ANALYZED_ALONE, ANALYZED_BATCHED)) {
            List<String> args = new ArrayList<>(List.of("generate", "--devices", "9", "--metrics", "3", "--rate", "60",
                    "--duration", "10s", "--seed", "7", "--duplicates", "0.1", "--start", "2026-11-30T10:00:00Z",
                    "--as-fast-as-possible", "--topic", topic, "--bootstrap-servers", saslBootstrap, "--kafka-config",
                    config.toString(), "--schema-registry-url", registry.url()));
            if (topic.equals(ANALYZED_BATCHED)) {
                args.addAll(List.of("--batch", "10"));
            }
            CommandRun generate = CommandRun.of(args.toArray(String[]::new));
            assertThat(generate.exitCode()).as(generate.err()).isZero();
            CommandRun analyze = CommandRun.of("keys", "analyze", "--topic", topic, "--sample", "100000", "--format", "json",
                    "--bootstrap-servers", saslBootstrap, "--kafka-config", config.toString(), "--schema-registry-url", registry.url());
            assertThat(analyze.exitCode()).as(analyze.err()).isBetween(0, 2);
            reports.put(topic, new ObjectMapper().readTree(analyze.out()));
        }
        JsonNode alone = reports.get(ANALYZED_ALONE);
        JsonNode batched = reports.get(ANALYZED_BATCHED);
        assertThat(alone.get("readings").asLong()).as("readings generated in 10 s at 60/s, duplicates on top").isGreaterThanOrEqualTo(600);
        assertThat(alone.get("rejected").size()).isZero();
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(kafka.clientConfig(), new ByteArrayDeserializer(),
                new ByteArrayDeserializer())) {
            long records = consumer.endOffsets(List.of(new TopicPartition(ANALYZED_BATCHED, 0), new TopicPartition(ANALYZED_BATCHED, 1),
                    new TopicPartition(ANALYZED_BATCHED, 2))).values().stream().mapToLong(Long::longValue).sum();
            assertThat(records).as("records of the batched topic").isLessThan(alone.get("readings").asLong() / 2);
        }
        for (String field : List.of("/readings", "/devices", "/series", "/verdict", "/partitions/readings", "/rejected", "/findings")) {
            assertThat(batched.at(field)).as(field).isEqualTo(alone.at(field));
        }
    }

    @Test
    void keysAnalyzeSamplesTheNewestRecordsOfATopicOverSaslSslWithTheSecuredRegistry() throws Exception {
        Path config = clientConfig("analyze.properties", USER, PASSWORD);
        CommandRun generate = CommandRun.of("generate", "--devices", "12", "--metrics", "2", "--rate", "50", "--duration", "10s",
                "--start", "2026-11-30T10:00:00Z", "--as-fast-as-possible", "--topic", SAMPLED,
                "--bootstrap-servers", saslBootstrap, "--kafka-config", config.toString(), "--schema-registry-url", registry.url());
        assertThat(generate.exitCode()).as(generate.err()).isZero();
        Map<Integer, Long> written = new TreeMap<>();
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(kafka.clientConfig(), new ByteArrayDeserializer(),
                new ByteArrayDeserializer())) {
            List<TopicPartition> partitions = List.of(new TopicPartition(SAMPLED, 0), new TopicPartition(SAMPLED, 1),
                    new TopicPartition(SAMPLED, 2));
            consumer.endOffsets(partitions).forEach((tp, end) -> written.put(tp.partition(), end));
        }
        long total = written.values().stream().mapToLong(Long::longValue).sum();
        assertThat(total).isGreaterThan(100);

        CommandRun analyze = CommandRun.of("keys", "analyze", "--topic", SAMPLED, "--sample", "100", "--format", "json",
                "--bootstrap-servers", saslBootstrap, "--kafka-config", config.toString(), "--schema-registry-url", registry.url());

        JsonNode report = new ObjectMapper().readTree(analyze.out());
        assertThat(analyze.exitCode()).as(analyze.err())
                .isEqualTo(List.of("clean", "warnings", "errors").indexOf(report.get("verdict").asText()));
        assertThat(report.at("/source/kind").asText()).isEqualTo("topic");
        assertThat(report.get("readings").asLong()).isEqualTo(100);
        assertThat(report.get("rejected").size()).isZero();
        assertThat(report.get("devices").asLong()).isEqualTo(12);
        assertThat(report.at("/partitions/count").asInt()).as("the topic's partitions").isEqualTo(3);
        // The producer placed each device as DevicePartitioner does, so the readings the report places in a partition
        // are those read from it: the newest of each, in proportion to what it holds.
        JsonNode perPartition = report.at("/partitions/readings");
        for (int p = 0; p < 3; p++) {
            assertThat((double) perPartition.get(p).asLong()).as("partition %d of %s", p, written)
                    .isCloseTo(100.0 * written.get(p) / total, within(1.0));
        }
    }

    /** A node (the packaged jar) with the Kafka client settings of {@code config}, on a free port, its log to {@code log}. */
    private static JarProcess startNode(String name, Path log, Path config, String applicationId) {
        return JarProcess.start(name, log, "node", "--bootstrap-servers", saslBootstrap, "--kafka-config", config.toString(),
                "--schema-registry-url", registry.url(), "--application-id", applicationId,
                "--http-port", Integer.toString(FreePorts.next()), "--state-dir", workDir.resolve("state-" + name).toString());
    }

    /** The client settings of docs/security.md: SCRAM over TLS, the broker's certificate trusted from a PEM file. */
    private static Path clientConfig(String name, String user, String password) throws IOException {
        Path file = workDir.resolve(name);
        Files.writeString(file, String.join("\n",
                "security.protocol=SASL_SSL",
                "sasl.mechanism=SCRAM-SHA-512",
                "sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username=\"" + user
                        + "\" password=\"" + password + "\";",
                "ssl.truststore.type=PEM",
                "ssl.truststore.location=" + certificate.certificatePem(),
                "# The schema registry client: Confluent's keys",
                "basic.auth.credentials.source=USER_INFO",
                "basic.auth.user.info=" + USER + ":" + REGISTRY_PASSWORD,
                "schema.registry.ssl.truststore.type=PEM",
                "schema.registry.ssl.truststore.location=" + certificate.certificatePem(),
                ""));
        return file;
    }

    private static int status(String url, String token) throws InterruptedException {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(url));
        if (token != null) {
            request.header("Authorization", "Bearer " + token);
        }
        try {
            return https().send(request.build(), HttpResponse.BodyHandlers.discarding()).statusCode();
        } catch (IOException notYet) {
            return 0;
        }
    }

    /** A client that trusts the test's certificate. */
    private static HttpClient https() {
        return HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5))
                .sslContext(PemFiles.context(null, null, PemFiles.trustStore(certificate.certificatePem()))).build();
    }
}
