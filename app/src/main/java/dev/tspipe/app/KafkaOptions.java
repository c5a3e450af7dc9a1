package dev.tspipe.app;

import picocli.CommandLine.Option;

/** Where Kafka and the schema registry are; the defaults are those of {@code tspipe demo}. */
final class KafkaOptions {

    @Option(names = "--bootstrap-servers", paramLabel = "HOST:PORT[,...]", defaultValue = "127.0.0.1:9092",
            description = "Kafka brokers to connect to (default: ${DEFAULT-VALUE}, the demo's broker).")
    String bootstrapServers;

    @Option(names = "--schema-registry-url", paramLabel = "URL", defaultValue = "http://127.0.0.1:8081",
            description = {"Schema registry for the Avro values. Default:", "${DEFAULT-VALUE} (the demo's registry)."})
    String schemaRegistryUrl;
}
