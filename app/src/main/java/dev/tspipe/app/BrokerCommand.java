package dev.tspipe.app;

import dev.tspipe.embedded.KraftServer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code tspipe broker}: one Apache Kafka KRaft server from tspipe's jar (broker and controller
 * by default), for local clusters and containers where no Kafka distribution is installed. The
 * options are the {@code server.properties} keys a cluster node needs; any other key comes from
 * {@code --config FILE} or {@code --override KEY=VALUE}, as with {@code kafka-server-start.sh}.
 */
@Command(
        name = "broker",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        usageHelpAutoWidth = true,
        header = "Run one Apache Kafka KRaft server (broker + controller by default) from this jar.",
        description = {
                "",
                "The real Apache Kafka server, formatted on first start (kafka-storage.sh format) and then started "
                        + "(kafka-server-start.sh), for a local cluster or a container. Every node of a cluster gets "
                        + "the same --cluster-id and --controller-quorum-voters and its own --node-id.",
                "",
                "Internal topics, and topics created without a replication factor (tspipe's changelogs, DLQ and "
                        + "_schemas), get --replication-factor replicas and --min-insync-replicas: by default 3 and 2 "
                        + "when the quorum has 3 or more voters, else one replica per voter and 1.",
                "",
                "Options come from flags, TSPIPE_* environment (--node-id is TSPIPE_NODE_ID) or a server.properties "
                        + "file (--config FILE: its other keys are passed to Kafka); --override beats them all. "
                        + "SIGTERM or Ctrl-C stops the server cleanly.",
                ""
        },
        footerHeading = "%nExamples:%n",
        footer = {
                "  tspipe broker                      one node on :9092, data in ./data/kafka",
                "  tspipe broker --node-id 1 --cluster-id MkU3OEVBNTcwNTJENDM2Qg \\",
                "      --controller-quorum-voters 1@kafka-1:9093,2@kafka-2:9093,3@kafka-3:9093 \\",
                "      --listeners PLAINTEXT://:9092,CONTROLLER://:9093 \\",
                "      --advertised-listeners PLAINTEXT://kafka-1:9092 --data-dir /var/lib/kafka",
                "  tspipe broker --config server.properties --override log.retention.hours=24"
        })
final class BrokerCommand implements Callable<Integer> {

    private static final Pattern CONTROLLER_PORT = Pattern.compile("(?:^|,)\\s*CONTROLLER://[^,]*:(\\d+)");

    @Option(names = {"-c", "--config"}, paramLabel = "FILE",
            description = "A server.properties file; its keys that are not options here are passed to Kafka.")
    Path config;

    @Option(names = "--node-id", paramLabel = "ID", defaultValue = "1",
            description = "This node's id, unique in the cluster (default: ${DEFAULT-VALUE}).")
    int nodeId;

    @Option(names = "--process-roles", paramLabel = "ROLES", defaultValue = "broker,controller",
            description = "broker, controller, or both (default: ${DEFAULT-VALUE}).")
    String processRoles;

    @Option(names = "--cluster-id", paramLabel = "ID",
            description = {"Cluster id to format a new data folder with; the same on every node "
                    + "(kafka-storage.sh random-uuid makes one). Needed on first start when the quorum has more than one "
                    + "voter; a single node makes its own."})
    String clusterId;

    @Option(names = "--controller-quorum-voters", paramLabel = "ID@HOST:PORT[,...]",
            description = "The controllers of the cluster (default: this node alone, <node-id>@localhost:<CONTROLLER port>).")
    String controllerQuorumVoters;

    @Option(names = "--listeners", paramLabel = "NAME://HOST:PORT[,...]", defaultValue = "PLAINTEXT://:9092,CONTROLLER://:9093",
            description = "Addresses the server listens on (default: ${DEFAULT-VALUE}).")
    String listeners;

    @Option(names = "--advertised-listeners", paramLabel = "NAME://HOST:PORT[,...]",
            description = "Addresses clients and other brokers are told to use (default: the listeners, with this "
                    + "machine's host name).")
    String advertisedListeners;

    @Option(names = "--listener-security-protocol-map", paramLabel = "NAME:PROTOCOL[,...]",
            defaultValue = "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT",
            description = "Security protocol of each listener name (default: ${DEFAULT-VALUE}).")
    String listenerSecurityProtocolMap;

    @Option(names = "--inter-broker-listener-name", paramLabel = "NAME", defaultValue = "PLAINTEXT",
            description = "The listener brokers use between themselves (default: ${DEFAULT-VALUE}).")
    String interBrokerListenerName;

    @Option(names = "--data-dir", paramLabel = "DIR", defaultValue = "data/kafka",
            description = "Folder of the server's metadata and topic logs (log.dirs; default: ./${DEFAULT-VALUE}).")
    Path dataDir;

    @Option(names = "--replication-factor", paramLabel = "N",
            description = "Replicas of internal topics and of topics created without a replication factor "
                    + "(default: 3, or the number of voters when fewer).")
    Integer replicationFactor;

