package dev.tspipe.bench.faults;

import dev.tspipe.bench.ChildJvm;
import dev.tspipe.bench.e2e.NodeMain;
import dev.tspipe.embedded.FreePorts;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The processes under test, each a child JVM on fixed ports, so that a restarted one is found where
 * the others expect it: the broker ({@link BrokerMain}, log directory kept across restarts), the
 * schema registry ({@link RegistryMain}) and the tspipe nodes ({@link NodeMain}: the real topology
 * and query server, exactly-once, one standby replica, each with its own state directory kept across
 * restarts). Not thread-safe per process: one lane of faults handles the broker and registry, another
 * the nodes.
 */
final class Cluster implements Failover.Nodes, AutoCloseable {

    static final String INPUT_TOPIC = "readings";
    static final String DLQ_TOPIC = "readings-dlq";
    static final String APPLICATION_ID = "fault-bench";

    private static final Duration START_TIMEOUT = Duration.ofSeconds(120);
    private static final Duration STOP_TIMEOUT = Duration.ofSeconds(60);

    private final FaultOptions options;
    private final Path work;
    private final Path logs;
    private final String runId;
    private final int brokerPort;
    private final int controllerPort;
    private final int registryPort;
    private final int[] nodePorts;
    private volatile ChildJvm broker;
    private volatile ChildJvm registry;
    private final ChildJvm[] nodes;

    Cluster(FaultOptions options, Path work, Path logs, String runId) {
        this.options = options;
        this.work = work;
        this.logs = logs;
        this.runId = runId;
        this.brokerPort = FreePorts.next();
        this.controllerPort = FreePorts.next();
        this.registryPort = FreePorts.next();
        this.nodePorts = new int[options.nodes()];
        for (int i = 0; i < nodePorts.length; i++) {
            nodePorts[i] = FreePorts.next();
        }
        this.nodes = new ChildJvm[options.nodes()];
    }

    String bootstrap() {
        return "127.0.0.1:" + brokerPort;
    }

    String registryUrl() {
        return "http://127.0.0.1:" + registryPort;
    }

    @Override
    public String nodeUrl(int node) {
        return "http://127.0.0.1:" + nodePorts[node];
    }

    @Override
    public String advertisedAddress(int node) {
        return "127.0.0.1:" + nodePorts[node];
    }

    @Override
    public int nodeCount() {
        return nodes.length;
    }

    void startBroker() {
        broker = ChildJvm.start("broker", options.serverJvmOptions(), logFile("broker"), BrokerMain.class,
                List.of(Integer.toString(brokerPort), Integer.toString(controllerPort), work.resolve("kafka").toString()));
        broker.await("READY", START_TIMEOUT);
    }

    /** Starts the registry; a registry that gives up (the broker not reachable yet) is started again, three times at most. */
    void startRegistry() {
        for (int attempt = 1; ; attempt++) {
            registry = ChildJvm.start("registry", options.serverJvmOptions(), logFile("registry"), RegistryMain.class,
                    List.of(bootstrap(), Integer.toString(registryPort)));
            try {
                registry.await("READY", START_TIMEOUT);
                return;
            } catch (IllegalStateException e) {
                registry.close();
                if (attempt == 3) {
                    throw e;
                }
            }
        }
    }

    void killBroker() {
        broker.kill();
    }

    void killRegistry() {
        registry.kill();
    }

    /** Starts node {@code i} on its state directory; returns once Kafka Streams has been started (not yet RUNNING). */
    void startNode(int i) {
        nodes[i] = ChildJvm.start("node-" + i, options.nodeJvmOptions(), logFile("node-" + i), NodeMain.class,
                List.of("tspipe", bootstrap(), registryUrl(), APPLICATION_ID, work.resolve("node-" + i + "-state").toString(),
                        INPUT_TOPIC, DLQ_TOPIC, "1", Integer.toString(nodePorts[i]), "-", "0"));
        nodes[i].await("STARTED", START_TIMEOUT);
    }

    /** Waits until node {@code i} reports RUNNING; false if it did not within {@code timeout} or exited. */
    boolean awaitRunning(int i, Duration timeout) {
        try {
            nodes[i].await("STATE RUNNING", timeout);
            return true;
        } catch (IllegalStateException e) {
            return false;
        }
    }

    @Override
    public void killNode(int i) {
        nodes[i].kill();
    }

    boolean nodeAlive(int i) {
        return nodes[i] != null && nodes[i].isAlive();
    }

    /** Clean shutdown: nodes first (they leave the group), then the registry, then the broker. */
    @Override
    public void close() {
        List<RuntimeException> failures = new ArrayList<>();
        for (ChildJvm node : nodes) {
            stop(node, failures);
        }
        stop(registry, failures);
        stop(broker, failures);
        if (!failures.isEmpty()) {
            throw failures.get(0);
        }
    }

    private static void stop(ChildJvm child, List<RuntimeException> failures) {
        if (child == null) {
            return;
        }
        try {
            child.stop(STOP_TIMEOUT);
        } catch (RuntimeException e) {
            failures.add(e);
        }
    }

    private Path logFile(String name) {
        return logs.resolve("faults-" + runId + "-" + name + ".log");
    }
}
