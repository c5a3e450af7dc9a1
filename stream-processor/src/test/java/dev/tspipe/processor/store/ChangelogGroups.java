package dev.tspipe.processor.store;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.kafka.streams.KeyValue;

/**
 * A second, plain writer and reader of the changelog group layout ({@link ChangelogGroup}), over a list of rows with
 * their own arrays: the reference the store's writer (rows in an arena) is compared with, and a way for tests to make
 * and read changelog records.
 */
final class ChangelogGroups {

    private ChangelogGroups() {
    }

    /** One row of a group. */
    record Row(long epochMillis, byte[] value) {
    }

    /** {@code rows} as one or more record values of at most {@link ChangelogGroup#MAX_VALUE_BYTES} (one row alone may be larger). */
    static List<byte[]> encode(List<Row> rows) {
        List<byte[]> values = new ArrayList<>(1);
        int start = 0;
        while (start < rows.size()) {
            int size = 1;
            int end = start;
            while (end < rows.size() && (end == start || size + ChangelogGroup.ROW_OVERHEAD + rows.get(end).value.length <= ChangelogGroup.MAX_VALUE_BYTES)) {
                size += ChangelogGroup.ROW_OVERHEAD + rows.get(end).value.length;
                end++;
            }
            ByteBuffer buffer = ByteBuffer.allocate(size).put(ChangelogGroup.VERSION);
            for (int i = start; i < end; i++) {
                Row row = rows.get(i);
                buffer.putLong(row.epochMillis).putInt(row.value.length).put(row.value);
            }
            values.add(buffer.array());
            start = end;
        }
        return values;
    }

    /**
     * The raw changelog's records as the chunks they hold, each with its block's key: a group ({@link ChunkGroup})
     * gives its chunks in order, any other record is one chunk.
     */
    static List<KeyValue<byte[], byte[]>> chunks(List<KeyValue<byte[], byte[]>> records) {
        List<KeyValue<byte[], byte[]>> chunks = new ArrayList<>();
        for (KeyValue<byte[], byte[]> record : records) {
            if (ChunkGroup.isGroupKey(record.key)) {
                ChunkGroup.forEachChunk(record.value, (key, source, offset, length) ->
                        chunks.add(KeyValue.pair(key, Arrays.copyOfRange(source, offset, offset + length))));
            } else {
                chunks.add(record);
            }
        }
        return chunks;
    }

    /** The rows of one record value, as the store's restore reads them ({@link ChangelogGroup#forEachRow}). */
    static List<Row> decode(byte[] value) {
        List<Row> rows = new ArrayList<>();
        ChangelogGroup.forEachRow(value, (epochMillis, source, offset, length) ->
                rows.add(new Row(epochMillis, Arrays.copyOfRange(source, offset, offset + length))));
        return rows;
    }
}
