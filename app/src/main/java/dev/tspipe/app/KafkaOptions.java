package dev.tspipe.app;

import dev.tspipe.ingest.ReadingProducer;
import dev.tspipe.schemas.serde.AvroSerdeConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.AuthenticationException;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.util.HashMap;
import java.util.Map;

/** Where Kafka and the schema registry are; the defaults are those of {@code tspipe demo}. */
final class KafkaOptions {

    @Option(names = "--bootstrap-servers", paramLabel = "HOST:PORT[,...]", defaultValue = "127.0.0.1:9092",
            description = {"Kafka brokers to connect to. Default:", "${DEFAULT-VALUE} (the demo's broker)."})
    String bootstrapServers;

    @Option(names = "--schema-registry-url", paramLabel = "URL", defaultValue = "http://127.0.0.1:8081",
            description = {"Schema registry for the Avro values. Default:", "${DEFAULT-VALUE} (the demo's registry)."})
    String schemaRegistryUrl;

    @Mixin
    KafkaClientConfig kafkaConfig;

    /** The Kafka client settings: the {@code --kafka-config} file's, with {@code --bootstrap-servers}. */
    Map<String, Object> clientSettings() {
        return kafkaConfig.settings(bootstrapServers);
    }

    /**
     * The schema registry client's settings: {@code --schema-registry-url} and the registry keys of the
     * {@code --kafka-config} file (Confluent's: {@code basic.auth.*}, {@code schema.registry.ssl.*}).
     */
    Map<String, Object> registrySettings() {
        Map<String, Object> settings = AvroSerdeConfig.settingsIn(kafkaConfig.settings());
        settings.put(AvroSerdeConfig.SCHEMA_REGISTRY_URL, schemaRegistryUrl);
        return settings;
    }

    /** What to tell a user whose client Kafka at {@code servers} did not authenticate. */
    static UserError credentialsRefused(String servers, AuthenticationException e) {
        return new UserError("Kafka at " + servers + " refused this client's credentials (" + e.getMessage()
                + "); check the security settings in --kafka-config (security.protocol, sasl.mechanism, sasl.jaas.config, ssl.*)");
    }

    /**
     * A producer to {@code topic} whose brokers answered and whose topic exists; a user error
     * that says what to check otherwise.
     */
    ReadingProducer connectedProducer(String topic) {
        return connectedProducer(topic, Map.of());
    }

    /** As {@link #connectedProducer(String)}, with tspipe's own producer settings (batching) on top. */
    ReadingProducer connectedProducer(String topic, Map<String, Object> producerSettings) {
        Map<String, Object> settings = new HashMap<>(clientSettings());
        settings.putAll(producerSettings);
        settings.put(AvroSerdeConfig.SCHEMA_REGISTRY_URL, schemaRegistryUrl);
        // A command should not hang a minute per reading when the brokers are gone.
        settings.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 15_000);
        ReadingProducer producer = ReadingProducer.create(topic, settings);
        try {
            producer.awaitTopic();
            return producer;
        } catch (AuthenticationException e) {
            producer.close();
            throw credentialsRefused(bootstrapServers, e);
        } catch (KafkaException e) {
            producer.close();
            throw new UserError("cannot write to topic '" + topic + "' on " + bootstrapServers + " (" + e.getMessage()
                    + "): is the broker running ('tspipe demo' starts one) and does the topic exist? "
                    + "Set --bootstrap-servers and --topic otherwise");
        }
    }
}
