package dev.tspipe.processor.store;

import dev.tspipe.model.keys.RowKey;
import org.rocksdb.WriteBatch;

import java.util.Arrays;

/**
 * A RocksDB write batch assembled on the Java heap in RocksDB's own batch format, handed to RocksDB in
 * one call ({@link #build()}, or {@link #toBytes()} for {@code new WriteBatch(bytes)}) instead of one JNI
 * call per put: a commit puts a row per reading and more, a restore as many, and each
 * {@code WriteBatch.put} copies its key and value across JNI on its own. The one encoder of the format in
 * tspipe (the commit's batches, {@link RestoreBatch}).
 *
 * <table>
 *   <caption>Batch format (RocksDB {@code write_batch.cc}, {@code dbformat.h})</caption>
 *   <tr><th>bytes</th><th>content</th></tr>
 *   <tr><td>8</td><td>sequence number, little-endian (0: RocksDB assigns it when writing)</td></tr>
 *   <tr><td>4</td><td>number of records, little-endian</td></tr>
 *   <tr><td>...</td><td>per record: its type ({@code 0x01} put, {@code 0x02} merge, {@code 0x00} delete in the
 *       default column family; {@code 0x05} put, {@code 0x06} merge, {@code 0x04} delete in another, then the column
 *       family id as a varint32); key length (varint32) and key; for a put or a merge, value length (varint32) and
 *       value</td></tr>
 * </table>
 */
final class BatchBuilder {

    static final int HEADER_BYTES = 12;
    private static final byte TYPE_DELETION = 0x00;
    private static final byte TYPE_VALUE = 0x01;
    private static final byte TYPE_MERGE = 0x02;
    private static final byte TYPE_COLUMN_FAMILY_DELETION = 0x04;
    private static final byte TYPE_COLUMN_FAMILY_VALUE = 0x05;
    private static final byte TYPE_COLUMN_FAMILY_MERGE = 0x06;

    private byte[] bytes;
    private int size = HEADER_BYTES;
    private int count;

    /** A builder whose buffer starts at {@code expectedBytes} (it grows past them if needed). */
    BatchBuilder(long expectedBytes) {
        bytes = new byte[(int) Math.min(Integer.MAX_VALUE - 1024, Math.max(expectedBytes, HEADER_BYTES))];
    }

    /** The bytes a record takes in a batch: a put of {@code valueLength} bytes, or a delete when it is negative. */
    static long encodedLength(int columnFamily, int keyLength, int valueLength) {
        return 1 + (columnFamily == 0 ? 0 : varintLength(columnFamily)) + varintLength(keyLength) + (long) keyLength
                + (valueLength < 0 ? 0 : varintLength(valueLength) + (long) valueLength);
    }

    /** Adds a put of {@code key} to {@code value} in the column family of id {@code columnFamily}. */
    void put(int columnFamily, byte[] key, byte[] value) {
        put(columnFamily, key, value, 0, value.length);
    }

    /** Adds a put of {@code key} to {@code length} bytes of {@code source} from {@code offset}. */
    void put(int columnFamily, byte[] key, byte[] source, int offset, int length) {
        ensure(encodedLength(columnFamily, key.length, length));
        writeHead(columnFamily == 0 ? TYPE_VALUE : TYPE_COLUMN_FAMILY_VALUE, columnFamily, key);
        writeVarint(length);
        System.arraycopy(source, offset, bytes, size, length);
        size += length;
    }

