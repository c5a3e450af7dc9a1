package dev.tspipe.processor.rows;

import java.io.ByteArrayOutputStream;
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
        ByteArrayOutputStream out = new ByteArrayOutputStream(12 + 16 * tags.size());
        out.writeBytes(ByteBuffer.allocate(12).putDouble(value).putInt(tags.size()).array());
        tags.forEach((name, tagValue) -> {
            writeString(out, name);
            writeString(out, tagValue);
        });
        return out.toByteArray();
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

    private static void writeString(ByteArrayOutputStream out, String s) {
        byte[] utf8 = s.getBytes(StandardCharsets.UTF_8);
        out.writeBytes(ByteBuffer.allocate(4).putInt(utf8.length).array());
        out.writeBytes(utf8);
    }

    private static String readString(ByteBuffer buffer) {
        int length = buffer.getInt();
        String s = new String(buffer.array(), buffer.arrayOffset() + buffer.position(), length, StandardCharsets.UTF_8);
        buffer.position(buffer.position() + length);
        return s;
    }
}
