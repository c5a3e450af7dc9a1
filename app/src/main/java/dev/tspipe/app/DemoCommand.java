package dev.tspipe.app;

import dev.tspipe.embedded.EmbeddedKafka;
import dev.tspipe.embedded.EmbeddedSchemaRegistry;
import dev.tspipe.ingest.influx.InfluxMapping;
import dev.tspipe.ingest.prometheus.RemoteWrite;
import dev.tspipe.processor.topology.PipelineConfig;
import dev.tspipe.processor.topology.Topics;
import dev.tspipe.query.auth.ApiTokens;
import dev.tspipe.query.auth.BearerTokens;
import dev.tspipe.query.auth.Scope;
import dev.tspipe.query.auth.TokenFile;
import dev.tspipe.schemas.serde.AvroSerdeConfig;

import org.apache.kafka.streams.StreamsConfig;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.io.PrintWriter;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.Callable;

/**
 * {@code tspipe demo}: the whole pipeline on one machine, for trying tspipe out. Data stays in
 * the data folder, so a restart continues where the last run stopped.
 */
@Command(
        name = "demo",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        usageHelpAutoWidth = true,
        header = "Run tspipe on this machine: an embedded Kafka broker, a schema registry and everything that uses them.",
        description = {
                "",
                "Starts a single-node Kafka broker and a Confluent-compatible schema registry (Avro) in this "
                        + "process and keeps their data in the data folder, so a restart keeps every topic, record "
                        + "and schema (the registry keeps its schemas in the topic _schemas). Stop it with Ctrl-C.",
                ""
        },
        footerHeading = "%nExamples:%n",
        footer = {
                "  tspipe demo",
                "  tspipe demo --kafka-port 19092 --controller-port 19093 --data-dir /tmp/tspipe",
                "  tspipe demo --registry-port 18081",
                "  tspipe demo --auth-tokens tokens --multi-tenant --tenants acme,globex --data-dir /tmp/tspipe-tenants",
                "  curl http://127.0.0.1:8081/subjects      # the schema registry's subjects"
        })
final class DemoCommand implements Callable<Integer> {

    @Option(names = "--kafka-port", paramLabel = "PORT", defaultValue = "9092",
            description = "Port of the Kafka broker's client listener (default: ${DEFAULT-VALUE}).")
    int kafkaPort;

    @Option(names = "--controller-port", paramLabel = "PORT", defaultValue = "9093",
            description = "Port of the broker's KRaft controller listener (default: ${DEFAULT-VALUE}).")
    int controllerPort;

    @Option(names = "--registry-port", paramLabel = "PORT", defaultValue = "8081",
            description = "HTTP port of the schema registry (default: ${DEFAULT-VALUE}).")
    int registryPort;

    @Option(names = "--http-port", paramLabel = "PORT", defaultValue = "8080",
            description = "HTTP port of the query API (default: ${DEFAULT-VALUE}).")
    int httpPort;

    @Option(names = "--devices", paramLabel = "N", defaultValue = "200",
            description = "Devices of the synthetic load (default: ${DEFAULT-VALUE}).")
    int devices;

    @Option(names = "--metrics", paramLabel = "N", defaultValue = "5",
            description = "Metrics per device (default: ${DEFAULT-VALUE}).")
    int metrics;

    @Option(names = "--rate", paramLabel = "READINGS_PER_S", defaultValue = "2000",
            description = "Readings per second of the synthetic load; 0 for none (default: ${DEFAULT-VALUE}).")
    int rate;

    @Option(names = "--partitions", paramLabel = "N", defaultValue = "6",
            description = "Partitions of the readings topic when the demo creates it (default: ${DEFAULT-VALUE}).")
    int partitions;

    @Option(names = "--auth-tokens", paramLabel = "FILE",
            description = "Require bearer tokens, as tspipe node --auth-tokens: on the query API, and (scope write) on the "
                    + "registry's writes; tspipe tokens create --tenant '*' --append FILE makes one.")
    Path authTokens;

    @Option(names = "--multi-tenant",
            description = "Run multi-tenant, as tspipe.multi.tenant=true does for a node: every reading has a tenant, and "
                    + "a token bound to a tenant reads and writes only that tenant's series. The demo's load spreads its "
                    + "devices over --tenants. A data folder of a single-tenant run needs a new --data-dir.")
    boolean multiTenant;

    @Option(names = "--tenants", paramLabel = "TENANT[,TENANT...]", split = ",", defaultValue = "acme,globex",
            description = "With --multi-tenant: the tenants of the demo's load, device-00000 the first's, device-00001 "
                    + "the second's, and so on round (default: ${DEFAULT-VALUE}).")
    List<String> tenants;

    @Option(names = "--data-dir", paramLabel = "DIR", defaultValue = "data",
            description = "Folder for all demo data; kept between runs (default: ./${DEFAULT-VALUE}).")
    Path dataDir;

