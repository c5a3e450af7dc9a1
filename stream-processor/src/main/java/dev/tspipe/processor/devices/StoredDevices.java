package dev.tspipe.processor.devices;

import dev.tspipe.schemas.Device;
import org.apache.avro.io.BinaryDecoder;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.io.EncoderFactory;
import org.apache.avro.specific.SpecificDatumReader;
import org.apache.avro.specific.SpecificDatumWriter;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.Serializer;

import java.io.ByteArrayOutputStream;
import java.io.IOException;

/**
 * The bytes of a {@link Device} in the global store: Avro binary of this build's {@code Device} schema, without the
 * registry's header. The store lives in memory and is filled again at every start, so its bytes are never read by
 * another version of tspipe, and a read needs no schema registry.
 */
final class StoredDevices {

    private static final SpecificDatumWriter<Device> WRITER = new SpecificDatumWriter<>(Device.class);
    private static final SpecificDatumReader<Device> READER = new SpecificDatumReader<>(Device.class);

    private StoredDevices() {
    }

    static Serde<Device> serde() {
        return Serdes.serdeFrom(serializer(), deserializer());
    }

    private static Serializer<Device> serializer() {
        return (topic, device) -> {
            if (device == null) {
                return null;
            }
            ByteArrayOutputStream out = new ByteArrayOutputStream(64);
            BinaryEncoder encoder = EncoderFactory.get().directBinaryEncoder(out, null);
            try {
                WRITER.write(device, encoder);
                encoder.flush();
            } catch (IOException e) {
                throw new SerializationException("cannot write device " + device.getId(), e);
            }
            return out.toByteArray();
        };
    }

    private static Deserializer<Device> deserializer() {
        return (topic, bytes) -> {
            if (bytes == null) {
                return null;
            }
            BinaryDecoder decoder = DecoderFactory.get().binaryDecoder(bytes, null);
            try {
                return READER.read(null, decoder);
            } catch (IOException e) {
                throw new SerializationException("cannot read a stored device", e);
            }
        };
    }
}
