package dev.tspipe.schemas.serde;

import dev.tspipe.schemas.Reading;
import dev.tspipe.schemas.registry.MockSchemaRegistry;
import org.apache.avro.generic.GenericRecord;
import org.apache.kafka.common.errors.SerializationException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.HexFormat;
import java.util.Map;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Malformed Avro bodies of a {@code Reading}, written byte by byte from the Avro specification, so
 * that what is refused and where does not depend on an encoder. The registered Reading schema has id 1.
 */
class StrictDecodingTest {

    /** Header: magic byte, schema id 1. */
    private static final String HEADER = "0000000001";
    private static final String DEV_1 = "0A6465762D31";           // "dev-1": zig-zag length 5, bytes
    private static final String TEMP = "0874656D70";              // "temp"
    private static final String TIMESTAMP = "80A0ABFEF962";       // 1700000000000 as zig-zag varint
    private static final String VALUE = "0000000000803540";       // 21.5, little-endian IEEE 754
    private static final String NO_TAGS = "00";
    private static final String NO_TENANT = "00";

    private final String scope = "strict-test-" + UUID.randomUUID();
    private final Map<String, Object> config = Map.of(AvroSerdeConfig.SCHEMA_REGISTRY_URL, "mock://" + scope);
    private final AvroDeserializer<GenericRecord> generic = new AvroDeserializer<>();
    private final AvroDeserializer<Reading> specific = new AvroDeserializer<>(Reading.class);

    @BeforeEach
    void registerReading() {
        assertThat(MockSchemaRegistry.client(scope).register("readings-value", Reading.getClassSchema())).isEqualTo(1);
        generic.configure(config, false);
        specific.configure(config, false);
    }

    @AfterEach
    void dropScope() {
        MockSchemaRegistry.dropScope(scope);
    }

    private static byte[] hex(String... parts) {
        return HexFormat.of().parseHex(String.join("", parts));
    }

    private void assertRefusedByBoth(byte[] data, String... messageParts) {
        assertThatThrownBy(() -> generic.deserialize("readings", data)).isInstanceOf(SerializationException.class)
                .hasMessageContainingAll(messageParts);
        assertThatThrownBy(() -> specific.deserialize("readings", data)).isInstanceOf(SerializationException.class)
                .hasMessageContainingAll(messageParts);
    }

    /**
     * The same bad bytes get the same reason whether or not HotSpot has compiled the code that fails on them: compiled,
     * it throws the JVM's own exceptions without their message (ReadingDecoderTest, seed 4835608598812, case 18286).
     */
    @Test
    void aFailureTheJvmThrowsItselfIsDescribedTheSameWithOrWithoutItsMessage() {
        assertThat(AvroDeserializer.describe(new ArrayIndexOutOfBoundsException("Index -11 out of bounds for length 2")))
                .isEqualTo(AvroDeserializer.describe(new ArrayIndexOutOfBoundsException()))
                .isEqualTo("the bytes do not follow the writer schema (ArrayIndexOutOfBoundsException while reading them)");
        assertThat(AvroDeserializer.describe(new NegativeArraySizeException("-5")))
                .isEqualTo(AvroDeserializer.describe(new NegativeArraySizeException()));
        assertThat(AvroDeserializer.describe(new java.io.EOFException())).isEqualTo("java.io.EOFException");
    }

    @Test
    void theWellFormedBodyIsRead() {
        GenericRecord read = generic.deserialize("readings", hex(HEADER, DEV_1, TEMP, TIMESTAMP, VALUE, NO_TAGS, NO_TENANT));

        assertThat(read.get("deviceId")).hasToString("dev-1");
        assertThat(read.get("value")).isEqualTo(21.5);
    }

    @Test
    void aStringLengthOfAGibibyteIsRefusedBeforeAnythingIsAllocated() {
        // deviceId length 2^30 (zig-zag 2^31: 80 80 80 80 08) in a 10-byte body: Avro would allocate 1 GiB first.
        assertRefusedByBoth(hex(HEADER, "8080808008", "6162"), "string length 1073741824 at offset 5", "2 bytes left");
    }

