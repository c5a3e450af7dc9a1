package dev.tspipe.app;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tspipe.embedded.FreePorts;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code tspipe broker} three times (a three-node KRaft cluster, each node broker and controller)
 * and {@code tspipe registry} on it, as separate processes from the packaged jar: topics get three
 * replicas and min ISR 2, acks=all writes go through, the registry journals to {@code _schemas}
 * with three replicas, and every process stops cleanly on SIGTERM.
 */
class BrokerAndRegistryIT {

    private static final Duration HANG_GUARD = Duration.ofMinutes(3);
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @TempDir
    Path workDir;

    private final List<JarProcess> started = new ArrayList<>();

    @AfterEach
    void killLeftovers() {
        started.forEach(JarProcess::close);
    }

    @Test
    void threeBrokersAndARegistryFormAClusterWithThreeReplicasAndStopOnSigterm() throws Exception {
        int[] clientPorts = {FreePorts.next(), FreePorts.next(), FreePorts.next()};
        int[] controllerPorts = {FreePorts.next(), FreePorts.next(), FreePorts.next()};
        int registryPort = FreePorts.next();
        String voters = java.util.stream.IntStream.range(0, 3).mapToObj(i -> (i + 1) + "@127.0.0.1:" + controllerPorts[i])
                .collect(Collectors.joining(","));
        String bootstrap = java.util.stream.IntStream.range(0, 3).mapToObj(i -> "127.0.0.1:" + clientPorts[i])
                .collect(Collectors.joining(","));
        List<JarProcess> brokers = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            JarProcess broker = JarProcess.start("broker-" + (i + 1), workDir.resolve("broker-" + (i + 1) + ".log"), "broker",
                    "--node-id", Integer.toString(i + 1),
                    "--cluster-id", "dHNwaXBlLWJyb2tlci1pdA",
                    "--controller-quorum-voters", voters,
                    "--listeners", "PLAINTEXT://127.0.0.1:" + clientPorts[i] + ",CONTROLLER://127.0.0.1:" + controllerPorts[i],
                    "--data-dir", workDir.resolve("kafka-" + (i + 1)).toString(),
                    "--override", "group.initial.rebalance.delay.ms=0");
            started.add(broker);
            brokers.add(broker);
        }
        for (JarProcess broker : brokers) {
            assertThat(broker.awaitLineContaining("is running", HANG_GUARD)).contains("broker,controller");
        }

