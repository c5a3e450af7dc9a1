package dev.tspipe.processor.topology;

import dev.tspipe.model.keys.RowKey;
import dev.tspipe.model.keys.SeriesId;

import java.util.AbstractList;
import java.util.List;
import java.util.Objects;
import java.util.function.IntFunction;

/**
 * The verdict on a batch of readings of one device (a {@code ReadingBatch}, docs/schemas-and-serde.md "Batches"):
 * a verdict for each of its readings, in the batch's order (the points of its first series entry, then of the
 * next), and for a rejected one the value of its own dead letter.
 *
 * <p>A reading is judged exactly as it would be alone; only what concerns the whole batch (its device, its tenant,
 * its shape) rejects the whole record instead (a {@link ReadingValidator.Rejected} in place of this).
 *
 * <p>Two shapes, one meaning. A batch whose every reading is accepted (the fast path's, {@link BatchReader}) holds its
 * readings as {@link Run}s: per series entry its row-key prefix and row template once, and the points' timestamps and
 * values in two arrays, so that a reading costs no object until someone asks for it ({@link #reading}); the store takes
 * a run at once. Any other batch holds a verdict per reading ({@link #runs()} is then null).
 */
public final class BatchVerdict implements ReadingValidator.Verdict {

    /**
     * The accepted readings {@code [from, to)} of the batch, all of one series entry: its series, the row-key prefix of
     * the series ({@link RowKey#seriesPrefixOf}) and the raw row of its tags with a value of 0 ({@code rowTemplate}: a
     * reading's row is it with the reading's value in its first 8 bytes, {@link #putValue}).
     */
    public record Run(SeriesId series, byte[] seriesPrefix, byte[] rowTemplate, int from, int to) {
    }

    private final String distributionKey;
    private final List<ReadingValidator.Verdict> readings;
    private final List<Run> runs;
    private final long[] timestamps;
    private final double[] values;
    private final int size;
    private final IntFunction<byte[]> deadLetterValues;

    /**
     * @param distributionKey  the key of the batch's device, which places the whole batch
     * @param readings         a verdict per reading: {@link ReadingValidator.Accepted} or {@link ReadingValidator.Rejected}
     * @param deadLetterValues the value of the dead letter of reading {@code i}: that reading alone, as a batch of one
     *                         in the batch's own schema and schema id
     */
    BatchVerdict(String distributionKey, List<ReadingValidator.Verdict> readings, IntFunction<byte[]> deadLetterValues) {
        this.distributionKey = Objects.requireNonNull(distributionKey, "distributionKey");
        this.readings = List.copyOf(readings);
        this.deadLetterValues = Objects.requireNonNull(deadLetterValues, "deadLetterValues");
        this.runs = null;
        this.timestamps = null;
        this.values = null;
        this.size = this.readings.size();
        for (ReadingValidator.Verdict verdict : this.readings) {
            if (verdict instanceof BatchVerdict) {
                throw new IllegalArgumentException("a batch holds readings, not batches");
            }
        }
    }

    /**
     * A batch of accepted readings only: {@code runs} cover {@code [0, size)} in order, reading {@code i} at
     * {@code timestamps[i]} of {@code values[i]} (the arrays are the verdict's from now on).
     */
    BatchVerdict(String distributionKey, List<Run> runs, long[] timestamps, double[] values, int size,
                 IntFunction<byte[]> deadLetterValues) {
        this.distributionKey = Objects.requireNonNull(distributionKey, "distributionKey");
        this.runs = List.copyOf(runs);
        this.timestamps = timestamps;
        this.values = values;
        this.size = size;
        this.deadLetterValues = Objects.requireNonNull(deadLetterValues, "deadLetterValues");
        int next = 0;
        for (Run run : this.runs) {
            if (run.from() != next || run.to() < run.from()) {
                throw new IllegalArgumentException("runs must cover the readings in order: " + run.from() + " after " + next);
            }
            next = run.to();
        }
        if (next != size || timestamps.length < size || values.length < size) {
            throw new IllegalArgumentException("runs cover " + next + " of " + size + " readings");
        }
        this.readings = new AbstractList<>() {
            @Override
            public ReadingValidator.Verdict get(int index) {
                return reading(index);
            }

            @Override
            public int size() {
                return BatchVerdict.this.size;
            }
        };
    }

    /** The distribution key of the batch's device (and tenant): every reading of the batch has it. */
    public String distributionKey() {
        return distributionKey;
    }

    /** How many readings the batch holds. */
    public int size() {
        return size;
    }

    /**
     * The verdict on reading {@code index}: accepted or rejected, never a batch. For a batch of runs, made when asked
     * (not on the store's path).
     */
    public ReadingValidator.Verdict reading(int index) {
        if (runs == null) {
            return readings.get(index);
        }
        Objects.checkIndex(index, size);
        Run run = runOf(index);
        byte[] row = run.rowTemplate().clone();
        putValue(row, values[index]);
        return new ReadingValidator.Accepted(new ValidReading(run.series(), timestamps[index], values[index], row),
                RowKey.withTimestamp(run.seriesPrefix(), timestamps[index]));
    }

    /** The readings' verdicts in the batch's order. */
    public List<ReadingValidator.Verdict> readings() {
        return readings;
    }

    /** The runs of accepted readings, if the batch is made of them; null if it holds a verdict per reading. */
    public List<Run> runs() {
        return runs;
    }

    /** The timestamp of reading {@code index} of a batch of runs. */
    public long timestamp(int index) {
        return timestamps[Objects.checkIndex(index, size)];
    }

    /** The value of reading {@code index} of a batch of runs. */
    public double value(int index) {
        return values[Objects.checkIndex(index, size)];
    }

    /** How many of the readings are accepted. */
    public int acceptedCount() {
        if (runs != null) {
            return size;
        }
        int accepted = 0;
        for (ReadingValidator.Verdict verdict : readings) {
            if (verdict instanceof ReadingValidator.Accepted) {
                accepted++;
            }
        }
        return accepted;
    }

    /** The value of reading {@code index}'s dead letter: the reading alone, a batch of one in the batch's schema. */
    public byte[] deadLetterValue(int index) {
        Objects.checkIndex(index, size);
        return deadLetterValues.apply(index);
    }

    /** Writes {@code value} into the first 8 bytes of a raw row (big-endian IEEE 754 bits, as {@code RawRow} has it). */
    static void putValue(byte[] row, double value) {
        AvroLayoutReader.putLong(row, 0, Double.doubleToRawLongBits(value));
    }

    private Run runOf(int index) {
        int low = 0;
        int high = runs.size() - 1;
        while (low < high) {
            int middle = (low + high + 1) >>> 1;
            if (runs.get(middle).from() <= index) {
                low = middle;
            } else {
                high = middle - 1;
            }
        }
        return runs.get(low);
    }
}
