package dev.tspipe.embedded;

import kafka.server.BrokerServer;
import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;

import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.metadata.storage.Formatter;
import org.apache.kafka.server.common.MetadataVersion;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import scala.Option;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.lang.reflect.Field;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * One Apache Kafka KRaft server (broker, controller, or both) in this JVM, from the settings of a
 * {@code server.properties}: what {@code kafka-storage.sh format} followed by
 * {@code kafka-server-start.sh} does, for {@code tspipe broker} and for {@link EmbeddedKafka}.
 *
 * <p>The log directories are formatted the first time they are used, with the given cluster id;
 * every node of a cluster must be formatted with the same one. A node whose directories are
 * already formatted keeps its cluster id, topics and records, and needs no cluster id.
 *
 * <pre>{@code
 * try (KraftServer server = KraftServer.start(serverProperties, Optional.of("MkU3OEVBNTcwNTJENDM2Qg"))) {
 *     server.awaitShutdown();   // until close() or a fatal error stops it
 * }
 * }</pre>
 */
public final class KraftServer implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(KraftServer.class);

    /**
     * How long the broker waits for the controller quorum to approve its controlled shutdown before it
     * stops without it (logs still closed cleanly). Kafka waits 5 minutes: the last node of a cluster
     * stopped, or a node whose fellow controllers stopped first, would hang that long, since no quorum is
     * left to approve. With a quorum, approval took 1.4-6 s here (BrokerAndRegistryIT).
     */
    static final Duration CONTROLLED_SHUTDOWN_WAIT = Duration.ofSeconds(20);

    private final KafkaRaftServer server;
    private final int nodeId;
    private boolean closed;

    private KraftServer(KafkaRaftServer server, int nodeId) {
        this.server = server;
        this.nodeId = nodeId;
    }

    /**
     * Formats the log directories if they are not formatted yet, then starts the server.
     *
     * @param properties Kafka server settings ({@code node.id}, {@code process.roles}, {@code listeners},
     *                   {@code controller.quorum.voters}, {@code log.dirs}, ...), validated by Kafka's own
     *                   {@code KafkaConfig}: a bad or missing setting is an {@link IllegalArgumentException}
     *                   that names it
     * @param clusterId  the cluster id to format new directories with; required only when a directory is new
     */
    public static KraftServer start(Map<String, String> properties, Optional<String> clusterId) {
        KafkaConfig config;
        try {
            config = new KafkaConfig(new HashMap<>(properties), false);
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("invalid Kafka server setting: " + e.getMessage(), e);
        }
        List<String> logDirs = Arrays.stream(properties.getOrDefault("log.dirs", properties.getOrDefault("log.dir", ""))
                .split(",")).map(String::trim).filter(dir -> !dir.isEmpty()).toList();
        if (logDirs.isEmpty()) {
            throw new IllegalArgumentException("log.dirs is not set: the server needs a folder for its data");
        }
        String metadataDir = properties.getOrDefault("metadata.log.dir", logDirs.get(0));
        String controllerListener = config.controllerListenerNames().get(0);
        formatIfNeeded(config.nodeId(), logDirs, metadataDir, controllerListener, clusterId);

        KafkaRaftServer server = new KafkaRaftServer(config, Time.SYSTEM);
        try {
            server.startup();
        } catch (RuntimeException | Error e) {
            server.shutdown();
            server.awaitShutdown();
            throw e;
        }
        log.info("Kafka server {} started ({}; data in {})", config.nodeId(), properties.get("process.roles"), logDirs);
        return new KraftServer(server, config.nodeId());
    }

    /** A new random cluster id, as {@code kafka-storage.sh random-uuid} prints it. */
    public static String randomClusterId() {
        return Uuid.randomUuid().toString();
    }

    public int nodeId() {
        return nodeId;
    }

    /** Whether {@link #close()} was called: after {@link #awaitShutdown()}, false means the server stopped on its own. */
    public synchronized boolean closeRequested() {
        return closed;
    }

    /** Blocks until the server has stopped (after {@link #close()}, or after a fatal error stopped it). */
    public void awaitShutdown() {
        server.awaitShutdown();
    }

    /**
     * Stops the server in order (leadership moved away if a controller quorum approves within
     * {@link #CONTROLLED_SHUTDOWN_WAIT}, logs flushed and closed) and waits until it has stopped.
     */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        log.info("Stopping Kafka server {}", nodeId);
        brokerOf(server).ifPresent(broker -> broker.shutdown(CONTROLLED_SHUTDOWN_WAIT));
        // The broker is stopped already (then this stops the controller), or not found (then this stops both).
        server.shutdown();
        server.awaitShutdown();
        log.info("Kafka server {} stopped", nodeId);
    }

    /** This server's broker, as {@link #close()} reaches it; empty for a controller only. */
    Optional<BrokerServer> broker() {
        return brokerOf(server);
    }

    /**
     * The broker inside a {@code KafkaRaftServer} (a private field of Kafka's: internals, not an API), so
     * that it can be stopped with a bound on the wait for its controlled shutdown; empty if this server
     * has no broker role, or if a Kafka upgrade moved the field (then {@code KraftServerTest} fails).
     */
    static Optional<BrokerServer> brokerOf(KafkaRaftServer server) {
        try {
            Field field = KafkaRaftServer.class.getDeclaredField("broker");
            field.setAccessible(true);
            Option<?> broker = (Option<?>) field.get(server);
            return broker.isDefined() ? Optional.of((BrokerServer) broker.get()) : Optional.empty();
        } catch (ReflectiveOperationException | RuntimeException e) {
            log.warn("Cannot reach the broker of Kafka server to bound its controlled shutdown ({}); it may wait up to"
                    + " 5 minutes for a controller quorum", e.toString());
            return Optional.empty();
        }
    }

    /**
     * Formats the directories that are not formatted yet (Kafka's {@code kafka-storage.sh format
     * --ignore-formatted}); fails if one must be formatted and no cluster id is given.
     */
    static void formatIfNeeded(int nodeId, List<String> logDirs, String metadataDir, String controllerListener,
                               Optional<String> clusterId) {
        List<String> all = new ArrayList<>(logDirs);
        if (!all.contains(metadataDir)) {
            all.add(metadataDir);
        }
        if (all.stream().allMatch(dir -> Files.exists(Path.of(dir, "meta.properties")))) {
            log.info("Kafka storage in {} is already formatted; keeping its topics and records", all);
            return;
        }
        String id = clusterId.orElseThrow(() -> new IllegalArgumentException("the folder " + all
                + " is not formatted yet and no cluster id was given: give every node of the cluster the same one,"
                + " for example " + randomClusterId()));
        for (String dir : all) {
            try {
                Files.createDirectories(Path.of(dir));
            } catch (IOException e) {
                throw new UncheckedIOException("could not create the Kafka data folder " + dir, e);
            }
        }
        Formatter formatter = new Formatter()
                .setPrintStream(new PrintStream(PrintStream.nullOutputStream()))
                .setNodeId(nodeId)
                .setClusterId(id)
                .setDirectories(all)
                .setMetadataLogDirectory(metadataDir)
                .setControllerListenerName(controllerListener)
                .setReleaseVersion(MetadataVersion.LATEST_PRODUCTION)
                .setIgnoreFormatted(true);
        try {
            formatter.run();
        } catch (Exception e) {
            throw new IllegalStateException("could not format Kafka storage in " + all + ": " + e.getMessage(), e);
        }
        log.info("Formatted Kafka storage in {} (cluster id {}, node {})", all, id, nodeId);
    }
}
