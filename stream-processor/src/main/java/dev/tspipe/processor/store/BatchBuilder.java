package dev.tspipe.processor.store;

import org.rocksdb.WriteBatch;

import java.util.Arrays;

/**
 * A RocksDB write batch assembled on the Java heap in RocksDB's own batch format, handed to RocksDB in
 * one call ({@link #build()}) instead of one JNI call per put: a commit puts a row per reading and
 * more, and each {@code WriteBatch.put} copies its key and value across JNI on its own.
 *
 * <table>
 *   <caption>Batch format (RocksDB {@code write_batch.cc})</caption>
 *   <tr><th>bytes</th><th>content</th></tr>
 *   <tr><td>8</td><td>sequence number, little-endian (0: RocksDB assigns it when writing)</td></tr>
 *   <tr><td>4</td><td>number of records, little-endian</td></tr>
 *   <tr><td>...</td><td>per put: {@code 0x01} (value, default column family) or {@code 0x05} (value) and the
 *       column family id as a varint32; key length (varint32) and key; value length (varint32) and value</td></tr>
 * </table>
 */
final class BatchBuilder {

    private static final int HEADER_BYTES = 12;
    private static final byte TYPE_VALUE = 0x01;
    private static final byte TYPE_COLUMN_FAMILY_VALUE = 0x05;

    private byte[] bytes;
    private int size = HEADER_BYTES;
    private int count;

    /** A builder whose buffer starts at {@code expectedBytes} (it grows past them if needed). */
    BatchBuilder(long expectedBytes) {
        bytes = new byte[(int) Math.min(Integer.MAX_VALUE - 1024, Math.max(expectedBytes, 1024))];
    }

    /** Adds a put of {@code key} to {@code value} in the column family of id {@code columnFamily}. */
    void put(int columnFamily, byte[] key, byte[] value) {
        ensure(1 + 5 + 5 + key.length + 5 + value.length);
        if (columnFamily == 0) {
            bytes[size++] = TYPE_VALUE;
        } else {
            bytes[size++] = TYPE_COLUMN_FAMILY_VALUE;
            writeVarint(columnFamily);
        }
        writeVarint(key.length);
        System.arraycopy(key, 0, bytes, size, key.length);
        size += key.length;
        writeVarint(value.length);
        System.arraycopy(value, 0, bytes, size, value.length);
        size += value.length;
        count++;
    }

    int count() {
        return count;
    }

    /** The batch, for RocksDB to write (the caller closes it). */
    WriteBatch build() {
        bytes[8] = (byte) count;
        bytes[9] = (byte) (count >>> 8);
        bytes[10] = (byte) (count >>> 16);
        bytes[11] = (byte) (count >>> 24);
        return new WriteBatch(Arrays.copyOf(bytes, size));
    }

    private void writeVarint(int value) {
        while ((value & ~0x7F) != 0) {
            bytes[size++] = (byte) ((value & 0x7F) | 0x80);
            value >>>= 7;
        }
        bytes[size++] = (byte) value;
    }

    private void ensure(int more) {
        if (size + more > bytes.length) {
            bytes = Arrays.copyOf(bytes, Math.max(bytes.length * 2, size + more));
        }
    }
}
