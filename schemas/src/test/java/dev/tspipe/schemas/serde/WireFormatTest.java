package dev.tspipe.schemas.serde;

import org.apache.kafka.common.errors.SerializationException;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class WireFormatTest {

    @Test
    void headerIsMagicByteThenBigEndianId() {
        byte[] header = new byte[WireFormat.HEADER_SIZE];
        WireFormat.writeHeader(header, 0x01020304);

        assertThat(header).containsExactly(0, 1, 2, 3, 4);
        assertThat(WireFormat.schemaId(header)).isEqualTo(0x01020304);
    }

    @Test
    void idsAboveTwoToThe24AndNegativeBytesDecode() {
        byte[] header = new byte[WireFormat.HEADER_SIZE];
        WireFormat.writeHeader(header, Integer.MAX_VALUE);

        assertThat(WireFormat.schemaId(header)).isEqualTo(Integer.MAX_VALUE);
    }

    @Test
    void malformedFramesAreRejectedWithTheOffset() {
        assertThatThrownBy(() -> WireFormat.schemaId(new byte[0])).isInstanceOf(SerializationException.class)
                .hasMessageContaining("Empty record");
        assertThatThrownBy(() -> WireFormat.schemaId(new byte[] {1, 0, 0, 0, 1})).hasMessageContaining("0x01 at offset 0");
        assertThatThrownBy(() -> WireFormat.schemaId(new byte[] {0, 0, 1})).hasMessageContaining("ends at offset 3");
    }
}
