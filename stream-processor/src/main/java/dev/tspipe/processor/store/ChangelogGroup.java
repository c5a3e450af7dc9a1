package dev.tspipe.processor.store;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongPredicate;

/**
 * The changelog record of a grouped table ({@link Table#grouped()}): the rows one commit wrote for one
 * series. Key: the series prefix {@code device#metric#}. Value:
 *
 * <table>
 *   <caption>Byte layout (big-endian)</caption>
 *   <tr><th>length</th><th>content</th></tr>
 *   <tr><td>1</td><td>format version, {@value #VERSION}</td></tr>
 *   <tr><td>per row: 8</td><td>the row's timestamp (epoch millis; the key's reversed timestamp is {@code Long.MAX_VALUE} minus it)</td></tr>
 *   <tr><td>per row: 4</td><td>length of the row's value</td></tr>
 *   <tr><td>per row: n</td><td>the row's value, as stored</td></tr>
 * </table>
 *
 * Rows are in the order they were written; a later row with the same timestamp replaces an earlier one
 * (a correction), within a record and across records.
 */
final class ChangelogGroup {

    static final byte VERSION = 1;
    /** Rows are split into several records above this size, well below any broker's record limit. */
    static final int MAX_VALUE_BYTES = 256 * 1024;
    /** Bytes of a row besides its value: its timestamp and its length. */
    static final int ROW_OVERHEAD = 12;

    private ChangelogGroup() {
    }

    /**
     * Encodes the rows a series buffered ({@code rows}: raw rows or replaced buckets, their bytes in
     * {@code arena}) as one or more record values of at most {@link #MAX_VALUE_BYTES} (one row alone may be larger),
     * in the buffer's order; rows whose timestamp {@code leftOut} accepts are not written. No object per row.
     */
    static List<byte[]> encode(TimedRows rows, byte[] arena, LongPredicate leftOut) {
        List<byte[]> values = new ArrayList<>(1);
        int start = 0;
        while (start < rows.size()) {
            int size = 1;
            int end = start;
            boolean any = false;
            for (; end < rows.size(); end++) {
                if (leftOut.test(rows.millis(end))) {
                    continue;
                }
                if (any && size + ROW_OVERHEAD + rows.length(end) > MAX_VALUE_BYTES) {
                    break;
                }
                size += ROW_OVERHEAD + rows.length(end);
                any = true;
            }
            if (any) {
                ByteBuffer buffer = ByteBuffer.allocate(size).put(VERSION);
                for (int i = start; i < end; i++) {
                    if (!leftOut.test(rows.millis(i))) {
                        buffer.putLong(rows.millis(i)).putInt(rows.length(i)).put(arena, rows.offset(i), rows.length(i));
                    }
                }
                values.add(buffer.array());
            }
            start = end;
        }
        return values;
    }

    /** Where {@link #forEachRow} hands each row: its bytes are {@code length} bytes of {@code source} from {@code offset}. */
    @FunctionalInterface
    interface RowVisitor<E extends Exception> {
        void row(long epochMillis, byte[] source, int offset, int length) throws E;
    }

    /** Visits the rows of one record value in order, without copying them (the restore writes them straight from it). */
    static <E extends Exception> void forEachRow(byte[] value, RowVisitor<E> visitor) throws E {
        if (value.length == 0 || value[0] != VERSION) {
            throw new IllegalArgumentException("changelog group of format version " + (value.length == 0 ? "(empty)" : value[0])
                    + ", expected " + VERSION + "; a changelog written by another tspipe version: reset the application to rebuild the tables");
        }
        ByteBuffer buffer = ByteBuffer.wrap(value);
        int position = 1;
        while (position < value.length) {
            if (value.length - position < ROW_OVERHEAD) {
                throw new IllegalArgumentException("changelog group truncated: " + (value.length - position)
                        + " bytes left at offset " + position + ", a row takes at least " + ROW_OVERHEAD);
            }
            long epochMillis = buffer.getLong(position);
            int length = buffer.getInt(position + 8);
            position += ROW_OVERHEAD;
            if (length < 0 || length > value.length - position) {
                throw new IllegalArgumentException("changelog group truncated: a row of " + length + " bytes at offset "
                        + position + " of " + value.length);
            }
            visitor.row(epochMillis, value, position, length);
            position += length;
        }
    }
}
