package dev.tspipe.schemas.serde;

import org.apache.avro.io.BinaryDecoder;
import org.apache.avro.io.Decoder;
import org.apache.avro.util.Utf8;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.StandardCharsets;

/**
 * Avro's binary decoder over one record's bytes, refusing what Avro's own decoder trusts. Every
 * refusal is an {@link IOException} naming the byte offset in the record (the 5-byte header
 * included), which {@link AvroDeserializer} turns into a {@code SerializationException}.
 *
 * <table>
 *   <caption>What is refused, and why</caption>
 *   <tr><th>input</th><th>Avro's decoder</th><th>here</th></tr>
 *   <tr><td>a string or bytes length beyond the bytes left</td><td>allocates the length first: ten bytes
 *       claiming 1 GiB exhaust the heap</td><td>refused before any allocation</td></tr>
 *   <tr><td>an array or map count beyond the bytes left</td><td>sizes the collection by the count first</td>
 *       <td>refused (every item of tspipe's schemas takes at least one byte), and so are more items over all the
 *       blocks of the record than it has bytes (items of a null type take none)</td></tr>
 *   <tr><td>a string that is not UTF-8 (stray bytes, overlong forms, encoded surrogates)</td><td>replaces the
 *       bytes with U+FFFD: two different names become one</td><td>refused</td></tr>
 * </table>
 */
final class StrictDecoder extends Decoder {

    private final BinaryDecoder in;
    private final byte[] record;
    /** Array and map items announced so far, over every block: an item of a null type takes no byte, so each
     *  block's count alone does not bound them. */
    private long items;

    /** A decoder of the datum in {@code record}, read by {@code in} (a binary decoder over its bytes after the header). */
    StrictDecoder(BinaryDecoder in, byte[] record) {
        this.in = in;
        this.record = record;
    }

    /** Bytes not read yet. */
    int remaining() throws IOException {
        return in.inputStream().available();
    }

    /** Offset in the record of the next byte to read. */
    int offset() throws IOException {
        return record.length - remaining();
    }

    private int length(String what) throws IOException {
        int at = offset();
        long length = in.readLong();
        int left = remaining();
        if (length < 0 || length > left) {
            throw new IOException(what + " length " + length + " at offset " + at + " does not fit the " + left
                    + " bytes left in the record");
        }
        return (int) length;
    }

    private long count(long count, String what) throws IOException {
        int left = remaining();
        if (count > left) {
            throw new IOException(what + " of " + count + " items before offset " + offset() + " does not fit the "
                    + left + " bytes left in the record");
        }
        items += count;
        if (items > record.length) {
            throw new IOException(what + " of " + count + " items before offset " + offset() + " brings the record's "
                    + "items to " + items + ", more than its " + record.length + " bytes");
        }
        return count;
    }

    /** Fails unless {@code bytes[from, from + length)} is well-formed UTF-8; {@code at} is their offset in the record. */
    private static void checkUtf8(byte[] bytes, int from, int length, int at) throws IOException {
        for (int i = from; i < from + length; i++) {
            if (bytes[i] < 0) {
                CharsetDecoder strict = StandardCharsets.UTF_8.newDecoder();
                ByteBuffer input = ByteBuffer.wrap(bytes, from, length);
                try {
                    strict.decode(input);
                } catch (CharacterCodingException e) {
                    throw new IOException("a string at offset " + at + " is not UTF-8: malformed byte at offset "
                            + (at + input.position() - from), e);
                }
                return;
            }
        }
    }

    @Override
    public Utf8 readString(Utf8 old) throws IOException {
        int length = length("string");
        Utf8 result = old != null ? old : new Utf8();
        result.setByteLength(length);
        int at = offset();
        in.readFixed(result.getBytes(), 0, length);
        checkUtf8(result.getBytes(), 0, length, at);
        return result;
    }

    @Override
    public String readString() throws IOException {
        int length = length("string");
        int at = offset();
        // Straight from the record's bytes: no copy before the String's own.
        checkUtf8(record, at, length, at);
        String text = new String(record, at, length, StandardCharsets.UTF_8);
        in.skipFixed(length);
        return text;
    }

    @Override
    public void skipString() throws IOException {
        in.skipFixed(length("string"));
    }

    @Override
    public ByteBuffer readBytes(ByteBuffer old) throws IOException {
        int length = length("bytes");
        byte[] bytes = new byte[length];
        in.readFixed(bytes, 0, length);
        return ByteBuffer.wrap(bytes);
    }

    @Override
    public void skipBytes() throws IOException {
        in.skipFixed(length("bytes"));
    }

    @Override
    public long readArrayStart() throws IOException {
        return count(in.readArrayStart(), "an array block");
    }

    @Override
    public long arrayNext() throws IOException {
        return count(in.arrayNext(), "an array block");
    }

    @Override
    public long readMapStart() throws IOException {
        return count(in.readMapStart(), "a map block");
    }

    @Override
    public long mapNext() throws IOException {
        return count(in.mapNext(), "a map block");
    }

    @Override
    public long skipArray() throws IOException {
        return in.skipArray();
    }

    @Override
    public long skipMap() throws IOException {
        return in.skipMap();
    }

    @Override
    public void readNull() throws IOException {
        in.readNull();
    }

    @Override
    public boolean readBoolean() throws IOException {
        return in.readBoolean();
    }

    @Override
    public int readInt() throws IOException {
        return in.readInt();
    }

    @Override
    public long readLong() throws IOException {
        return in.readLong();
    }

    @Override
    public float readFloat() throws IOException {
        return in.readFloat();
    }

    @Override
    public double readDouble() throws IOException {
        return in.readDouble();
    }

    @Override
    public void readFixed(byte[] bytes, int start, int length) throws IOException {
        in.readFixed(bytes, start, length);
    }

    @Override
    public void skipFixed(int length) throws IOException {
        in.skipFixed(length);
    }

    @Override
    public int readEnum() throws IOException {
        return in.readEnum();
    }

    @Override
    public int readIndex() throws IOException {
        return in.readIndex();
    }
}
