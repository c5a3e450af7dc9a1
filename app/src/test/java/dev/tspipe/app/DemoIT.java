package dev.tspipe.app;

import dev.tspipe.embedded.FreePorts;
import dev.tspipe.query.auth.ApiTokens;
import dev.tspipe.query.auth.Grant;
import dev.tspipe.query.auth.Scope;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Runs the packaged {@code tspipe.jar} as a user would: a separate process, a separate Kafka
 * client, SIGTERM to stop it.
 */
class DemoIT {

    /**
     * How long a step may take before the test gives up: a guard against a hang, not a speed
     * requirement (a loaded machine may be slow; how long each step took is printed, not asserted).
     */
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
    void demoServesKafkaAndTheRegistryStopsOnSigtermAndKeepsDataAcrossRestarts() throws Exception {
        int kafkaPort = FreePorts.next();
        int controllerPort = FreePorts.next();
        int registryPort = FreePorts.next();
        int httpPort = FreePorts.next();
        String queryUrl = "http://127.0.0.1:" + httpPort;
        String bootstrap = "127.0.0.1:" + kafkaPort;
        String registryUrl = "http://127.0.0.1:" + registryPort;

        long startNanos = System.nanoTime();
        JarProcess first = startDemo(kafkaPort, controllerPort, registryPort, httpPort);
        String banner = first.awaitLineContaining(registryUrl, HANG_GUARD);
        assertThat(banner).contains("Schema registry");
        awaitReady(queryUrl + "/ready", HANG_GUARD);
        // The demo's own load: a generated series answers (how soon depends on the machine; only reported).
        awaitReady(queryUrl + "/api/v1/series/device-00001/temperature/latest", HANG_GUARD);
        System.out.printf("a generated series answered 200 %d ms after the demo started%n",
                (System.nanoTime() - startNanos) / 1_000_000);
        HttpResponse<String> unknown = get(queryUrl + "/api/v1/series/no-such-device/temp/latest");
        assertThat(unknown.statusCode()).isEqualTo(404);
        assertThat(unknown.body()).contains("\"error\"");
        HttpResponse<String> subjects = get(registryUrl + "/subjects");
        assertThat(subjects.statusCode()).isEqualTo(200);
        assertThat(subjects.body()).as("the demo's load registered its schema").isEqualTo("[\"readings-value\"]");
        HttpResponse<String> registered = post(registryUrl + "/subjects/demo-check-value/versions",
                "{\"schema\":\"{\\\"type\\\":\\\"string\\\"}\"}");
        assertThat(registered.statusCode()).isEqualTo(200);
        assertThat(registered.body()).matches("\\{\"id\":\\d+\\}");
        String stringSchemaId = registered.body().replaceAll("\\D", "");
        produce(bootstrap, "demo-check", "hello");
        first.stopWithSigterm(HANG_GUARD);

        JarProcess second = startDemo(kafkaPort, controllerPort, registryPort, httpPort);
        second.awaitLineContaining(registryUrl, HANG_GUARD);
        awaitReady(queryUrl + "/ready", HANG_GUARD);
        assertThat(consumeAll(bootstrap, "demo-check")).containsExactly("hello");
        assertThat(get(registryUrl + "/subjects").body()).isEqualTo("[\"demo-check-value\",\"readings-value\"]");
        assertThat(get(registryUrl + "/schemas/ids/" + stringSchemaId).body()).isEqualTo("{\"schema\":\"\\\"string\\\"\"}");
        assertThat(get(queryUrl + "/api/v1/series/device-00001/temperature/latest").statusCode())
                .as("the tables survive the restart").isEqualTo(200);
        second.stopWithSigterm(HANG_GUARD);
    }