    @picocli.CommandLine.Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws InterruptedException {
        requireFreePort(kafkaPort, "--kafka-port");
        requireFreePort(controllerPort, "--controller-port");
        requireFreePort(registryPort, "--registry-port");
        requireFreePort(httpPort, "--http-port");
        Path kafkaDir = dataDir.resolve("kafka").toAbsolutePath().normalize();
        List<String> loadTenants = multiTenant ? tenants : List.of();
        if (multiTenant && tenants.stream().anyMatch(tenant -> tenant.isBlank() || tenant.contains("/"))) {
            throw new UserError("--tenants must name tenants, comma-separated, none empty or with a '/': " + tenants);
        }

        try (ProcessLifecycle lifecycle = new ProcessLifecycle()) {
            // With tokens, the registry's writes need a write token: the users' from the file, or the load generator's
            // own, made for this run and never shown.
            TokenFile tokens = authTokens == null ? null : lifecycle.register("tokens file", openTokens(authTokens, multiTenant));
            String generatorToken = tokens == null ? null : ApiTokens.newToken(new SecureRandom());
            EmbeddedKafka kafka = lifecycle.register("Kafka broker", EmbeddedKafka.builder()
                    .port(kafkaPort)
                    .controllerPort(controllerPort)
                    .logDir(kafkaDir)
                    .start());
            // Registered after the broker, so it stops first: its producer flushes while the broker is up.
            EmbeddedSchemaRegistry.Builder registryBuilder = EmbeddedSchemaRegistry.builder()
                    .bootstrapServers(kafka.bootstrapServers())
                    .port(registryPort);
            if (tokens != null) {
                registryBuilder.writers(header -> mayWrite(header, tokens, generatorToken));
            }
            EmbeddedSchemaRegistry registry = lifecycle.register("schema registry", registryBuilder.start());

            TopicSetup.createMissing(kafka.clientConfig(), Topics.READINGS, partitions, Topics.READINGS_DLQ, Topics.DEVICES);
            Properties nodeSettings = new Properties();
            nodeSettings.put(PipelineConfig.MULTI_TENANT, Boolean.toString(multiTenant));
            if (generatorToken != null) {
                // The node's serializer registers the schema of HTTP writes in the demo's registry: it takes the
                // demo's own write token, as the load generator does (without it every HTTP write failed, 503).
                nodeSettings.put(AvroSerdeConfig.BEARER_AUTH_CREDENTIALS_SOURCE, "STATIC_TOKEN");
                nodeSettings.put(AvroSerdeConfig.BEARER_AUTH_TOKEN, generatorToken);
            }
            TspipeNode node = lifecycle.register("tspipe node", TspipeNode.start(new TspipeNode.Settings(
                    kafka.bootstrapServers(), registry.url(), "tspipe-demo", EmbeddedKafka.HOST, httpPort, EmbeddedKafka.HOST,
                    dataDir.resolve("state").toAbsolutePath().normalize().toString(), Topics.READINGS, Topics.READINGS_DLQ,
                    Topics.DEVICES, StreamsConfig.EXACTLY_ONCE_V2, 1, 0, nodeSettings, Optional.ofNullable(authTokens), Optional.empty(), Map.of(),
                    InfluxMapping.DEFAULT, RemoteWrite.defaults())));

            if (rate > 0) {
                lifecycle.register("load generator", DemoLoad.start(kafka.bootstrapServers(), registry.url(), generatorToken,
                        Topics.READINGS, devices, metrics, rate, loadTenants));
            }

            PrintWriter out = spec.commandLine().getOut();
            String api = node.url() + "/api/v1";
            out.println();
            out.println("tspipe demo is running");
            out.printf("  Kafka bootstrap servers  %s%n", kafka.bootstrapServers());
            out.printf("  Kafka data               %s%n", kafka.logDir());
            out.printf("  Schema registry          %s%n", registry.url());
            out.printf("  Query API                %s/api/v1%n", node.url());
            out.printf("  Metrics                  %s/metrics%n", node.url());
            out.printf("  Prometheus API           %s/prometheus (Grafana's Prometheus data source: docs/grafana.md)%n", node.url());
            out.printf("  Load                     %s%n", rate > 0
                    ? String.format("%,d readings/s over %d devices x %d metrics", rate, devices, metrics) : "none (--rate 0)");
            if (multiTenant) {
                out.printf("  Tenants                  %s (multi-tenant; a tenant's token reads its own devices only)%n",
                        String.join(", ", loadTenants));
            }
            out.println();
            out.println("Try:");
            String curl = authTokens == null ? "curl" : "curl -H \"Authorization: Bearer $TOKEN\"";
            if (authTokens != null) {
                out.printf("  (tokens of %s required; TOKEN=<a token of scope read or more>)%n", authTokens);
            }
            out.printf("  %s '%s/series/device-00001/temperature/latest'%n", curl, api);
            out.printf("  %s '%s/series/device-00001/temperature/readings?limit=5'%n", curl, api);
            out.printf("  %s '%s/series/device-00001/temperature/rollups?step=1m&limit=5'%n", curl, api);
            out.println();
            out.println("Press Ctrl-C to stop.");
            out.flush();

            lifecycle.awaitShutdown();
        }
        return 0;
    }

    private static TokenFile openTokens(Path file, boolean multiTenant) {
        try {
            return TokenFile.open(file, multiTenant, TokenFile.DEFAULT_POLL);
        } catch (IllegalArgumentException e) {
            throw new UserError(e.getMessage() + "; check --auth-tokens");
        }
    }

    /** Whether a registry write with this {@code Authorization} header may go through. */
    private static boolean mayWrite(String header, TokenFile tokens, String generatorToken) {
        String token = header == null ? null : BearerTokens.token(header);
        if (token == null) {
            return false;
        }
        boolean generator = MessageDigest.isEqual(token.getBytes(StandardCharsets.UTF_8), generatorToken.getBytes(StandardCharsets.UTF_8));
        return generator | tokens.tokens().find(token).map(grant -> grant.scope().includes(Scope.WRITE)).orElse(false);
    }

    private static void requireFreePort(int port, String option) {
        try (ServerSocket socket = new ServerSocket(port, 1, InetAddress.getByName(EmbeddedKafka.HOST))) {
            socket.setReuseAddress(true);
        } catch (IOException e) {
            throw new UserError("port " + port + " on " + EmbeddedKafka.HOST + " is in use (" + e.getMessage()
                    + "); stop what uses it or choose another port with " + option);
        }
    }
}