    @Test
    void theLargestStringLengthIsRefused() {
        assertRefusedByBoth(hex(HEADER, "FEFFFFFF0F", "61"), "string length 2147483647 at offset 5");
    }

    @Test
    void aNegativeStringLengthIsRefused() {
        assertRefusedByBoth(hex(HEADER, "01", "61"), "string length -1 at offset 5");
    }

    @Test
    void aMapCountBeyondTheBytesLeftIsRefused() {
        // tags: a block of 2^30 entries, then nothing.
        assertRefusedByBoth(hex(HEADER, DEV_1, TEMP, TIMESTAMP, VALUE, "8080808008"), "a map block of 1073741824 items");
    }

    @Test
    void aStringThatIsNotUtf8IsRefusedWithTheOffsetOfTheBadByte() {
        // deviceId "d" 0xFF "v": 0xFF never occurs in UTF-8; it is byte 8 of the record (5 header, 1 length, 'd').
        assertRefusedByBoth(hex(HEADER, "06" + "64FF76", TEMP, TIMESTAMP, VALUE, NO_TAGS, NO_TENANT),
                "a string at offset 6 is not UTF-8: malformed byte at offset 7");
    }

    @Test
    void overlongFormsAndEncodedSurrogatesAreNotUtf8() {
        // "/" as the overlong two-byte form C0 AF; U+D800 as ED A0 80 (CESU-8), in the metric.
        for (String metric : new String[] {"04" + "C0AF", "06" + "EDA080"}) {
            assertRefusedByBoth(hex(HEADER, DEV_1, metric, TIMESTAMP, VALUE, NO_TAGS, NO_TENANT), "is not UTF-8");
        }
    }

    @Test
    void aTagNameOrValueThatIsNotUtf8IsRefused() {
        // tags: one entry (count 1 = 02), name 0xFE, value "v", end of map.
        assertRefusedByBoth(hex(HEADER, DEV_1, TEMP, TIMESTAMP, VALUE, "02" + "02FE" + "0276" + "00", NO_TENANT), "is not UTF-8");
        assertRefusedByBoth(hex(HEADER, DEV_1, TEMP, TIMESTAMP, VALUE, "02" + "026E" + "02FE" + "00", NO_TENANT), "is not UTF-8");
    }

    @Test
    void wellFormedMultiByteUtf8IsReadUnchangedIncludingAnExplicitReplacementCharacter() {
        // "é€😀\uFFFD": 2-, 3-, 4- and 3-byte forms; U+FFFD written as itself is a valid character.
        String device = "C3A9" + "E282AC" + "F09F9880" + "EFBFBD";
        byte[] data = hex(HEADER, "18" + device, TEMP, TIMESTAMP, VALUE, NO_TAGS, NO_TENANT);

        assertThat(generic.deserialize("readings", data).get("deviceId")).hasToString("é€😀\uFFFD");
        assertThat(specific.deserialize("readings", data).getDeviceId()).isEqualTo("é€😀\uFFFD");
    }

    @Test
    void bytesAfterTheDatumAreRefused() {
        assertRefusedByBoth(hex(HEADER, DEV_1, TEMP, TIMESTAMP, VALUE, NO_TAGS, NO_TENANT, "DEADBEEF"),
                "the datum ends at offset 32, 4 bytes before the end of the record");
    }

    @Test
    void aRecordNestedDeeperThanTheStackIsRefusedNotThrownAsAnError() {
        org.apache.avro.Schema linkedList = new org.apache.avro.Schema.Parser().parse(
                "{\"type\":\"record\",\"name\":\"Node\",\"fields\":[{\"name\":\"next\",\"type\":[\"null\",\"Node\"]}]}");
        int id = MockSchemaRegistry.client(scope).register("nodes-value", linkedList);
        // 200,000 times union branch 1 (another Node), then branch 0 (null): 200 KB, nested 200,000 deep.
        byte[] data = hex("00" + String.format("%08X", id), "02".repeat(200_000), "00");

        assertThatThrownBy(() -> generic.deserialize("nodes", data)).isInstanceOf(SerializationException.class)
                .hasMessageContaining("nests deeper than the stack allows");
        assertThat(generic.deserialize("nodes", hex("00" + String.format("%08X", id), "0202", "00")))
                .as("a shallow list still reads").isNotNull();
    }

