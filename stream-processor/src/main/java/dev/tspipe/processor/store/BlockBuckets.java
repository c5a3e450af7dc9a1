package dev.tspipe.processor.store;

import dev.tspipe.model.keys.RowKey;
import dev.tspipe.model.rows.RollupCounters;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.state.KeyValueIterator;

import java.util.Arrays;
import java.util.NoSuchElementException;
import java.util.function.Function;

/**
 * The rollup rows of a resolution computed from blocks (docs/storage.md, "Blocks"): for every series and bucket of
 * {@code step} that has readings, the row a rollup table holds, keyed {@code device#metric#reversedBucketStart},
 * its value {@code Rollup}'s bytes (the values summed oldest first, as readings that arrive in order are added),
 * in unsigned key order or its reverse, within {@code [lower, upperExclusive)}, without buckets that start before
 * the cutoff. Only the readings from {@code readingsFrom} on are counted: a bucket that starts before it goes on from
 * its stored counters ({@code stored}: the readings before it, sealed into the rollup table; {@link RollupSeal}), so
 * that it holds what the seal will store, bit for bit.
 *
 * <p>Which readings a range of buckets needs: a bucket's key is the largest key its readings can have, so the
 * readings of the buckets in the range are the readings in the range and, below its lower bound, those of the
 * bucket whose key span holds that bound ({@link #readingsLower}); a bucket past the upper bound can have readings
 * below it, and is left out by its key.
 *
 * <p>Thread rule: one thread at a time, like any iterator of a store; closing closes the rows' iterator.
 */
final class BlockBuckets implements KeyValueIterator<Bytes, byte[]> {

    private final BlockRows readings;
    private final byte[] lower;
    private final byte[] upperExclusive;
    private final boolean reverse;
    private final long step;
    private final long cutoff;
    private final long readingsFrom;
    private final Function<byte[], byte[]> stored;
    private final RollupCounters counters = new RollupCounters();
    /** Whether {@code readings} stands at a reading not yet folded (the first of the next bucket). */
    private boolean pending;
    private KeyValue<Bytes, byte[]> next;
    private double[] values = new double[64];
    private long[] times = new long[64];

    private BlockBuckets(BlockRows readings, byte[] lower, byte[] upperExclusive, boolean reverse, long step,
                         long cutoff, long readingsFrom, Function<byte[], byte[]> stored) {
        this.readings = readings;
        this.lower = lower;
        this.upperExclusive = upperExclusive;
        this.reverse = reverse;
        this.step = step;
        this.cutoff = cutoff;
        this.readingsFrom = readingsFrom;
        this.stored = stored;
    }

    /** The buckets of {@code stepMillis} with keys in {@code [lower, upperExclusive)} and starts at or after {@code cutoff}. */
    static BlockBuckets of(BlockRows.BlockSource source, byte[] lower, byte[] upperExclusive, boolean reverse, long spanMillis,
                           long stepMillis, long cutoff) {
        return of(source, lower, upperExclusive, reverse, spanMillis, stepMillis, cutoff, Long.MIN_VALUE, key -> null);
    }

    /**
     * The buckets of {@code stepMillis} with keys in {@code [lower, upperExclusive)} and starts at or after {@code cutoff},
     * of the readings at or after {@code readingsFrom}, a bucket that starts before it going on from {@code stored}'s
     * value for its key (null: none).
     */
    static BlockBuckets of(BlockRows.BlockSource source, byte[] lower, byte[] upperExclusive, boolean reverse, long spanMillis,
                           long stepMillis, long cutoff, long readingsFrom, Function<byte[], byte[]> stored) {
        byte[] from = lower == null || (upperExclusive != null && Arrays.compareUnsigned(lower, upperExclusive) >= 0)
                ? lower : readingsLower(source, lower, stepMillis);
        BlockRows rows = BlockRows.of(source, from, upperExclusive, reverse, spanMillis, readingsFrom);
        return new BlockBuckets(rows, lower, upperExclusive, reverse, stepMillis, cutoff, readingsFrom, stored);
    }

