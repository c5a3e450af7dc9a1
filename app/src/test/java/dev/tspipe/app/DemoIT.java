package dev.tspipe.app;

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

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
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

    private final List<Process> started = new ArrayList<>();

    @AfterEach
    void killLeftovers() {
        started.forEach(Process::destroyForcibly);
    }

    @Test
    void demoServesKafkaAndTheRegistryStopsOnSigtermAndKeepsDataAcrossRestarts() throws Exception {
        int kafkaPort = freePort();
        int controllerPort = freePort();
        int registryPort = freePort();
        int httpPort = freePort();
        String queryUrl = "http://127.0.0.1:" + httpPort;
        String bootstrap = "127.0.0.1:" + kafkaPort;
        String registryUrl = "http://127.0.0.1:" + registryPort;

        long startNanos = System.nanoTime();
        Process first = startDemo(kafkaPort, controllerPort, registryPort, httpPort);
        String banner = awaitLineContaining(first, registryUrl, HANG_GUARD);
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
        stopWithSigterm(first);

        Process second = startDemo(kafkaPort, controllerPort, registryPort, httpPort);
        awaitLineContaining(second, registryUrl, HANG_GUARD);
        awaitReady(queryUrl + "/ready", HANG_GUARD);
        assertThat(consumeAll(bootstrap, "demo-check")).containsExactly("hello");
        assertThat(get(registryUrl + "/subjects").body()).isEqualTo("[\"demo-check-value\",\"readings-value\"]");
        assertThat(get(registryUrl + "/schemas/ids/" + stringSchemaId).body()).isEqualTo("{\"schema\":\"\\\"string\\\"\"}");
        assertThat(get(queryUrl + "/api/v1/series/device-00001/temperature/latest").statusCode())
                .as("the tables survive the restart").isEqualTo(200);
        stopWithSigterm(second);
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

    private Process startDemo(int kafkaPort, int controllerPort, int registryPort, int httpPort) throws IOException {
        String jar = System.getProperty("tspipe.jar");
        assertThat(jar).as("failsafe passes the packaged jar's path").isNotBlank();
        Process process = new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-jar", jar, "demo",
                "--kafka-port", Integer.toString(kafkaPort),
                "--controller-port", Integer.toString(controllerPort),
                "--registry-port", Integer.toString(registryPort),
                "--http-port", Integer.toString(httpPort),
                "--data-dir", workDir.resolve("data").toString())
                .redirectError(ProcessBuilder.Redirect.INHERIT)
                .start();
        started.add(process);
        return process;
    }

    private static void stopWithSigterm(Process process) throws InterruptedException {
        long start = System.nanoTime();
        process.destroy(); // SIGTERM on Unix
        boolean exited = process.waitFor(HANG_GUARD.toMillis(), TimeUnit.MILLISECONDS);
        long tookMs = (System.nanoTime() - start) / 1_000_000;

        assertThat(exited).as("demo exited after SIGTERM (gave up after %s)", HANG_GUARD).isTrue();
        assertThat(process.descendants().filter(ProcessHandle::isAlive)).as("no child process left").isEmpty();
        System.out.printf("demo stopped %d ms after SIGTERM, exit code %d%n", tookMs, process.exitValue());
    }

    private static String awaitLineContaining(Process process, String text, Duration timeout) throws Exception {
        BufferedReader reader = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        CompletableFuture<String> found = CompletableFuture.supplyAsync(() -> {
            try {
                for (String line = reader.readLine(); line != null; line = reader.readLine()) {
                    if (line.contains(text)) {
                        return line;
                    }
                }
                throw new IllegalStateException("demo exited without printing " + text);
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
        });
        String line = found.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        // Keep draining stdout so that the demo never blocks on a full pipe.
        CompletableFuture.runAsync(() -> reader.lines().forEach(l -> { }));
        return line;
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

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            return socket.getLocalPort();
        }
    }
}
