package dev.tspipe.processor.topology;

import dev.tspipe.model.keys.DistributionKey;
import dev.tspipe.model.keys.InvalidKeyException;
import dev.tspipe.model.keys.KeyLayout;
import dev.tspipe.model.keys.RowKey;
import dev.tspipe.model.keys.SeriesId;
import dev.tspipe.schemas.serde.WireFormat;
import org.apache.avro.Schema;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.IntFunction;

/**
 * The fast path of batches: reads a value of the {@code ReadingBatch} layout (deviceId, tenant, series of metric,
 * tags and points of timestamp and value, of those types, under any schema id) straight from its bytes. The device
 * and tenant are checked once per batch, the metric, tags and row-key prefix once per series entry, and each point
 * costs its timestamp and value in two arrays: the verdict holds runs of points ({@link BatchVerdict.Run}), no object per
 * reading.
 *
 * <p>It accepts only a batch whose every reading is valid, written the plain way; anything else (a bad reading, a map
 * or array block written with its byte size, a tag name twice, bytes left over) returns null, and the generic path
 * ({@link BatchValidator}) judges the batch and words each rejection. The two agree reading by reading on what the
 * fast path accepts (ReadingDecoderTest). Not thread-safe: one per decoder.
 */
final class BatchReader extends AvroLayoutReader {

    private static final int INITIAL_POINTS = 128;

    /** The batch being read: its runs, and its points' timestamps and values (given to its verdict, then new ones). */
    private final List<BatchVerdict.Run> runs = new ArrayList<>();
    private long[] timestamps = new long[INITIAL_POINTS];
    private double[] values = new double[INITIAL_POINTS];
    private int count;

    /** The batch, or null for the generic path; {@code deadLetters} gives a reading's dead-letter value if one is needed later. */
    BatchVerdict read(byte[] value, KeyLayout layout, IntFunction<byte[]> deadLetters) {
        data = value;
        pos = WireFormat.HEADER_SIZE;
        failed = false;
        int deviceLength = readStringLength();
        int deviceStart = skip(deviceLength);
        int tenantStart = -1;
        int tenantLength = -1;
        int branch = readInt();
        if (branch == 1) {
            tenantLength = readStringLength();
            tenantStart = skip(tenantLength);
        } else if (branch != 0) {
            return null;
        }
        if (failed) {
            return null;
        }
        String device = printableText(deviceStart, deviceLength, false);
        String tenant = tenantStart < 0 ? null : printableText(tenantStart, tenantLength, true);
        if (device == null || (tenantStart >= 0 && tenant == null)) {
            return null;
        }
        runs.clear();
        count = 0;
        long entries;
        try {
            while ((entries = readBlockCount()) > 0) {
                for (long e = 0; e < entries; e++) {
                    if (!readEntry(tenant, device, layout)) {
                        return null;
                    }
                }
            }
        } catch (InvalidKeyException invalid) {
            return null;
        }
        if (failed || entries < 0 || pos != data.length) {
            return null;
        }
        BatchVerdict batch = new BatchVerdict(DistributionKey.of(tenant, device), runs, timestamps, values, count, deadLetters);
        // The arrays are the verdict's now.
        timestamps = new long[INITIAL_POINTS];
        values = new double[INITIAL_POINTS];
        return batch;
    }

    /** Reads one series entry and adds its points as a run; false when anything about it is not plain. */
    private boolean readEntry(String tenant, String device, KeyLayout layout) {
        int metricLength = readStringLength();
        int metricStart = skip(metricLength);
        if (failed) {
            return false;
        }
        String metric = printableText(metricStart, metricLength, false);
        int tagCount = readTags();
        if (metric == null || failed) {
            return false;
        }
        SeriesId series = new SeriesId(tenant, device, metric);
        // The row-key prefix once per entry; a key too long is so for every point (the digits have a fixed width).
        byte[] prefix = RowKey.seriesPrefixOf(RowKey.encode(layout, series, 0));
        byte[] template = row(0.0, tagCount);
        int from = count;
        long points;
        while ((points = readBlockCount()) > 0) {
            if (count + points > timestamps.length) {
                int length = (int) Math.max(2L * timestamps.length, count + points);
                timestamps = Arrays.copyOf(timestamps, length);
                values = Arrays.copyOf(values, length);
            }
            for (long p = 0; p < points; p++) {
                long timestamp = readLong();
                double value = readDouble();
                if (failed || Double.isNaN(value) || Double.isInfinite(value)
                        || timestamp < RowKey.MIN_EPOCH_MILLIS || timestamp > RowKey.MAX_EPOCH_MILLIS) {
                    return false;
                }
                timestamps[count] = timestamp;
                values[count] = value;
                count++;
            }
        }
        if (failed || points != 0) {
            return false;
        }
        if (count > from) {
            runs.add(new BatchVerdict.Run(series, prefix, template, from, count));
        }
        return true;
    }

    /** The item count of the next array block: 0 at the end, -1 (and failed) for a count written with its byte size or too large. */
    private long readBlockCount() {
        long count = readLong();
        if (failed || count < 0 || count > data.length - pos) {
            failed = true;
            return -1;
        }
        return count;
    }

    /**
     * Whether values of {@code schema} hold, in this order: a string, a null-or-string union, and an array of records of
     * a string, a map of strings and an array of records of a long and a double ({@code ReadingBatch.avsc}).
     */
    static boolean isBatchLayout(Schema schema) {
        if (!fields(schema, "deviceId", "tenant", "series")) {
            return false;
        }
        Schema tenant = schema.getFields().get(1).schema();
        Schema series = schema.getFields().get(2).schema();
        if (schema.getFields().get(0).schema().getType() != Schema.Type.STRING
                || tenant.getType() != Schema.Type.UNION || tenant.getTypes().size() != 2
                || tenant.getTypes().get(0).getType() != Schema.Type.NULL || tenant.getTypes().get(1).getType() != Schema.Type.STRING
                || series.getType() != Schema.Type.ARRAY) {
            return false;
        }
        Schema entry = series.getElementType();
        if (!fields(entry, "metric", "tags", "points")) {
            return false;
        }
        Schema tags = entry.getFields().get(1).schema();
        Schema points = entry.getFields().get(2).schema();
        if (entry.getFields().get(0).schema().getType() != Schema.Type.STRING
                || tags.getType() != Schema.Type.MAP || tags.getValueType().getType() != Schema.Type.STRING
                || points.getType() != Schema.Type.ARRAY) {
            return false;
        }
        Schema point = points.getElementType();
        return fields(point, "timestamp", "value")
                && point.getFields().get(0).schema().getType() == Schema.Type.LONG
                && point.getFields().get(1).schema().getType() == Schema.Type.DOUBLE;
    }

    private static boolean fields(Schema schema, String... names) {
        if (schema.getType() != Schema.Type.RECORD || schema.getFields().size() != names.length) {
            return false;
        }
        for (int i = 0; i < names.length; i++) {
            if (!schema.getFields().get(i).name().equals(names[i])) {
                return false;
            }
        }
        return true;
    }
}
