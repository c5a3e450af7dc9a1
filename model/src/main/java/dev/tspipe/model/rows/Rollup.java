package dev.tspipe.model.rows;

import java.nio.ByteBuffer;

/**
 * The counters of one series in one time bucket (Bigtable's aggregate cells): count, sum, min,
 * max, and the last value by timestamp. Kept at write time, one row per bucket, never one hot row.
 *
 * <table>
 *   <caption>Byte layout (48 bytes, big-endian), or {@value #SINGLE_SIZE} bytes for a bucket of one reading</caption>
 *   <tr><th>offset</th><th>content</th></tr>
 *   <tr><td>0</td><td>count (long)</td></tr>
 *   <tr><td>8</td><td>sum (double bits)</td></tr>
 *   <tr><td>16</td><td>min (double bits)</td></tr>
 *   <tr><td>24</td><td>max (double bits)</td></tr>
 *   <tr><td>32</td><td>last value (double bits)</td></tr>
 *   <tr><td>40</td><td>timestamp of the last value (epoch millis)</td></tr>
 * </table>
 *
 * <p>A bucket of one reading (count 1, and sum, min, max and last the same bits) is written in 16 bytes: the value
 * (double bits) and its timestamp. Most 1-minute buckets hold one reading (a device that reports every minute or
 * less often), so this is what most of {@code rollups-1m} holds. Readers take both lengths.
 */
public record Rollup(long count, double sum, double min, double max, double last, long lastEpochMillis) {

    public static final int SIZE = 48;
    public static final int SINGLE_SIZE = 16;

    /** The bucket of a single reading. */
    public static Rollup of(double value, long epochMillis) {
        return new Rollup(1, value, value, value, value, epochMillis);
    }

    public double mean() {
        return count == 0 ? Double.NaN : sum / count;
    }

    /** This bucket with one more reading. */
    public Rollup add(double value, long epochMillis) {
        boolean newer = epochMillis >= lastEpochMillis;
        return new Rollup(count + 1, sum + value, Math.min(min, value), Math.max(max, value),
                newer ? value : last, newer ? epochMillis : lastEpochMillis);
    }

    /**
     * This bucket with the reading at {@code epochMillis} changed from {@code oldValue} to
     * {@code newValue}, when the bucket's min and max do not depend on the old value (the caller
     * recomputes the bucket from the raw rows when they do).
     */
    public Rollup replace(double oldValue, double newValue, long epochMillis) {
        return new Rollup(count, sum - oldValue + newValue, Math.min(min, newValue), Math.max(max, newValue),
                epochMillis == lastEpochMillis ? newValue : last, lastEpochMillis);
    }

    /** Whether a replaced value could have been this bucket's min or max, so that they must be recomputed. */
    public boolean extremeIs(double value) {
        return Double.compare(value, min) == 0 || Double.compare(value, max) == 0;
    }

    public byte[] toBytes() {
        return encode(count, sum, min, max, last, lastEpochMillis);
    }

    /** The bytes of a bucket's counters: {@value #SINGLE_SIZE} for a bucket of one reading, else {@value #SIZE}. */
    public static byte[] encode(long count, double sum, double min, double max, double last, long lastEpochMillis) {
        byte[] bytes = new byte[encodedSize(count, sum, min, max, last)];
        encode(count, sum, min, max, last, lastEpochMillis, bytes, 0);
        return bytes;
    }

    /** The size of {@link #encode}'s bytes: {@value #SINGLE_SIZE} for a bucket of one reading, else {@value #SIZE}. */
    public static int encodedSize(long count, double sum, double min, double max, double last) {
        long bits = Double.doubleToRawLongBits(last);
        return count == 1 && Double.doubleToRawLongBits(sum) == bits && Double.doubleToRawLongBits(min) == bits
                && Double.doubleToRawLongBits(max) == bits ? SINGLE_SIZE : SIZE;
    }

    /** {@link #encode}'s bytes written at {@code out[at]} (room for {@link #encodedSize} bytes). */
    public static void encode(long count, double sum, double min, double max, double last, long lastEpochMillis,
                              byte[] out, int at) {
        ByteBuffer buffer = ByteBuffer.wrap(out, at, out.length - at);
        if (encodedSize(count, sum, min, max, last) == SINGLE_SIZE) {
            buffer.putDouble(last).putLong(lastEpochMillis);
            return;
        }
        buffer.putLong(count).putDouble(sum).putDouble(min).putDouble(max).putDouble(last).putLong(lastEpochMillis);
    }

    public static Rollup fromBytes(byte[] bytes) {
        ByteBuffer buffer = ByteBuffer.wrap(bytes);
        if (bytes.length == SINGLE_SIZE) {
            return of(buffer.getDouble(), buffer.getLong());
        }
        if (bytes.length != SIZE) {
            throw new IllegalArgumentException("a rollup is " + SINGLE_SIZE + " or " + SIZE + " bytes, not " + bytes.length);
        }
        return new Rollup(buffer.getLong(), buffer.getDouble(), buffer.getDouble(), buffer.getDouble(),
                buffer.getDouble(), buffer.getLong());
    }
}