        JarProcess registry = JarProcess.start("registry", workDir.resolve("registry.log"), "registry",
                "--bootstrap-servers", bootstrap, "--host", "127.0.0.1", "--port", Integer.toString(registryPort));
        started.add(registry);
        assertThat(registry.awaitLineContaining("is running", HANG_GUARD)).contains(":" + registryPort);
        String registryUrl = "http://127.0.0.1:" + registryPort;
        HttpResponse<String> registered = HTTP.send(HttpRequest.newBuilder(URI.create(registryUrl + "/subjects/it-value/versions"))
                .header("Content-Type", "application/vnd.schemaregistry.v1+json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"schema\":\"{\\\"type\\\":\\\"string\\\"}\"}")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(registered.statusCode()).isEqualTo(200);
        assertThat(HTTP.send(HttpRequest.newBuilder(URI.create(registryUrl + "/subjects")).build(),
                HttpResponse.BodyHandlers.ofString()).body()).isEqualTo("[\"it-value\"]");

        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
            // No replication factor given: the brokers' default.
            admin.createTopics(List.of(new NewTopic("it-topic", Optional.of(3), Optional.empty()))).all().get(1, TimeUnit.MINUTES);
            Map<String, TopicDescription> topics = onceKnown(() -> admin.describeTopics(List.of("it-topic", "_schemas"))
                    .allTopicNames().get(1, TimeUnit.MINUTES));
            topics.values().forEach(topic -> assertThat(topic.partitions())
                    .as(topic.name()).allSatisfy(p -> assertThat(p.replicas()).hasSize(3)));
            ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, "it-topic");
            assertThat(onceKnown(() -> admin.describeConfigs(List.of(resource)).all().get(1, TimeUnit.MINUTES)).get(resource)
                    .get("min.insync.replicas").value()).isEqualTo("2");
        }
        Map<String, Object> producerConfig = Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap, ProducerConfig.ACKS_CONFIG, "all");
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(producerConfig, new StringSerializer(), new StringSerializer())) {
            for (int i = 0; i < 30; i++) {
                producer.send(new ProducerRecord<>("it-topic", "device-" + i, "reading " + i)).get(1, TimeUnit.MINUTES);
            }
        }

        devicesCommandsWriteAndReadTheTopic(bootstrap, registryUrl);

        // 143 is 128 + SIGTERM, as the JVM (and kafka-server-start.sh) ends after its shutdown hooks ran; the log says they did.
        assertThat(registry.stopWithSigterm(HANG_GUARD)).isEqualTo(143);
        assertThat(Files.readString(workDir.resolve("registry.log"))).contains("Stopped schema registry");
        // One after the other: the last broker has no controller quorum left to approve its controlled shutdown,
        // for which Kafka waits 5 minutes; tspipe broker stops without it after 20 s (KraftServer), logs closed.
        for (int i = 0; i < brokers.size(); i++) {
            assertThat(brokers.get(i).stopWithSigterm(HANG_GUARD)).isEqualTo(143);
            assertThat(Files.readString(workDir.resolve("broker-" + (i + 1) + ".log"))).contains("Kafka server " + (i + 1) + " stopped");
        }
    }

    /** {@code tspipe devices} against the cluster: an import with a bad line writes nothing, a good one everything. */
    private void devicesCommandsWriteAndReadTheTopic(String bootstrap, String registryUrl) throws Exception {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
            admin.createTopics(List.of(new NewTopic("devices", Optional.of(1), Optional.empty())
                    .configs(Map.of("cleanup.policy", "compact")))).all().get(1, TimeUnit.MINUTES);
        }
        List<String> kafka = List.of("--bootstrap-servers", bootstrap, "--schema-registry-url", registryUrl);
        Path bad = Files.writeString(workDir.resolve("bad.jsonl"), "{\"id\":\"valve-1\",\"site\":\"plant-1\"}\n{\"id\":7}\n");
        CommandRun rejected = devices(kafka, "import", bad.toString());
        assertThat(rejected.exitCode()).as(rejected.err()).isEqualTo(DevicesImportCommand.EXIT_REJECTED);
        assertThat(rejected.err()).contains("bad.jsonl:2: id is not a string", "nothing was written");

        Path good = Files.writeString(workDir.resolve("devices.csv"),
                "id,site,type,labels\npress-1,plant-1,press,line=3;firmware=2.1\nkiln-1,plant-2,kiln,\n");
        CommandRun imported = devices(kafka, "import", good.toString());
        assertThat(imported.exitCode()).as(imported.err()).isZero();
        assertThat(imported.out()).contains("Imported 2 devices");
        assertThat(devices(kafka, "put", "pump-1", "--site", "plant-1", "--type", "pump", "--label", "line=4").exitCode()).isZero();

        CommandRun plant1 = devices(kafka, "list", "--site", "plant-1");
        assertThat(plant1.out()).contains("press-1", "pump-1", "firmware=2.1;line=3",
                "2 devices").doesNotContain("kiln-1", "valve-1");
        CommandRun pump = devices(kafka, "get", "pump-1");
        assertThat(pump.exitCode()).isZero();
        assertThat(new ObjectMapper().readTree(pump.out()).get("labels").get("line").asText())
                .isEqualTo("4");
        assertThat(devices(kafka, "delete", "kiln-1").exitCode()).isZero();
        assertThat(devices(kafka, "list", "--format", "json").out().lines()).hasSize(2);
        assertThat(devices(kafka, "get", "kiln-1").exitCode()).isEqualTo(DevicesGetCommand.EXIT_UNKNOWN);
    }

    private static CommandRun devices(List<String> kafka, String... args) {
        List<String> all = new ArrayList<>(List.of("devices"));
        all.addAll(List.of(args));
        all.addAll(kafka);
        return CommandRun.of(all.toArray(String[]::new));
    }

    /** An admin call about a topic just created, asked again while the broker that answers does not know the topic yet. */
    private static <T> T onceKnown(Callable<T> call) throws Exception {
        long deadline = System.nanoTime() + HANG_GUARD.toNanos();
        while (true) {
            try {
                return call.call();
            } catch (ExecutionException e) {
                if (!(e.getCause() instanceof UnknownTopicOrPartitionException) || System.nanoTime() > deadline) {
                    throw e;
                }
                Thread.sleep(100);
            }
        }
    }
}
