package dev.tspipe.schemas.serde;

import org.apache.kafka.common.errors.SerializationException;

/**
 * The Confluent Schema Registry wire format of a Kafka record value or key.
 *
 * <table>
 *   <caption>Byte layout</caption>
 *   <tr><th>offset</th><th>length</th><th>content</th></tr>
 *   <tr><td>0</td><td>1</td><td>magic byte {@code 0x00}</td></tr>
 *   <tr><td>1</td><td>4</td><td>schema id, big-endian signed int, as the registry assigned it</td></tr>
 *   <tr><td>5</td><td>rest</td><td>the datum in Avro binary encoding, written with that schema</td></tr>
 * </table>
 *
 * <p>Example: schema id 1 and the Avro string {@code "hi"} are {@code 00 00 00 00 01 04 68 69}
 * (04 is the zig-zag varint of the length 2).
 */
public final class WireFormat {

    public static final byte MAGIC_BYTE = 0x00;
    public static final int HEADER_SIZE = 5;

    private WireFormat() {
    }

    /** Writes the 5-byte header into the first bytes of {@code target}. */
    public static void writeHeader(byte[] target, int schemaId) {
        target[0] = MAGIC_BYTE;
        target[1] = (byte) (schemaId >>> 24);
        target[2] = (byte) (schemaId >>> 16);
        target[3] = (byte) (schemaId >>> 8);
        target[4] = (byte) schemaId;
    }

    /** The schema id of a framed record; fails with the offset of what is wrong. */
    public static int schemaId(byte[] data) {
        if (data.length == 0) {
            throw new SerializationException("Empty record: expected the Confluent wire format "
                    + "(magic byte 0x00 at offset 0, then a 4-byte schema id)");
        }
        if (data[0] != MAGIC_BYTE) {
            throw new SerializationException(String.format("Unknown magic byte 0x%02X at offset 0: not the Confluent "
                    + "wire format (expected 0x00); the record was not written by a schema-registry Avro serializer",
                    data[0] & 0xFF));
        }
        if (data.length < HEADER_SIZE) {
            throw new SerializationException("Record of " + data.length + " bytes ends at offset " + data.length
                    + " inside the 4-byte schema id (offsets 1-4)");
        }
        return ((data[1] & 0xFF) << 24) | ((data[2] & 0xFF) << 16) | ((data[3] & 0xFF) << 8) | (data[4] & 0xFF);
    }
}
