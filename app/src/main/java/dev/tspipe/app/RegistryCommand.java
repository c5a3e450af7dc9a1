package dev.tspipe.app;

import dev.tspipe.embedded.EmbeddedSchemaRegistry;
import dev.tspipe.embedded.registry.RegistryUsers;
import dev.tspipe.embedded.registry.SchemasTopic;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.Callable;

/**
 * {@code tspipe registry}: the Confluent-compatible schema registry alone, journaled to a topic of
 * any Kafka cluster, as Confluent Schema Registry runs beside a cluster.
 */
@Command(
        name = "registry",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        usageHelpAutoWidth = true,
        header = "Run the Confluent-compatible schema registry (Avro) against a Kafka cluster.",
        description = {
                "",
                "Serves the Confluent Schema Registry REST API that Avro serdes use and keeps every schema in the "
                        + "compacted topic _schemas (created with the cluster's default replication factor), so a "
                        + "restarted registry serves the same ids. Run one registry per journal topic: it is the "
                        + "topic's only writer.",
                "",
                "With --tls-cert and --tls-key it serves HTTPS only; clients then trust the certificate with "
                        + "schema.registry.ssl.truststore.location (PEM, PKCS12 or JKS).",
                "",
                "Options also come from TSPIPE_* environment (--port is TSPIPE_PORT). SIGTERM or Ctrl-C stops it.",
                ""
        },
        footerHeading = "%nExamples:%n",
        footer = {
                "  tspipe registry --bootstrap-servers kafka-1:9092,kafka-2:9092,kafka-3:9092",
                "  tspipe registry --bootstrap-servers 127.0.0.1:9092 --host 127.0.0.1 --port 18081",
                "  curl http://127.0.0.1:8081/subjects"
        })
final class RegistryCommand implements Callable<Integer> {

    @Option(names = "--bootstrap-servers", paramLabel = "HOST:PORT[,...]", defaultValue = "127.0.0.1:9092",
            description = "Kafka brokers that hold the journal topic (default: ${DEFAULT-VALUE}).")
    String bootstrapServers;

    @Mixin
    KafkaClientConfig kafkaConfig;

    @Option(names = "--users", paramLabel = "FILE",
            description = {"Require HTTP basic authentication: a file of lines user:sha256-of-password (hex; printf %s 'pw' |",
                    "sha256sum makes one). Clients pass http://user:pw@host:8081 or basic.auth.user.info."})
    Path users;

    @Mixin
    ServerTlsOptions tls;

    @Option(names = "--host", paramLabel = "ADDRESS", defaultValue = "0.0.0.0",
            description = "Address HTTP listens on (default: ${DEFAULT-VALUE}, every address).")
    String host;

    @Option(names = "--port", paramLabel = "PORT", defaultValue = "8081",
            description = "HTTP port (default: ${DEFAULT-VALUE}).")
    int port;

    @Option(names = "--topic", paramLabel = "TOPIC", defaultValue = SchemasTopic.DEFAULT_NAME,
            description = "Journal topic, Confluent's kafkastore.topic (default: ${DEFAULT-VALUE}).")
    String topic;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() throws InterruptedException {
        EmbeddedSchemaRegistry.Builder builder = EmbeddedSchemaRegistry.builder();
        if (users != null) {
            try {
                builder.users(RegistryUsers.load(users));
            } catch (IOException | IllegalArgumentException e) {
                throw new UserError("cannot use the registry users of " + users + ": " + e.getMessage() + "; check --users");
            }
        }
        Optional<ServerTlsOptions.Certificate> certificate = tls.certificate();
        certificate.ifPresent(c -> builder.tls(c.certificate(), c.key()));
        EmbeddedSchemaRegistry registry;
        try {
            registry = builder
                    .bootstrapServers(bootstrapServers)
                    .clientSettings(kafkaConfig.settings())
                    .host(host)
                    .port(port)
                    .topic(topic)
                    .start();
        } catch (IllegalArgumentException e) {
            // A certificate or key that cannot be used: the message names the file.
            throw new UserError("cannot start the schema registry: " + e.getMessage());
        } catch (IllegalStateException e) {
            throw new UserError("cannot start the schema registry: " + e.getMessage()
                    + "; check --bootstrap-servers and that the brokers are running");
        }
        try (ProcessLifecycle lifecycle = new ProcessLifecycle()) {
            lifecycle.register("schema registry", registry);
            PrintWriter out = spec.commandLine().getOut();
            out.printf("tspipe registry is running on %s://%s:%d (journal topic %s on %s%s)%n", certificate.isEmpty() ? "http" : "https",
                    host, registry.port(), topic,
                    bootstrapServers, users == null ? "" : "; basic authentication, users of " + users);
            out.println("Press Ctrl-C to stop.");
            out.flush();
            lifecycle.awaitShutdown();
        }
        return 0;
    }
}