    @Option(names = "--min-insync-replicas", paramLabel = "N",
            description = "Replicas that must have a write before acks=all succeeds (default: 2 when the replication "
                    + "factor is 3 or more, else 1).")
    Integer minInsyncReplicas;

    @Option(names = "--override", paramLabel = "KEY=VALUE",
            description = "Any Kafka server setting, applied last; repeat for several (as kafka-server-start.sh --override).")
    List<String> overrides = List.of();

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() throws InterruptedException {
        Map<String, String> properties = serverProperties(LayeredDefaults.fileSettings(spec));
        KraftServer server;
        try {
            server = KraftServer.start(properties, Optional.ofNullable(clusterId).or(() -> singleVoter(properties)
                    ? Optional.of(KraftServer.randomClusterId()) : Optional.empty()));
        } catch (IllegalArgumentException e) {
            throw new UserError(e.getMessage());
        }
        try (ProcessLifecycle lifecycle = new ProcessLifecycle()) {
            lifecycle.register("Kafka server " + nodeId, server);
            PrintWriter out = spec.commandLine().getOut();
            out.printf("tspipe broker %d is running (%s): listeners %s, data in %s%n", nodeId, processRoles,
                    properties.getOrDefault("advertised.listeners", properties.get("listeners")), properties.get("log.dirs"));
            out.println("Press Ctrl-C to stop.");
            out.flush();
            AtomicBoolean stoppedOnItsOwn = new AtomicBoolean();
            Thread watcher = new Thread(() -> {
                // A fatal error inside Kafka stops the server without stopping this process: stop it too.
                server.awaitShutdown();
                stoppedOnItsOwn.set(!server.closeRequested());
                lifecycle.close();
            }, "tspipe-broker-watch");
            watcher.setDaemon(true);
            watcher.start();
            lifecycle.awaitShutdown();
            if (stoppedOnItsOwn.get()) {
                spec.commandLine().getErr().println("tspipe broker: the Kafka server stopped on its own; its log says why");
                return 1;
            }
        }
        return 0;
    }

    /**
     * The server's settings: tspipe's defaults for a node of a small cluster, then the options, then
     * the other keys of the file, then {@code --override}.
     */
    Map<String, String> serverProperties(Properties file) {
        Map<String, String> props = new LinkedHashMap<>();
        String voters = controllerQuorumVoters != null ? controllerQuorumVoters : nodeId + "@localhost:" + controllerPort();
        int voterCount = voters.split(",").length;
        int replicas = replicationFactor != null ? replicationFactor : Math.min(3, voterCount);
        int minInsync = minInsyncReplicas != null ? minInsyncReplicas : replicas >= 3 ? 2 : 1;
        if (replicas < 1 || minInsync < 1 || minInsync > replicas) {
            throw new UserError("--min-insync-replicas (" + minInsync + ") must be between 1 and --replication-factor ("
                    + replicas + ")");
        }
        props.put("node.id", Integer.toString(nodeId));
        props.put("process.roles", processRoles);
        props.put("controller.quorum.voters", voters);
        props.put("controller.listener.names", "CONTROLLER");
        props.put("listeners", listeners);
        if (advertisedListeners != null) {
            props.put("advertised.listeners", advertisedListeners);
        }
        props.put("listener.security.protocol.map", listenerSecurityProtocolMap);
        if (processRoles.contains("broker")) {
            props.put("inter.broker.listener.name", interBrokerListenerName);
        }
        props.put("log.dirs", dataDir.toAbsolutePath().normalize().toString());
        for (String key : List.of("default.replication.factor", "offsets.topic.replication.factor",
                "transaction.state.log.replication.factor", "share.coordinator.state.topic.replication.factor")) {
            props.put(key, Integer.toString(replicas));
        }
        for (String key : List.of("min.insync.replicas", "transaction.state.log.min.isr",
                "share.coordinator.state.topic.min.isr")) {
            props.put(key, Integer.toString(minInsync));
        }
        LayeredDefaults.withoutOptions(file, spec).forEach((key, value) -> props.put(key.toString(), value.toString().trim()));
        for (String override : overrides) {
            int equals = override.indexOf('=');
            if (equals <= 0) {
                throw new UserError("--override takes KEY=VALUE, not '" + override + "'");
            }
            props.put(override.substring(0, equals).trim(), override.substring(equals + 1).trim());
        }
        return props;
    }

    private int controllerPort() {
        Matcher matcher = CONTROLLER_PORT.matcher(listeners);
        if (!matcher.find()) {
            throw new UserError("--listeners has no CONTROLLER://HOST:PORT listener, so --controller-quorum-voters must be given");
        }
        return Integer.parseInt(matcher.group(1));
    }

    private static boolean singleVoter(Map<String, String> properties) {
        return !properties.get("controller.quorum.voters").contains(",");
    }
}
