package dev.tspipe.processor.store;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The write-back buffer of one series in a {@link SeriesStore}: what the stream thread wrote since the
 * last flush (raw rows, buckets, the latest reading), and what it knows for sure about the series'
 * stored state (its latest timestamp and the bucket of each resolution it last wrote), so that in-order
 * readings need no read from RocksDB at all.
 *
 * <p>Exact, not a guess: the stream thread is the only writer of its task's store, and every value here
 * is one it wrote or read. Only the stream thread touches it. A task that is closed after an aborted
 * transaction opens a new store object, so values of aborted writes are never seen again.
 */
final class SeriesBuffer {

    static final long NONE = Long.MIN_VALUE;

    final byte[] prefix;
    boolean dirty;

    /** The newest reading's timestamp and {@code LatestReading} bytes; NONE/null if the series has none. */
    long latestMillis = NONE;
    byte[] latestValue;
    boolean latestDirty;

    /** Raw rows written since the last flush, by timestamp, in the order written (a correction replaces). */
    final LinkedHashMap<Long, byte[]> rows = new LinkedHashMap<>();
    /** Buckets written since the last flush, per resolution. */
    final Map<RollupStep, LinkedHashMap<Long, byte[]>> buckets = new EnumMap<>(RollupStep.class);
    /** The bucket of each resolution last written or read (clean or dirty): start and value. */
    private final long[] lastBucketStart = new long[RollupStep.values().length];
    private final byte[][] lastBucketValue = new byte[RollupStep.values().length][];

    SeriesBuffer(byte[] prefix) {
        this.prefix = prefix;
        java.util.Arrays.fill(lastBucketStart, NONE);
        for (RollupStep step : RollupStep.values()) {
            buckets.put(step, new LinkedHashMap<>());
        }
    }

    /** The bucket starting at {@code start} if this buffer knows it (written since the flush, or the last one seen). */
    byte[] knownBucket(RollupStep step, long start) {
        byte[] pending = buckets.get(step).get(start);
        if (pending != null) {
            return pending;
        }
        return lastBucketStart[step.ordinal()] == start ? lastBucketValue[step.ordinal()] : null;
    }

    void putBucket(RollupStep step, long start, byte[] value) {
        buckets.get(step).put(start, value);
        remember(step, start, value);
    }

    /** Remembers a bucket read from the store, so the next reading of the same bucket does not read it again. */
    void remember(RollupStep step, long start, byte[] value) {
        lastBucketStart[step.ordinal()] = start;
        lastBucketValue[step.ordinal()] = value;
    }

    void setLatest(long epochMillis, byte[] value) {
        latestMillis = epochMillis;
        latestValue = value;
        latestDirty = true;
    }

    /** The pending rows as changelog group rows, in the order written. */
    List<ChangelogGroup.Row> pendingRows(Map<Long, byte[]> pending) {
        List<ChangelogGroup.Row> out = new ArrayList<>(pending.size());
        pending.forEach((millis, value) -> out.add(new ChangelogGroup.Row(millis, value)));
        return out;
    }

    /** After a flush: nothing pending, what is known stays known. */
    void clean() {
        rows.clear();
        buckets.values().forEach(Map::clear);
        latestDirty = false;
        dirty = false;
    }
}
