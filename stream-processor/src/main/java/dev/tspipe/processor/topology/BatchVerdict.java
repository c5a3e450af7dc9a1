package dev.tspipe.processor.topology;

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
 */
public final class BatchVerdict implements ReadingValidator.Verdict {

    private final String distributionKey;
    private final List<ReadingValidator.Verdict> readings;
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
        for (ReadingValidator.Verdict verdict : this.readings) {
            if (verdict instanceof BatchVerdict) {
                throw new IllegalArgumentException("a batch holds readings, not batches");
            }
        }
    }

    /** The distribution key of the batch's device (and tenant): every reading of the batch has it. */
    public String distributionKey() {
        return distributionKey;
    }

    /** How many readings the batch holds. */
    public int size() {
        return readings.size();
    }

    /** The verdict on reading {@code index}: accepted or rejected, never a batch. */
    public ReadingValidator.Verdict reading(int index) {
        return readings.get(index);
    }

    /** The readings' verdicts in the batch's order. */
    public List<ReadingValidator.Verdict> readings() {
        return readings;
    }

    /** The value of reading {@code index}'s dead letter: the reading alone, a batch of one in the batch's schema. */
    public byte[] deadLetterValue(int index) {
        Objects.checkIndex(index, readings.size());
        return deadLetterValues.apply(index);
    }
}
