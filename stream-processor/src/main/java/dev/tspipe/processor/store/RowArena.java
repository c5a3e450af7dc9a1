package dev.tspipe.processor.store;

import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * The bytes of the raw rows and of the replaced buckets that a store's series buffers hold until the next flush,
 * appended to one array for all of the store's series ({@link TimedRows} keeps where each row is). A buffer that referenced each row's
 * own array made every reading a write of a reference into a long-lived object: G1 then scanned every such
 * object's card at each young pause (measured under a steady 20,000 readings/s: 20,000 cards, half of a 23 ms
 * pause). An array of bytes holds no references: nothing in it is scanned or copied by a young collection.
 * Only the stream thread touches it.
 */
final class RowArena {

    private static final int INITIAL_BYTES = 64 * 1024;
    /** Above this, an arena that a flush found mostly unused shrinks back (a large commit does not pin its memory). */
    private static final int KEPT_BYTES = 4 * 1024 * 1024;

    private byte[] bytes = new byte[INITIAL_BYTES];
    private int size;

    /** Appends {@code row}; returns its offset. */
    int append(byte[] row) {
        int offset = reserve(row.length);
        System.arraycopy(row, 0, bytes, offset, row.length);
        return offset;
    }

    /** Makes room for {@code length} more bytes and returns where they start, for the caller to write into {@link #bytes()}. */
    int reserve(int length) {
        if (size + length > bytes.length) {
            long wanted = Math.max(bytes.length * 2L, (long) size + length);
            if (wanted > Integer.MAX_VALUE - 16) {
                throw new IllegalStateException("the rows buffered since the last commit exceed " + (Integer.MAX_VALUE - 16)
                        + " bytes; lower statestore.uncommitted.max.bytes");
            }
            bytes = Arrays.copyOf(bytes, (int) wanted);
        }
        int offset = size;
        size += length;
        return offset;
    }

    /** The array the rows are in: valid until the next {@link #append} or {@link #reserve}. */
    byte[] bytes() {
        return bytes;
    }

    /** The value of the row at {@code offset} (a raw row starts with its value). */
    double value(int offset) {
        return ByteBuffer.wrap(bytes).getDouble(offset);
    }

    /** Whether the row at {@code offset} of {@code length} bytes equals {@code row}. */
    boolean sameBytes(int offset, int length, byte[] row) {
        return Arrays.equals(bytes, offset, offset + length, row, 0, row.length);
    }

    /** A copy of the row at {@code offset}. */
    byte[] copy(int offset, int length) {
        return Arrays.copyOfRange(bytes, offset, offset + length);
    }

    /** After a flush: empty, keeping the array unless it grew large and this interval used little of it. */
    void clear() {
        if (bytes.length > KEPT_BYTES && size < bytes.length / 4) {
            bytes = new byte[Math.max(INITIAL_BYTES, size)];
        }
        size = 0;
    }
}
