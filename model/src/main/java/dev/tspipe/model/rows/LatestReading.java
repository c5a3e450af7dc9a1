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
        return ByteBuffer.allocate(8 + row.length).putLong(epochMillis).put(row).array();
    }

    public static LatestReading fromBytes(byte[] bytes) {
        ByteBuffer buffer = ByteBuffer.wrap(bytes);
        long epochMillis = buffer.getLong();
        return new LatestReading(epochMillis, RawRow.read(buffer));
    }
}
