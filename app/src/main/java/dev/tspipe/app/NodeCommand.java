package dev.tspipe.app;

import org.apache.kafka.streams.StreamsConfig;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

import java.io.PrintWriter;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Callable;

/**
 * {@code tspipe node}: one instance against any Kafka cluster. Run several with the same
 * application id to share the partitions; each answers every query, forwarding to the owner.
 */
@Command(
        name = "node",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        usageHelpAutoWidth = true,
        header = "Run one tspipe instance (ingestion topology + HTTP queries) against a Kafka cluster.",
        description = {
                "",
                "Reads readings from the input topic, keeps the row-keyed tables in RocksDB under the state "
                        + "directory and answers queries over HTTP. Start several instances with the same "
                        + "--application-id to split the partitions; any instance answers any query.",
                "",
                "Every option can also come from the environment (--http-port is TSPIPE_HTTP_PORT) or from a "
                        + "properties file (--config FILE or TSPIPE_CONFIG; keys like http-port or http.port). "
                        + "Precedence: flag, environment, file, default. Other keys of the file (Kafka Streams "
                        + "settings such as commit.interval.ms, and tspipe.* settings such as "
                        + "tspipe.raw.retention.ms) are passed on.",
                ""
        },
        footerHeading = "%nExamples:%n",
        footer = {
                "  tspipe node --bootstrap-servers kafka-1:9092 --schema-registry-url http://registry:8081",
                "  tspipe node --config /etc/tspipe/node.properties --http-port 8081 --state-dir /var/lib/tspipe",
                "  tspipe node --auth-tokens /etc/tspipe/tokens --tls-cert node.crt --tls-key node.key --tls-ca ca.crt",
                "  TSPIPE_BOOTSTRAP_SERVERS=kafka:9092 tspipe node"
        })
final class NodeCommand implements Callable<Integer> {

    @Option(names = {"-c", "--config"}, paramLabel = "FILE", description = "Properties file with settings (see above).")
    Path config;

    @Mixin
    KafkaOptions kafka;

    @Option(names = "--application-id", paramLabel = "ID", defaultValue = "tspipe",
            description = "Kafka Streams application id; instances with the same id share the work (default: ${DEFAULT-VALUE}).")
    String applicationId;

    @Option(names = "--http-host", paramLabel = "HOST", defaultValue = "0.0.0.0",
            description = "Address the HTTP server binds (default: ${DEFAULT-VALUE}).")
    String httpHost;

    @Option(names = "--http-port", paramLabel = "PORT", defaultValue = "8080",
            description = "HTTP port (default: ${DEFAULT-VALUE}).")
    int httpPort;

    @Option(names = "--advertised-host", paramLabel = "HOST",
            description = "Host name other instances use to reach this one (default: this machine's host name).")
    String advertisedHost;

    @Mixin
    HttpSecurityOptions httpSecurity;

    @Option(names = "--state-dir", paramLabel = "DIR", defaultValue = "data/state",
            description = "Folder of the local RocksDB state (default: ./${DEFAULT-VALUE}).")
    String stateDir;

    @Option(names = "--readings-topic", paramLabel = "TOPIC", defaultValue = "readings",
            description = "Input topic (default: ${DEFAULT-VALUE}).")
    String readingsTopic;

    @Option(names = "--dlq-topic", paramLabel = "TOPIC", defaultValue = "readings-dlq",
            description = "Dead-letter topic (default: ${DEFAULT-VALUE}).")
    String dlqTopic;

    @Option(names = "--devices-topic", paramLabel = "TOPIC", defaultValue = "devices",
            description = "Compacted topic of device metadata, read whole by every node (default: ${DEFAULT-VALUE}).")
    String devicesTopic;

    @Option(names = "--create-topics",
            description = "Create the readings topic (with --partitions), the dead-letter topic and the compacted devices "
                    + "topic when they are missing, with the cluster's default replication factor.")
    boolean createTopics;

    @Option(names = "--partitions", paramLabel = "N", defaultValue = "12",
            description = "Partitions of the readings topic when --create-topics creates it (default: ${DEFAULT-VALUE}).")
    int partitions;

    @Option(names = "--processing-guarantee", paramLabel = "GUARANTEE", defaultValue = StreamsConfig.EXACTLY_ONCE_V2,
            description = "exactly_once_v2 or at_least_once (default: ${DEFAULT-VALUE}).")
    String processingGuarantee;

    @Option(names = "--threads", paramLabel = "N", defaultValue = "1",
            description = "Kafka Streams threads (default: ${DEFAULT-VALUE}).")
    int threads;

    @Option(names = "--standby-replicas", paramLabel = "N", defaultValue = "1",
            description = "Standby copies of each task on other instances, for fast failover (default: ${DEFAULT-VALUE}).")
    int standbyReplicas;

    @Mixin
    WriteMappingOptions writeMapping;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() throws InterruptedException {
        if (!processingGuarantee.equals(StreamsConfig.EXACTLY_ONCE_V2) && !processingGuarantee.equals(StreamsConfig.AT_LEAST_ONCE)) {
            throw new UserError("--processing-guarantee must be exactly_once_v2 or at_least_once, not '" + processingGuarantee + "'");
        }
        Properties extra = LayeredDefaults.withoutOptions(LayeredDefaults.fileSettings(spec), spec);
        // Security and other client settings of --kafka-config: Kafka Streams hands them to all its clients.
        Map<String, Object> clientSettings = kafka.clientSettings();
        clientSettings.forEach(extra::putIfAbsent);
        TspipeNode.Settings settings = new TspipeNode.Settings(kafka.bootstrapServers, kafka.schemaRegistryUrl,
                applicationId, httpHost,
                httpPort, advertisedHost != null ? advertisedHost : hostName(), stateDir, readingsTopic, dlqTopic,
                devicesTopic, processingGuarantee, threads, standbyReplicas, extra, httpSecurity.authTokens(), httpSecurity.tls(),
                clientSettings, writeMapping.influx(), writeMapping.remoteWrite());
        if (createTopics) {
            TopicSetup.createMissing(clientSettings, readingsTopic, partitions, dlqTopic, devicesTopic);
        }
        try (ProcessLifecycle lifecycle = new ProcessLifecycle()) {
            TspipeNode node = lifecycle.register("tspipe node", TspipeNode.start(settings));
            PrintWriter out = spec.commandLine().getOut();
            out.printf("tspipe node %s is running: HTTP %s, Kafka %s, state in %s%n", applicationId, node.url(),
                    kafka.bootstrapServers, stateDir);
            out.println("Press Ctrl-C to stop.");
            out.flush();
            lifecycle.awaitShutdown();
        }
        return 0;
    }

    private static String hostName() {
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException e) {
            return "127.0.0.1";
        }
    }
}