    /**
     * Adds a put of the row key {@code seriesPrefix} + reversed {@code epochMillis} ({@code RowKey.withTimestamp}, written
     * here instead of into an array of its own) to {@code length} bytes of {@code source} from {@code offset}.
     */
    void putRow(int columnFamily, byte[] seriesPrefix, long epochMillis, byte[] source, int offset, int length) {
        int keyLength = seriesPrefix.length + RowKey.TIMESTAMP_DIGITS;
        ensure(encodedLength(columnFamily, keyLength, length));
        bytes[size++] = columnFamily == 0 ? TYPE_VALUE : TYPE_COLUMN_FAMILY_VALUE;
        if (columnFamily != 0) {
            writeVarint(columnFamily);
        }
        writeVarint(keyLength);
        System.arraycopy(seriesPrefix, 0, bytes, size, seriesPrefix.length);
        RowKey.writeTimestamp(epochMillis, bytes, size + seriesPrefix.length);
        size += keyLength;
        count++;
        writeVarint(length);
        System.arraycopy(source, offset, bytes, size, length);
        size += length;
    }

    /**
     * Adds a merge of {@code length} bytes of {@code source} from {@code offset} into {@code key}: with the raw
     * table's string-append operator, the bytes are appended to the stored value (a block gets a chunk).
     */
    void merge(int columnFamily, byte[] key, byte[] source, int offset, int length) {
        ensure(encodedLength(columnFamily, key.length, length));
        writeHead(columnFamily == 0 ? TYPE_MERGE : TYPE_COLUMN_FAMILY_MERGE, columnFamily, key);
        writeVarint(length);
        System.arraycopy(source, offset, bytes, size, length);
        size += length;
    }

    /** Adds a delete of {@code key} in the column family of id {@code columnFamily}. */
    void delete(int columnFamily, byte[] key) {
        ensure(encodedLength(columnFamily, key.length, -1));
        writeHead(columnFamily == 0 ? TYPE_DELETION : TYPE_COLUMN_FAMILY_DELETION, columnFamily, key);
    }

    int count() {
        return count;
    }

    /** The bytes the batch takes so far, its header included. */
    int size() {
        return size;
    }

    /** Empty again, keeping the buffer (a builder that a thread reuses for batch after batch). */
    void reset() {
        size = HEADER_BYTES;
        count = 0;
    }

    /** The serialized batch, exactly as long as its records (not copied when the buffer was sized exactly). */
    byte[] toBytes() {
        writeCount();
        return size == bytes.length ? bytes : Arrays.copyOf(bytes, size);
    }

    /**
     * The batch, for RocksDB to write (the caller closes it); the builder may be {@link #reset} and reused after
     * (RocksDB copies the bytes; the copy made here is of the batch's length, as its constructor takes a whole array).
     */
    WriteBatch build() {
        writeCount();
        return new WriteBatch(Arrays.copyOf(bytes, size));
    }

    private void writeCount() {
        bytes[8] = (byte) count;
        bytes[9] = (byte) (count >>> 8);
        bytes[10] = (byte) (count >>> 16);
        bytes[11] = (byte) (count >>> 24);
    }

    private void writeHead(byte type, int columnFamily, byte[] key) {
        bytes[size++] = type;
        if (columnFamily != 0) {
            writeVarint(columnFamily);
        }
        writeVarint(key.length);
        System.arraycopy(key, 0, bytes, size, key.length);
        size += key.length;
        count++;
    }

    /** RocksDB's varint32: 7 bits at a time, lowest first, the high bit set on all but the last byte. */
    private void writeVarint(int value) {
        while ((value & ~0x7F) != 0) {
            bytes[size++] = (byte) ((value & 0x7F) | 0x80);
            value >>>= 7;
        }
        bytes[size++] = (byte) value;
    }

    private static int varintLength(int value) {
        int length = 1;
        for (int rest = value >>> 7; rest != 0; rest >>>= 7) {
            length++;
        }
        return length;
    }

    private void ensure(long more) {
        if (size + more > bytes.length) {
            if (size + more > Integer.MAX_VALUE - 16) {
                throw new IllegalStateException("a write batch of " + (size + more) + " bytes is too large");
            }
            bytes = Arrays.copyOf(bytes, (int) Math.min(Integer.MAX_VALUE - 16, Math.max(bytes.length * 2L, size + more)));
        }
    }
}
