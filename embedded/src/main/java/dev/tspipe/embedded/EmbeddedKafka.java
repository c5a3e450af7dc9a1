package dev.tspipe.embedded;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.errors.TopicExistsException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A single-node Apache Kafka broker running in this JVM: one KRaft process that is both
 * broker and controller, as {@code bin/kafka-server-start.sh} runs it with a combined
 * {@code server.properties}.
 *
 * <p>It is a real broker (the {@code kafka_2.13} classes, real sockets, real log segments),
 * configured for a single node so that transactions and consumer groups work: every internal
 * topic has replication factor 1 and min ISR 1, and the first consumer-group rebalance is not
 * delayed.
 *
 * <p>Storage is formatted programmatically by {@link KraftServer} (the equivalent of
 * {@code kafka-storage format}) the first time a log directory is used. A broker started on a directory that already holds
 * a formatted log keeps its cluster id, topics and records. Without a directory, a temporary
 * one is created and deleted on {@link #close()}.
 *
 * <pre>{@code
 * try (EmbeddedKafka kafka = EmbeddedKafka.builder().port(9092).logDir(Path.of("data/kafka")).start()) {
 *     kafka.createTopic("readings", 6);
 *     String bootstrap = kafka.bootstrapServers();   // "127.0.0.1:9092"
 * }
 * }</pre>
 */
public final class EmbeddedKafka implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(EmbeddedKafka.class);

    /** Every client listens on loopback only: the embedded broker is for one machine. */
    public static final String HOST = "127.0.0.1";

    private static final int NODE_ID = 1;
    private static final String BROKER_LISTENER = "PLAINTEXT";
    private static final String CONTROLLER_LISTENER = "CONTROLLER";
    private static final Duration READY_TIMEOUT = Duration.ofSeconds(60);

    private final KraftServer server;
    private final Path logDir;
    private final boolean deleteLogDirOnClose;
    private final int port;
    private final int controllerPort;
    private boolean closed;

    private EmbeddedKafka(KraftServer server, Path logDir, boolean deleteLogDirOnClose,
                          int port, int controllerPort) {
        this.server = server;
        this.logDir = logDir;
        this.deleteLogDirOnClose = deleteLogDirOnClose;
        this.port = port;
        this.controllerPort = controllerPort;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** {@code host:port} for {@code bootstrap.servers}. */
    public String bootstrapServers() {
        return HOST + ":" + port;
    }

    public int port() {
        return port;
    }

    public int controllerPort() {
        return controllerPort;
    }

    /** The folder holding the broker's metadata and topic logs. */
    public Path logDir() {
        return logDir;
    }

    /** Client properties that reach this broker; a starting point for producers, consumers and admins. */
    public Map<String, Object> clientConfig() {
        Map<String, Object> config = new HashMap<>();
        config.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
        return config;
    }

    /** Creates a topic with replication factor 1; an existing topic of that name is left as it is. */
    public void createTopic(String name, int partitions) {
        createTopics(new NewTopic(name, partitions, (short) 1));
    }

    /** Creates topics; those that exist already are left as they are. */
    public void createTopics(NewTopic... topics) {
        try (Admin admin = Admin.create(clientConfig())) {
            for (NewTopic topic : topics) {
                try {
                    admin.createTopics(List.of(topic)).all().get(READY_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
                    log.info("Created topic {} with {} partitions", topic.name(), topic.numPartitions());
                } catch (ExecutionException e) {
                    if (!(e.getCause() instanceof TopicExistsException)) {
                        throw new IllegalStateException("Could not create topic " + topic.name() + ": " + e.getCause().getMessage(), e.getCause());
                    }
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while creating topics", e);
        } catch (java.util.concurrent.TimeoutException e) {
            throw new IllegalStateException("Timed out creating topics on " + bootstrapServers(), e);
        }
    }

    /** Names of the topics on this broker, internal topics excluded. */
    public Set<String> topicNames() {
        try (Admin admin = Admin.create(clientConfig())) {
            return admin.listTopics().names().get(READY_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while listing topics", e);
        } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
            throw new IllegalStateException("Could not list topics on " + bootstrapServers(), e);
        }
    }

    /** Stops the broker and waits until it has stopped; deletes the log directory if it was temporary. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        log.info("Stopping embedded Kafka broker on {}", bootstrapServers());
        server.close();
        if (deleteLogDirOnClose) {
            deleteRecursively(logDir);
        }
        log.info("Embedded Kafka broker on port {} stopped", port);
    }

    /** Options of an embedded broker; {@link #start()} formats storage if needed and starts it. */
    public static final class Builder {
        private int port;
        private int controllerPort;
        private Path logDir;
        private final Map<String, String> overrides = new HashMap<>();

        private Builder() {
        }

        /** The client port; 0 (the default) picks a free port. */
        public Builder port(int port) {
            this.port = requirePort(port, "port");
            return this;
        }

        /** The KRaft controller port; 0 (the default) picks a free port. */
        public Builder controllerPort(int controllerPort) {
            this.controllerPort = requirePort(controllerPort, "controllerPort");
            return this;
        }

        /**
         * A folder that holds the broker's data and survives restarts. Without one, a temporary
         * folder is used and deleted on close.
         */
        public Builder logDir(Path logDir) {
            this.logDir = Objects.requireNonNull(logDir, "logDir");
            return this;
        }

        /** Any broker setting ({@code server.properties} key), applied after tspipe's defaults. */
        public Builder brokerConfig(String key, String value) {
            overrides.put(Objects.requireNonNull(key, "key"), Objects.requireNonNull(value, "value"));
            return this;
        }

        public EmbeddedKafka start() {
            boolean temporary = logDir == null;
            Path dir;
            try {
                dir = temporary ? Files.createTempDirectory("tspipe-kafka-") : Files.createDirectories(logDir.toAbsolutePath());
            } catch (IOException e) {
                throw new UncheckedIOException("Could not create the broker's log directory " + logDir, e);
            }
            int brokerPort = port != 0 ? port : FreePorts.next(HOST);
            int quorumPort = controllerPort != 0 ? controllerPort : FreePorts.next(HOST);
            Map<String, String> props = brokerProperties(dir, brokerPort, quorumPort);
            props.putAll(overrides);
            KraftServer server = null;
            try {
                // A new folder gets a new cluster; a formatted one keeps its own.
                server = KraftServer.start(props, Optional.of(KraftServer.randomClusterId()));
                EmbeddedKafka kafka = new EmbeddedKafka(server, dir, temporary, brokerPort, quorumPort);
                awaitReady(kafka);
                log.info("Embedded Kafka broker ready on {} (data in {})", kafka.bootstrapServers(), dir);
                return kafka;
            } catch (RuntimeException | Error e) {
                if (server != null) {
                    server.close();
                }
                if (temporary) {
                    deleteRecursively(dir);
                }
                throw e;
            }
        }

        private static Map<String, String> brokerProperties(Path dir, int brokerPort, int quorumPort) {
            Map<String, String> props = new HashMap<>();
            props.put("process.roles", "broker,controller");
            props.put("node.id", Integer.toString(NODE_ID));
            props.put("controller.quorum.voters", NODE_ID + "@" + HOST + ":" + quorumPort);
            props.put("listeners", BROKER_LISTENER + "://" + HOST + ":" + brokerPort + ","
                    + CONTROLLER_LISTENER + "://" + HOST + ":" + quorumPort);
            props.put("advertised.listeners", BROKER_LISTENER + "://" + HOST + ":" + brokerPort);
            props.put("listener.security.protocol.map", BROKER_LISTENER + ":PLAINTEXT," + CONTROLLER_LISTENER + ":PLAINTEXT");
            props.put("controller.listener.names", CONTROLLER_LISTENER);
            props.put("inter.broker.listener.name", BROKER_LISTENER);
            props.put("log.dirs", dir.toString());
            props.put("metadata.log.dir", dir.toString());

            // One node: every internal topic has one replica, and transactions must accept that.
            props.put("offsets.topic.replication.factor", "1");
            props.put("offsets.topic.num.partitions", "10");
            props.put("transaction.state.log.replication.factor", "1");
            props.put("transaction.state.log.min.isr", "1");
            props.put("transaction.state.log.num.partitions", "10");
            props.put("share.coordinator.state.topic.replication.factor", "1");
            props.put("share.coordinator.state.topic.min.isr", "1");
            props.put("default.replication.factor", "1");
            props.put("min.insync.replicas", "1");
            // Nobody else will join: do not make the first consumer group wait 3 s for members.
            props.put("group.initial.rebalance.delay.ms", "0");
            // A laptop-sized log cleaner (the default dedupe buffer is 128 MiB).
            props.put("log.cleaner.dedupe.buffer.size", Integer.toString(2 * 1024 * 1024));
            return props;
        }

        private static void awaitReady(EmbeddedKafka kafka) {
            long deadline = System.nanoTime() + READY_TIMEOUT.toNanos();
            Map<String, Object> config = kafka.clientConfig();
            config.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 5_000);
            config.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 10_000);
            try (Admin admin = Admin.create(config)) {
                while (true) {
                    try {
                        if (!admin.describeCluster().nodes().get(5, TimeUnit.SECONDS).isEmpty()) {
                            return;
                        }
                    } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
                        if (System.nanoTime() > deadline) {
                            throw new IllegalStateException("Embedded Kafka on " + kafka.bootstrapServers()
                                    + " did not become ready within " + READY_TIMEOUT.toSeconds() + " s", e);
                        }
                    }
                    Thread.sleep(50);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("Interrupted while waiting for the embedded broker", e);
            }
        }

        private static int requirePort(int port, String name) {
            if (port < 0 || port > 65_535) {
                throw new IllegalArgumentException(name + " must be between 0 and 65535, got " + port);
            }
            return port;
        }
    }

    private static void deleteRecursively(Path dir) {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(dir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(path -> {
                try {
                    Files.deleteIfExists(path);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        } catch (IOException | UncheckedIOException e) {
            log.warn("Could not delete temporary broker directory {}: {}", dir, e.getMessage());
        }
    }
}
