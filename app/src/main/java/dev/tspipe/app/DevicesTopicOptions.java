package dev.tspipe.app;

import dev.tspipe.ingest.DeviceTopic;
import dev.tspipe.processor.topology.Topics;
import dev.tspipe.schemas.serde.AvroSerdeConfig;
import org.apache.kafka.common.KafkaException;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.util.HashMap;
import java.util.Map;
import java.util.function.Function;

/** Where the devices topic is: Kafka, the schema registry and the topic's name; mixed into every {@code tspipe devices} command. */
final class DevicesTopicOptions {

    @Option(names = "--topic", paramLabel = "TOPIC", defaultValue = Topics.DEVICES,
            description = "The devices topic (default: ${DEFAULT-VALUE}).")
    String topic;

    @Mixin
    KafkaOptions kafka;

    /** Runs {@code action} on the topic; a Kafka failure is a user error that says what to check. */
    <T> T with(Function<DeviceTopic, T> action) {
        Map<String, Object> settings = new HashMap<>(kafka.clientSettings());
        settings.put(AvroSerdeConfig.SCHEMA_REGISTRY_URL, kafka.schemaRegistryUrl);
        try {
            return action.apply(new DeviceTopic(topic, settings));
        } catch (KafkaException e) {
            throw new UserError("cannot use the devices topic '" + topic + "' on " + kafka.bootstrapServers + " with the "
                    + "registry " + kafka.schemaRegistryUrl + ": " + e.getMessage() + "; is the broker running, does the "
                    + "topic exist (tspipe node --create-topics makes it)? Set --bootstrap-servers, --schema-registry-url "
                    + "and --topic otherwise");
        }
    }
}