    /**
     * The lower bound of the readings of the buckets at or above {@code lower}: when {@code lower} falls in the key
     * span of a bucket of a series that has blocks next to it, the key of that bucket's last millisecond; else
     * {@code lower}.
     */
    static byte[] readingsLower(BlockRows.BlockSource source, byte[] lower, long stepMillis) {
        byte[] series = seriesAround(source, lower);
        if (series == null) {
            return lower;
        }
        long time = ceilingTime(series, lower);
        if (time < 0) {
            return lower;
        }
        long start = BlockRows.blockStart(time, stepMillis);
        return RowKey.withTimestamp(series, Math.min(RowKey.MAX_EPOCH_MILLIS, start + stepMillis - 1));
    }

    /** The series prefix that {@code key} starts with, of the blocks just at or after it and just before it; or null. */
    private static byte[] seriesAround(BlockRows.BlockSource source, byte[] key) {
        for (boolean before : new boolean[] {false, true}) {
            try (KeyValueIterator<Bytes, byte[]> near = before ? source.range(null, key, true) : source.range(key, null, false)) {
                if (near.hasNext()) {
                    byte[] block = near.next().key.get();
                    int length = RowKey.seriesPrefixLength(block);
                    if (key.length >= length && Arrays.equals(block, 0, length, key, 0, length)) {
                        return Arrays.copyOf(block, length);
                    }
                }
            }
        }
        return null;
    }

    /** The latest time whose key in the series is at or above {@code key}, or -1 when every key of the series is below it. */
    static long ceilingTime(byte[] series, byte[] key) {
        byte[] probe = Arrays.copyOf(series, series.length + RowKey.TIMESTAMP_DIGITS);
        long low = RowKey.MIN_EPOCH_MILLIS;
        long high = RowKey.MAX_EPOCH_MILLIS;
        RowKey.writeTimestamp(low, probe, series.length);
        if (Arrays.compareUnsigned(probe, key) < 0) {
            return -1;
        }
        // Keys fall as times rise: find the largest time whose key is still >= key.
        while (low < high) {
            long middle = low + (high - low + 1) / 2;
            RowKey.writeTimestamp(middle, probe, series.length);
            if (Arrays.compareUnsigned(probe, key) >= 0) {
                low = middle;
            } else {
                high = middle - 1;
            }
        }
        return low;
    }

    @Override
    public boolean hasNext() {
        while (next == null) {
            if (!pending && !readings.advance()) {
                return false;
            }
            pending = false;
            next = bucketFromCurrent();
        }
        return true;
    }

    @Override
    public KeyValue<Bytes, byte[]> next() {
        if (!hasNext()) {
            throw new NoSuchElementException();
        }
        KeyValue<Bytes, byte[]> bucket = next;
        next = null;
        return bucket;
    }

    @Override
    public Bytes peekNextKey() {
        if (!hasNext()) {
            throw new NoSuchElementException();
        }
        return next.key;
    }

    @Override
    public void close() {
        readings.close();
    }

    /**
     * Folds the readings of the bucket of the reading {@code readings} stands at (they come together, read without
     * making their rows); its row, or null when outside the range.
     */
    private KeyValue<Bytes, byte[]> bucketFromCurrent() {
        byte[] prefix = readings.seriesPrefix();
        long start = BlockRows.blockStart(readings.timestamp(), step);
        int count = 0;
        boolean more = true;
        while (more) {
            byte[] readingPrefix = readings.seriesPrefix();
            long time = readings.timestamp();
            if ((readingPrefix != prefix && !Arrays.equals(readingPrefix, prefix)) || BlockRows.blockStart(time, step) != start) {
                pending = true;
                break;
            }
            if (count == values.length) {
                values = Arrays.copyOf(values, count * 2);
                times = Arrays.copyOf(times, count * 2);
            }
            values[count] = readings.value();
            times[count] = time;
            count++;
            more = readings.advance();
        }
        byte[] bucketKey = RowKey.withTimestamp(prefix, start);
        if (start < cutoff || (lower != null && Arrays.compareUnsigned(bucketKey, lower) < 0)
                || (upperExclusive != null && Arrays.compareUnsigned(bucketKey, upperExclusive) >= 0)) {
            return null;
        }
        // Oldest first (forward rows come newest first), after the sealed readings of a bucket that began before them.
        counters.setOrClear(start < readingsFrom ? stored.apply(bucketKey) : null);
        for (int i = 0; i < count; i++) {
            int at = reverse ? i : count - 1 - i;
            counters.include(values[at], times[at]);
        }
        byte[] value = new byte[counters.encodedSize()];
        counters.encodeInto(value, 0);
        return KeyValue.pair(Bytes.wrap(bucketKey), value);
    }
}