    /**
     * The demo with {@code --auth-tokens}: the query API needs a token, the registry's reads stay open, its writes
     * need a write token, and the demo's own load registered its schema with a token of its own.
     */
    @Test
    void withTokensTheApiAndTheRegistrysWritesNeedOne() throws Exception {
        int httpPort = FreePorts.next();
        int registryPort = FreePorts.next();
        String queryUrl = "http://127.0.0.1:" + httpPort;
        String registryUrl = "http://127.0.0.1:" + registryPort;
        String reader = ApiTokens.newToken(new SecureRandom());
        String writer = ApiTokens.newToken(new SecureRandom());
        Path tokens = Files.write(workDir.resolve("tokens"), List.of(ApiTokens.line(reader, new Grant(null, Scope.READ, "reader")),
                ApiTokens.line(writer, new Grant(null, Scope.WRITE, "writer"))));
        JarProcess demo = JarProcess.start("demo-tokens", null, "demo",
                "--kafka-port", Integer.toString(FreePorts.next()), "--controller-port", Integer.toString(FreePorts.next()),
                "--registry-port", Integer.toString(registryPort), "--http-port", Integer.toString(httpPort),
                "--data-dir", workDir.resolve("data-tokens").toString(), "--rate", "100", "--auth-tokens", tokens.toString());
        started.add(demo);
        demo.awaitLineContaining("Authorization: Bearer $TOKEN", HANG_GUARD);
        awaitReady(queryUrl + "/ready", HANG_GUARD);
        String latest = queryUrl + "/api/v1/series/device-00001/temperature/latest";
        long deadline = System.nanoTime() + HANG_GUARD.toNanos();
        while (get(latest, reader).statusCode() != 200 && System.nanoTime() < deadline) {
            Thread.sleep(200);
        }
        assertThat(get(latest, reader).statusCode()).isEqualTo(200);
        assertThat(get(latest, null).statusCode()).isEqualTo(401);
        assertThat(get(registryUrl + "/subjects").body()).as("reads are open; the load's schema went in with its own token")
                .isEqualTo("[\"readings-value\"]");
        String schema = "{\"schema\":\"{\\\"type\\\":\\\"string\\\"}\"}";
        HttpResponse<String> anonymous = post(registryUrl + "/subjects/s-value/versions", schema, null);
        assertThat(anonymous.statusCode()).isEqualTo(401);
        assertThat(anonymous.body()).contains("\"error_code\":401");
        assertThat(post(registryUrl + "/subjects/s-value/versions", schema, reader).statusCode()).isEqualTo(401);
        assertThat(post(registryUrl + "/subjects/s-value/versions", schema, writer).statusCode()).isEqualTo(200);

        // An HTTP write: the node's serializer registers its schema in the demo's registry with the demo's own token
        // (it had none, and every write answered 503).
        long now = System.currentTimeMillis();
        HttpResponse<String> write = write(queryUrl, "room,host=web-9 temp=21.5 " + now, writer, "b");
        assertThat(write.statusCode()).as(write.body()).isEqualTo(204);
        String written = queryUrl + "/api/v1/series/web-9/room.temp/latest";
        awaitStatus(written, reader, 200);
        assertThat(get(written, reader).body()).contains("\"value\":21.5", "\"timestamp\":" + now);
        demo.stopWithSigterm(HANG_GUARD);
    }

    /**
     * {@code tspipe demo --multi-tenant} with tokens bound to tenants: the demo starts (a tenant-bound token made it exit 2),
     * its load is dealt to acme and globex, and each tenant reads and writes only its own series.
     */
    @Test
    void multiTenantDemoServesEachTenantItsOwnSeries() throws Exception {
        int httpPort = FreePorts.next();
        String queryUrl = "http://127.0.0.1:" + httpPort;
        String acme = ApiTokens.newToken(new SecureRandom());
        String globex = ApiTokens.newToken(new SecureRandom());
        Path tokens = Files.write(workDir.resolve("tenant-tokens"), List.of(
                ApiTokens.line(acme, new Grant("acme", Scope.WRITE, "acme")),
                ApiTokens.line(globex, new Grant("globex", Scope.WRITE, "globex"))));
        JarProcess demo = JarProcess.start("demo-tenants", null, "demo",
                "--kafka-port", Integer.toString(FreePorts.next()), "--controller-port", Integer.toString(FreePorts.next()),
                "--registry-port", Integer.toString(FreePorts.next()), "--http-port", Integer.toString(httpPort),
                "--data-dir", workDir.resolve("data-tenants").toString(), "--rate", "100", "--devices", "4",
                "--auth-tokens", tokens.toString(), "--multi-tenant");
        started.add(demo);
        assertThat(demo.awaitLineContaining("Tenants", HANG_GUARD)).contains("acme, globex");
        awaitReady(queryUrl + "/ready", HANG_GUARD);

        // The load: device-00000 is acme's, device-00001 globex's.
        String acmeDevice = queryUrl + "/api/v1/series/device-00000/temperature/latest";
        String globexDevice = queryUrl + "/api/v1/series/device-00001/temperature/latest";
        awaitStatus(acmeDevice, acme, 200);
        awaitStatus(globexDevice, globex, 200);
        assertThat(get(globexDevice, acme).statusCode()).as("globex's device, asked with acme's token").isEqualTo(404);
        assertThat(get(acmeDevice, globex).statusCode()).as("acme's device, asked with globex's token").isEqualTo(404);

        // The same device id written by both tenants: two series, each read by its own tenant only.
        long now = System.currentTimeMillis();
        assertThat(write(queryUrl, "room,host=shared temp=1 " + now, acme, "acme").statusCode()).isEqualTo(204);
        assertThat(write(queryUrl, "room,host=shared temp=2 " + now, globex, "").statusCode()).isEqualTo(204);
        assertThat(write(queryUrl, "room,host=shared temp=3 " + now, acme, "globex").statusCode())
                .as("acme's token naming globex's bucket").isEqualTo(403);
        String shared = queryUrl + "/api/v1/series/shared/room.temp/latest";
        awaitStatus(shared, acme, 200);
        awaitStatus(shared, globex, 200);
        assertThat(get(shared, acme).body()).contains("\"value\":1.0");
        assertThat(get(shared, globex).body()).contains("\"value\":2.0");
        demo.stopWithSigterm(HANG_GUARD);
    }

