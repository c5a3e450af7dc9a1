package dev.tspipe.schemas.serde;

import org.apache.avro.generic.GenericRecord;
import org.apache.kafka.common.serialization.Serdes;

import java.util.Map;

/** A Kafka Streams serde of {@link GenericRecord}s in the Confluent wire format. */
public final class GenericAvroSerde extends Serdes.WrapperSerde<GenericRecord> {

    public GenericAvroSerde() {
        super(new AvroSerializer<>(), new AvroDeserializer<>());
    }

    @Override
    public void configure(Map<String, ?> configs, boolean isKey) {
        serializer().configure(configs, isKey);
        deserializer().configure(configs, isKey);
    }
}
