package dev.tspipe.app;

import picocli.CommandLine.Option;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;

/**
 * The option {@code --kafka-config FILE} ({@code TSPIPE_KAFKA_CONFIG}), mixed into every command
 * that talks to Kafka: the client settings every Kafka client of the command takes, as Kafka's own
 * tools take {@code --command-config}: a properties file whose keys ({@code security.protocol},
 * {@code sasl.mechanism}, {@code sasl.jaas.config}, {@code ssl.truststore.location}, ...) are passed
 * to the clients unchanged. {@code bootstrap.servers} comes from {@code --bootstrap-servers}, which
 * wins over the file.
 */
final class KafkaClientConfig {

    @Option(names = "--kafka-config", paramLabel = "FILE",
            description = "Kafka client settings for every Kafka client of this command (security.protocol, sasl.*, "
                    + "ssl.*, ...), passed unchanged, as --command-config of Kafka's tools.")
    Path file;

    /** The file's settings with {@code bootstrap.servers} set to the given servers. */
    Map<String, Object> settings(String bootstrapServers) {
        Map<String, Object> settings = load(file);
        settings.put("bootstrap.servers", bootstrapServers);
        return settings;
    }

    /** The file's settings; none without a file. */
    Map<String, Object> settings() {
        return load(file);
    }

    /** The file's settings; none without a file. */
    static Map<String, Object> load(Path file) {
        Map<String, Object> settings = new HashMap<>();
        if (file == null) {
            return settings;
        }
        Properties properties = new Properties();
        try (Reader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            properties.load(reader);
        } catch (IOException e) {
            throw new UserError("cannot read the Kafka client settings " + file + ": " + e.getMessage()
                    + "; check --kafka-config or TSPIPE_KAFKA_CONFIG");
        }
        properties.forEach((key, value) -> settings.put(key.toString(), value.toString().trim()));
        return settings;
    }
}
