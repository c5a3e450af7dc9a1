package dev.tspipe.processor.topology;

import dev.tspipe.model.keys.DistributionKey;
import dev.tspipe.schemas.serde.WireFormat;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Judges a decoded batch of readings of one device (docs/schemas-and-serde.md "Batches"): each reading exactly as
 * {@link ReadingValidator} judges a single one, with the batch's device and tenant and its series entry's metric
 * and tags. Read by field name with the writer's schema, like single readings, so a producer's own batch schema of
 * the same shape works.
 *
 * <p>What concerns every reading at once rejects the whole record: a device or tenant that is missing, empty or
 * not printable, and a shape that is not a batch (series or points that are not arrays of records). A reading's
 * own faults (its metric or tags, a value that is not finite, a timestamp out of range, a row key too long) reject
 * that reading alone.
 */
final class BatchValidator {

    /** The field that makes a record a batch: an array of series entries. */
    static final String SERIES = "series";
    static final String POINTS = "points";

    private final ReadingValidator readings;

    BatchValidator(ReadingValidator readings) {
        this.readings = readings;
    }

    /** Whether records of {@code schema} are batches: records with a {@code series} field and no {@code metric} field. */
    static boolean isBatch(Schema schema) {
        return schema.getType() == Schema.Type.RECORD && schema.getField(SERIES) != null && schema.getField("metric") == null;
    }

    /** The verdict on {@code batch}, decoded from {@code value} (whose schema id its readings' dead letters keep). */
    ReadingValidator.Verdict validate(GenericRecord batch, byte[] value) {
        Schema schema = batch.getSchema();
        String device;
        String tenant;
        List<GenericRecord> entries;
        try {
            device = ReadingValidator.requiredString(batch, "deviceId");
            tenant = ReadingValidator.optionalString(batch, "tenant");
            entries = records(batch, SERIES);
            for (GenericRecord entry : entries) {
                records(entry, POINTS);
            }
        } catch (ReadingValidator.FieldException e) {
            return new ReadingValidator.Rejected(RejectReason.INVALID_FIELD, "batch: " + e.getMessage()
                    + " (writer schema " + schema.getFullName() + "); no reading of it was stored");
        }
        List<ReadingValidator.Verdict> verdicts = new ArrayList<>();
        for (int e = 0; e < entries.size(); e++) {
            GenericRecord entry = entries.get(e);
            List<GenericRecord> points = pointsOf(entry);
            String metric = null;
            Map<String, String> tags = null;
            ReadingValidator.Rejected entryFault = null;
            try {
                metric = ReadingValidator.requiredString(entry, "metric");
                tags = ReadingValidator.tags(entry);
            } catch (ReadingValidator.FieldException fault) {
                entryFault = new ReadingValidator.Rejected(RejectReason.INVALID_FIELD, fault.getMessage());
            }
            for (int p = 0; p < points.size(); p++) {
                ReadingValidator.Verdict verdict = entryFault != null ? entryFault
                        : point(tenant, device, metric, tags, points.get(p));
                if (verdict instanceof ReadingValidator.Rejected rejected) {
                    verdict = new ReadingValidator.Rejected(rejected.reason(), "reading " + verdicts.size()
                            + " of the batch (series " + e + (metric == null ? "" : " '" + metric + "'") + ", point " + p
                            + "): " + rejected.message());
                }
                verdicts.add(verdict);
            }
        }
        return new BatchVerdict(DistributionKey.of(tenant, device), verdicts, index -> alone(batch, value, index));
    }

    private ReadingValidator.Verdict point(String tenant, String device, String metric, Map<String, String> tags, GenericRecord point) {
        long timestamp;
        double value;
        try {
            timestamp = ReadingValidator.requiredLong(point, "timestamp");
            value = ReadingValidator.requiredDouble(point, "value");
        } catch (ReadingValidator.FieldException fault) {
            return new ReadingValidator.Rejected(RejectReason.INVALID_FIELD, fault.getMessage());
        }
        return readings.reading(tenant, device, metric, timestamp, value, tags);
    }

    /** Field {@code name} of {@code record}: an array of records (possibly empty). */
    @SuppressWarnings("unchecked")
    private static List<GenericRecord> records(GenericRecord record, String name) throws ReadingValidator.FieldException {
        Object value = ReadingValidator.field(record, name, true);
        if (!(value instanceof List<?> list)) {
            throw new ReadingValidator.FieldException("field '" + name + "' must be an array, not " + value.getClass().getSimpleName());
        }
        for (Object element : list) {
            if (!(element instanceof GenericRecord)) {
                throw new ReadingValidator.FieldException("field '" + name + "' must be an array of records, not of "
                        + (element == null ? "nulls" : element.getClass().getSimpleName()));
            }
        }
        return (List<GenericRecord>) list;
    }

    @SuppressWarnings("unchecked")
    private static List<GenericRecord> pointsOf(GenericRecord entry) {
        return (List<GenericRecord>) entry.get(entry.getSchema().getField(POINTS).pos());
    }

    /**
     * Reading {@code index} of {@code batch} alone: the batch with only its series entry and only that point, written
     * with the batch's own schema and schema id, so that it reads (and replays) as any value of the topic does.
     */
    static byte[] alone(GenericRecord batch, byte[] value, int index) {
        Schema schema = batch.getSchema();
        GenericData.Record one = new GenericData.Record((GenericData.Record) batch, false);
        int left = index;
        for (Object element : (List<?>) batch.get(schema.getField(SERIES).pos())) {
            GenericData.Record entry = (GenericData.Record) element;
            List<?> points = (List<?>) entry.get(entry.getSchema().getField(POINTS).pos());
            if (left < points.size()) {
                GenericData.Record entryAlone = new GenericData.Record(entry, false);
                Schema.Field pointsField = entry.getSchema().getField(POINTS);
                entryAlone.put(pointsField.pos(), new GenericData.Array<>(arrayOf(pointsField.schema()), List.of(points.get(left))));
                Schema.Field seriesField = schema.getField(SERIES);
                one.put(seriesField.pos(), new GenericData.Array<>(arrayOf(seriesField.schema()), List.of(entryAlone)));
                return write(schema, WireFormat.schemaId(value), one);
            }
            left -= points.size();
        }
        throw new IndexOutOfBoundsException("reading " + index + " of a batch of " + (index - left));
    }

    /** The array schema of a field: the field's own, or the array branch of its union. */
    private static Schema arrayOf(Schema fieldSchema) {
        if (fieldSchema.getType() == Schema.Type.UNION) {
            for (Schema branch : fieldSchema.getTypes()) {
                if (branch.getType() == Schema.Type.ARRAY) {
                    return branch;
                }
            }
        }
        return fieldSchema;
    }

    private static byte[] write(Schema schema, int schemaId, GenericRecord record) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(64);
        byte[] header = new byte[WireFormat.HEADER_SIZE];
        WireFormat.writeHeader(header, schemaId);
        out.writeBytes(header);
        try {
            BinaryEncoder encoder = EncoderFactory.get().directBinaryEncoder(out, null);
            new GenericDatumWriter<GenericRecord>(schema, GenericData.get()).write(record, encoder);
            encoder.flush();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toByteArray();
    }
}
