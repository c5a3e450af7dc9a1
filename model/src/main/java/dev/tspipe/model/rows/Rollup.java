package dev.tspipe.model.rows;

import java.nio.ByteBuffer;

/**
 * The counters of one series in one time bucket (Bigtable's aggregate cells): count, sum, min,
 * max, and the last value by timestamp. Computed from the raw readings while they are kept, stored once sealed: one
 * row per bucket, never one hot row.
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
 *
 * <p>How readings change the counters is written once, in {@link RollupCounters}.
 */
public record Rollup(long count, double sum, double min, double max, double last, long lastEpochMillis) {

    public static final int SIZE = 48;
    public static final int SINGLE_SIZE = 16;

    /** The bucket of a single reading. */
    public static Rollup of(double value, long epochMillis) {
        RollupCounters counters = new RollupCounters();
        counters.first(value, epochMillis);
        return counters.toRollup();
    }

    public double mean() {
        return count == 0 ? Double.NaN : sum / count;
    }

    /** This bucket with one more reading ({@link RollupCounters#add}: the one arithmetic of a bucket). */
    public Rollup add(double value, long epochMillis) {
        RollupCounters counters = new RollupCounters();
        counters.set(this);
        counters.add(value, epochMillis);
        return counters.toRollup();
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
            // The short layout of a bucket of one reading: count 1, and sum, min, max and last that value.
            double value = buffer.getDouble();
            return new Rollup(1, value, value, value, value, buffer.getLong());
        }
        if (bytes.length != SIZE) {
            throw new IllegalArgumentException("a rollup is " + SINGLE_SIZE + " or " + SIZE + " bytes, not " + bytes.length);
        }
        return new Rollup(buffer.getLong(), buffer.getDouble(), buffer.getDouble(), buffer.getDouble(),
                buffer.getDouble(), buffer.getLong());
    }
}