    @Test
    void aFixedLargerThanTheRecordIsRefusedBeforeAvroAllocatesIt() {
        org.apache.avro.Schema blob = new org.apache.avro.Schema.Parser().parse("{\"type\":\"record\",\"name\":\"Blob\","
                + "\"fields\":[{\"name\":\"payload\",\"type\":{\"type\":\"fixed\",\"name\":\"P\",\"size\":2000000000}}]}");
        int id = MockSchemaRegistry.client(scope).register("blobs-value", blob);

        assertThatThrownBy(() -> generic.deserialize("blobs", hex("00" + String.format("%08X", id), "0A6465762D31")))
                .isInstanceOf(SerializationException.class)
                .hasMessageContaining("the writer schema has a fixed of 2000000000 bytes, more than the record holds");
    }

    @Test
    void aSmallFixedThatARecordNeedNotHoldDoesNotRefuseIt() {
        org.apache.avro.Schema optional = new org.apache.avro.Schema.Parser().parse("{\"type\":\"record\",\"name\":\"Tagged\","
                + "\"fields\":[{\"name\":\"digest\",\"type\":[\"null\",{\"type\":\"fixed\",\"name\":\"Md5\",\"size\":16}]}]}");
        int id = MockSchemaRegistry.client(scope).register("tagged-value", optional);

        // Branch 0 (null): one byte, although the schema has a 16-byte fixed.
        assertThat(generic.deserialize("tagged", hex("00" + String.format("%08X", id), "00"))).isNotNull();
    }

    @Test
    void anArrayCountBeyondTheBytesLeftIsRefusedEvenForItemsOfNoBytes() {
        org.apache.avro.Schema gaps = new org.apache.avro.Schema.Parser().parse(
                "{\"type\":\"record\",\"name\":\"Gaps\",\"fields\":[{\"name\":\"g\",\"type\":{\"type\":\"array\",\"items\":\"null\"}}]}");
        int id = MockSchemaRegistry.client(scope).register("gaps-value", gaps);

        assertThatThrownBy(() -> generic.deserialize("gaps", hex("00" + String.format("%08X", id), "8080808008", "00")))
                .isInstanceOf(SerializationException.class).hasMessageContaining("an array block of 1073741824 items");
    }

    @Test
    void moreItemsOverAllBlocksThanTheRecordHasBytesAreRefused() {
        org.apache.avro.Schema gaps = new org.apache.avro.Schema.Parser().parse(
                "{\"type\":\"record\",\"name\":\"Gaps\",\"fields\":[{\"name\":\"g\",\"type\":{\"type\":\"array\",\"items\":\"null\"}}]}");
        int id = MockSchemaRegistry.client(scope).register("gaps-value", gaps);
        // 100 one-byte block headers, each within the bytes left after it (so each block alone passes), 4,347
        // items in all: with enough such blocks a 1 MiB record would make Avro allocate billions of nulls.
        StringBuilder blocks = new StringBuilder();
        for (int k = 0; k < 100; k++) {
            blocks.append(String.format("%02X", 2 * Math.min(63, 100 - k)));
        }

        assertThatThrownBy(() -> generic.deserialize("gaps", hex("00" + String.format("%08X", id), blocks.toString(), "00")))
                .isInstanceOf(SerializationException.class).hasMessageContaining("more than its 106 bytes");
        assertThat(generic.deserialize("gaps", hex("00" + String.format("%08X", id), "02", "00")))
                .as("one null in a 7-byte record still reads").isNotNull();
    }

    @Test
    void aBodyCutShortIsRefused() {
        assertRefusedByBoth(hex(HEADER, DEV_1, TEMP, TIMESTAMP, "00000000"), "Could not decode the Avro data");
    }
}
