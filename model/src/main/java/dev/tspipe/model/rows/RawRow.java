package dev.tspipe.model.rows;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * The value of a raw row: one reading's value and tags. Its bytes are canonical (tags sorted by
 * name), so that the same reading sent twice gives equal bytes and is recognised as a duplicate.
 *
 * <table>
 *   <caption>Byte layout</caption>
 *   <tr><th>offset</th><th>length</th><th>content</th></tr>
 *   <tr><td>0</td><td>8</td><td>value, IEEE 754 bits, big-endian</td></tr>
 *   <tr><td>8</td><td>4</td><td>number of tags, big-endian</td></tr>
 *   <tr><td>12</td><td>...</td><td>per tag, by name: name length (4) + UTF-8 name, value length (4) + UTF-8 value</td></tr>
 * </table>
 */
public record RawRow(double value, Map<String, String> tags) {

    public RawRow {
        tags = Collections.unmodifiableMap(new TreeMap<>(Objects.requireNonNull(tags, "tags")));
    }

    public byte[] toBytes() {
        if (tags.isEmpty()) {
            return ByteBuffer.allocate(12).putDouble(value).putInt(0).array();
        }
        // Every reading's row is encoded once on the hot path: one array of the exact size, no stream.
        byte[][] strings = new byte[tags.size() * 2][];
        int size = 12;
        int i = 0;
        for (Map.Entry<String, String> tag : tags.entrySet()) {
            strings[i] = tag.getKey().getBytes(StandardCharsets.UTF_8);
            strings[i + 1] = tag.getValue().getBytes(StandardCharsets.UTF_8);
            size += 8 + strings[i].length + strings[i + 1].length;
            i += 2;
        }
        ByteBuffer out = ByteBuffer.allocate(size).putDouble(value).putInt(tags.size());
        for (byte[] string : strings) {
            out.putInt(string.length).put(string);
        }
        return out.array();
    }

    /** Bytes of the value at the start of a raw row; its tag bytes follow them. */
    public static final int VALUE_BYTES = 8;

    /** The value of a raw row's bytes, without reading its tags. */
    public static double valueOf(byte[] bytes) {
        return valueAt(bytes, 0);
    }

    /** The value of the raw row whose bytes start at {@code offset} of {@code bytes}. */
    public static double valueAt(byte[] bytes, int offset) {
        long bits = 0;
        for (int i = 0; i < VALUE_BYTES; i++) {
            bits = (bits << 8) | (bytes[offset + i] & 0xFF);
        }
        return Double.longBitsToDouble(bits);
    }

    public static RawRow fromBytes(byte[] bytes) {
        return read(ByteBuffer.wrap(bytes));
    }

    static RawRow read(ByteBuffer buffer) {
        double value = buffer.getDouble();
        int count = buffer.getInt();
        if (count == 0) {
            return new RawRow(value, Map.of());
        }
        Map<String, String> tags = new TreeMap<>();
        for (int i = 0; i < count; i++) {
            tags.put(readString(buffer), readString(buffer));
        }
        return new RawRow(value, tags);
    }

    private static String readString(ByteBuffer buffer) {
        int length = buffer.getInt();
        String s = new String(buffer.array(), buffer.arrayOffset() + buffer.position(), length, StandardCharsets.UTF_8);
        buffer.position(buffer.position() + length);
        return s;
    }
}
