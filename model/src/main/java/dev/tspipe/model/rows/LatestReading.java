package dev.tspipe.model.rows;

import java.nio.ByteBuffer;

/**
 * The value of the latest-reading store: the newest reading of a series.
 *
 * <p>Bytes: the timestamp (8, big-endian epoch millis), then the {@link RawRow} bytes.
 */
public record LatestReading(long epochMillis, RawRow row) {

    public byte[] toBytes() {
        byte[] row = this.row.toBytes();
        return encode(epochMillis, row, 0, row.length);
    }

    /**
     * The bytes of the latest reading at {@code epochMillis} whose {@link RawRow} bytes are {@code length} bytes of
     * {@code row} from {@code offset}.
     */
    public static byte[] encode(long epochMillis, byte[] row, int offset, int length) {
        return ByteBuffer.allocate(8 + length).putLong(epochMillis).put(row, offset, length).array();
    }

    public static LatestReading fromBytes(byte[] bytes) {
        ByteBuffer buffer = ByteBuffer.wrap(bytes);
        long epochMillis = buffer.getLong();
        return new LatestReading(epochMillis, RawRow.read(buffer));
    }
}