    private static HttpResponse<String> write(String queryUrl, String lines, String token, String bucket) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create(queryUrl + "/api/v2/write?org=o&bucket=" + bucket + "&precision=ms"))
                .header("Authorization", "Bearer " + token)
                .POST(HttpRequest.BodyPublishers.ofString(lines)).build(), HttpResponse.BodyHandlers.ofString());
    }

    private static void awaitStatus(String url, String token, int status) throws Exception {
        long deadline = System.nanoTime() + HANG_GUARD.toNanos();
        while (get(url, token).statusCode() != status && System.nanoTime() < deadline) {
            Thread.sleep(200);
        }
        assertThat(get(url, token).statusCode()).as(url).isEqualTo(status);
    }

    private static HttpResponse<String> get(String url, String token) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(url)).GET();
        if (token != null) {
            request.header("Authorization", "Bearer " + token);
        }
        return HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static HttpResponse<String> post(String url, String body, String token) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(url))
                .header("Content-Type", "application/vnd.schemaregistry.v1+json")
                .POST(HttpRequest.BodyPublishers.ofString(body));
        if (token != null) {
            request.header("Authorization", "Bearer " + token);
        }
        return HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static HttpResponse<String> get(String url) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create(url)).GET().build(), HttpResponse.BodyHandlers.ofString());
    }

    private static HttpResponse<String> post(String url, String body) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create(url))
                .header("Content-Type", "application/vnd.schemaregistry.v1+json")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
    }

    private static void awaitReady(String url, Duration timeout) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            try {
                if (get(url).statusCode() == 200) {
                    return;
                }
            } catch (IOException notYet) {
                // the HTTP server is not up yet
            }
            Thread.sleep(200);
        }
        throw new AssertionError(url + " did not answer 200 within " + timeout);
    }

    private JarProcess startDemo(int kafkaPort, int controllerPort, int registryPort, int httpPort) {
        JarProcess demo = JarProcess.start("demo", null, "demo",
                "--kafka-port", Integer.toString(kafkaPort),
                "--controller-port", Integer.toString(controllerPort),
                "--registry-port", Integer.toString(registryPort),
                "--http-port", Integer.toString(httpPort),
                "--data-dir", workDir.resolve("data").toString());
        started.add(demo);
        return demo;
    }

    private static void produce(String bootstrap, String topic, String value) throws Exception {
        Map<String, Object> config = Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                ProducerConfig.ACKS_CONFIG, "all");
        try (KafkaProducer<String, String> producer =
                     new KafkaProducer<>(config, new StringSerializer(), new StringSerializer())) {
            producer.send(new ProducerRecord<>(topic, "device-1", value)).get(30, TimeUnit.SECONDS);
        }
    }

    private static List<String> consumeAll(String bootstrap, String topic) {
        Map<String, Object> config = Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        List<String> values = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer =
                     new KafkaConsumer<>(config, new StringDeserializer(), new StringDeserializer())) {
            List<TopicPartition> partitions = consumer.partitionsFor(topic, Duration.ofSeconds(30)).stream()
                    .map(p -> new TopicPartition(topic, p.partition())).toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            long deadline = System.nanoTime() + HANG_GUARD.toNanos();
            while (values.isEmpty() && System.nanoTime() < deadline) {
                for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(200))) {
                    values.add(record.value());
                }
            }
            consumer.poll(Duration.ofMillis(500)).forEach(record -> values.add(record.value()));
        }
        return values;
    }
}
