package dev.tspipe.docker;

import dev.tspipe.bench.faults.Failover;
import dev.tspipe.embedded.FreePorts;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.ComposeContainer;
import org.testcontainers.containers.ContainerState;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/**
 * The cluster of {@code docker/compose.yml} (3 brokers, the registry, 3 nodes; not the generator),
 * started by Testcontainers through the local {@code docker compose}, with its image built from
 * this checkout ({@code up --build}, so the image always holds the jar just built). Host ports are
 * picked free and handed to the compose file, so a cluster a user runs beside it is not disturbed.
 */
final class ComposeCluster implements Failover.Nodes, AutoCloseable {

    static final String APPLICATION_ID = "tspipe";
    static final String READINGS_TOPIC = "readings";
    static final String DLQ_TOPIC = "readings-dlq";
    static final int PARTITIONS = 12;
    static final List<String> BROKERS = List.of("kafka-1", "kafka-2", "kafka-3");
    static final List<String> NODES = List.of("node-1", "node-2", "node-3");

    private static final String BASE_IMAGE = Optional.ofNullable(System.getenv("TSPIPE_BASE_IMAGE")).orElse("tspipe/jre:17");
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    private final File composeFile;
    private final Map<String, Integer> hostPorts = new HashMap<>();
    private final Set<Integer> killedNodes = new HashSet<>();
    private ComposeContainer compose;

    ComposeCluster(File composeFile) {
        this.composeFile = composeFile;
        for (String port : List.of("KAFKA_1", "KAFKA_2", "KAFKA_3", "REGISTRY", "NODE_1", "NODE_2", "NODE_3")) {
            hostPorts.put(port, FreePorts.next("0.0.0.0"));
        }
    }

    /**
     * Why the cluster cannot run here, or empty if it can: a Docker engine, the Compose v2 plugin,
     * the base image and the jar must all be there. docker/test.sh provides each of them.
     */
    static Optional<String> whyNotRunnable(File composeFile, Path jar) {
        String fix = "; docker/test.sh installs and starts the engine, builds the images and runs these tests";
        if (!composeFile.isFile()) {
            return Optional.of("no compose file at " + composeFile);
        }
        if (!DockerClientFactory.instance().isDockerAvailable()) {
            return Optional.of("no Docker engine is reachable" + fix);
        }
        if (run(List.of("docker", "compose", "version"), Duration.ofSeconds(30)) != 0) {
            return Optional.of("the Docker Compose v2 plugin ('docker compose') is missing" + fix);
        }
        if (run(List.of("docker", "image", "inspect", BASE_IMAGE), Duration.ofSeconds(30)) != 0) {
            return Optional.of("the base image " + BASE_IMAGE + " is missing (docker/base-image.sh builds it from Debian packages)" + fix);
        }
        if (!Files.isRegularFile(jar)) {
            return Optional.of("the jar " + jar + " is missing (mvn -B -DskipTests package builds it)");
        }
        return Optional.empty();
    }

    void start() {
        Map<String, String> env = new HashMap<>();
        hostPorts.forEach((name, port) -> env.put("TSPIPE_" + name + "_PORT", Integer.toString(port)));
        env.put("TSPIPE_BASE_IMAGE", BASE_IMAGE);
        // A tag of its own: the test's build does not replace the image a user runs as tspipe:latest.
        env.put("TSPIPE_IMAGE_TAG", "cluster-it");
        compose = new ComposeContainer(composeFile)
                .withLocalCompose(true)
                .withBuild(true)
                .withPull(false)
                .withEnv(env)
                .withRemoveVolumes(true)
                .withStartupTimeout(Duration.ofMinutes(5))
                .withServices(services().toArray(String[]::new));
        compose.start();
    }

    /** {@code host:port,...} of the brokers' EXTERNAL listeners, for clients on this machine. */
    String bootstrapServers() {
        return IntStream.rangeClosed(1, BROKERS.size()).mapToObj(i -> "localhost:" + hostPorts.get("KAFKA_" + i))
                .collect(Collectors.joining(","));
    }

    String registryUrl() {
        return "http://localhost:" + hostPorts.get("REGISTRY");
    }

    @Override
    public int nodeCount() {
        return NODES.size();
    }

    @Override
    public String nodeUrl(int node) {
        return "http://localhost:" + hostPorts.get("NODE_" + (node + 1));
    }

    @Override
    public String advertisedAddress(int node) {
        return NODES.get(node) + ":8080";
    }

    /** {@code docker kill} (SIGKILL): the node leaves no goodbye; the restart policy does not bring it back. */
    @Override
    public void killNode(int node) {
        kill(NODES.get(node));
        killedNodes.add(node);
    }

    List<Integer> aliveNodes() {
        return IntStream.range(0, NODES.size()).filter(i -> !killedNodes.contains(i)).boxed().toList();
    }

    /** {@code docker kill} of a service's container (SIGKILL). */
    void kill(String service) {
        DockerClientFactory.instance().client().killContainerCmd(containerId(service)).exec();
    }

    /** {@code docker start} of a service's container, stopped by {@link #kill}; its volume keeps its data. */
    void restart(String service) {
        DockerClientFactory.instance().client().startContainerCmd(containerId(service)).exec();
    }

    /** Whether every alive node answers 200 on {@code /ready} (Kafka Streams RUNNING). */
    boolean aliveNodesReady() {
        for (int node : aliveNodes()) {
            if (status(nodeUrl(node) + "/ready") != 200) {
                return false;
            }
        }
        return true;
    }

    /** Writes each service's log to {@code dir} (for a failed run). */
    void saveLogs(Path dir) {
        if (compose == null) {
            return;
        }
        try {
            Files.createDirectories(dir);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        for (String service : services()) {
            compose.getContainerByServiceName(service + "-1").or(() -> compose.getContainerByServiceName(service))
                    .ifPresent(c -> {
                        try {
                            Files.writeString(dir.resolve(service + ".log"), c.getLogs());
                        } catch (IOException | RuntimeException e) {
                            System.out.println("could not save the log of " + service + ": " + e);
                        }
                    });
        }
    }

    @Override
    public void close() {
        if (compose != null) {
            compose.stop();
        }
    }

    private String containerId(String service) {
        return compose.getContainerByServiceName(service + "-1").or(() -> compose.getContainerByServiceName(service))
                .map(ContainerState::getContainerId)
                .orElseThrow(() -> new IllegalStateException("no container of service " + service));
    }

    private static List<String> services() {
        List<String> services = new ArrayList<>(BROKERS);
        services.add("registry");
        services.addAll(NODES);
        return services;
    }

    static int status(String url) {
        try {
            return HTTP.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(5)).build(),
                    HttpResponse.BodyHandlers.discarding()).statusCode();
        } catch (IOException e) {
            return 0;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    private static int run(List<String> command, Duration timeout) {
        try {
            Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                process.destroyForcibly();
                return -1;
            }
            return process.exitValue();
        } catch (IOException e) {
            return -1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return -1;
        }
    }
}
