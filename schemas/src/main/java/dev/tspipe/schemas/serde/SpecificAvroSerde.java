package dev.tspipe.schemas.serde;

import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.serialization.Serdes;

import java.util.Map;

/**
 * A Kafka Streams serde of one generated Avro class in the Confluent wire format; records written
 * with any compatible version of the class's schema are read as the class.
 *
 * <pre>{@code
 * Serde<Reading> serde = new SpecificAvroSerde<>(Reading.class);
 * serde.configure(Map.of("schema.registry.url", "http://localhost:8081"), false);
 * }</pre>
 */
public final class SpecificAvroSerde<T extends SpecificRecord> extends Serdes.WrapperSerde<T> {

    public SpecificAvroSerde(Class<T> type) {
        super(new AvroSerializer<>(), new AvroDeserializer<>(type));
    }

    @Override
    public void configure(Map<String, ?> configs, boolean isKey) {
        serializer().configure(configs, isKey);
        deserializer().configure(configs, isKey);
    }
}
