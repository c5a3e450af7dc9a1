package dev.tspipe.processor.store;

import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;

/**
 * The lifecycle of each table of a {@link SeriesStore}: how long its rows live (by stream time) and
 * the time span of one segment (one RocksDB column family, dropped whole when all of it has expired).
 * {@link Table#LATEST} never expires and has one segment.
 */
public final class SeriesStoreSpec {

    private final Map<Table, Long> retentionMs = new EnumMap<>(Table.class);
    private final Map<Table, Long> spanMs = new EnumMap<>(Table.class);
    private long rawBlockMs;
    private Duration maxReadHold = DEFAULT_MAX_READ_HOLD;

    /** How long a read may keep a segment that a seal dropped, by default ({@link #maxReadHold()}). */
    public static final Duration DEFAULT_MAX_READ_HOLD = Duration.ofSeconds(30);

    /** A raw block's span when the raw segment's span is a multiple of it (the default's is: 1 day): one hour. */
    public static final long RAW_BLOCK_MS = 3_600_000L;

    private SeriesStoreSpec() {
    }

    /**
     * @param rawRetention    how long raw rows live
     * @param rawSpan         the span of one raw segment
     * @param rollupRetention how long the buckets of each resolution live
     */
    public static SeriesStoreSpec of(Duration rawRetention, Duration rawSpan, Map<RollupStep, Duration> rollupRetention) {
        SeriesStoreSpec spec = new SeriesStoreSpec();
        spec.set(Table.RAW, rawRetention.toMillis(), rawSpan.toMillis());
        spec.rawBlockMs = gcd(RAW_BLOCK_MS, rawSpan.toMillis());
        for (RollupStep step : RollupStep.values()) {
            long retention = rollupRetention.get(step).toMillis();
            spec.set(Table.of(step), retention, Math.min(step.segment().toMillis(), retention));
        }
        spec.retentionMs.put(Table.LATEST, Long.MAX_VALUE);
        spec.spanMs.put(Table.LATEST, Long.MAX_VALUE);
        return spec;
    }

    /**
     * This lifecycle, with reads bounded by {@code maxReadHold}: how long one read (a point read, or a range until its
     * iterator is closed) may keep a raw segment that a seal dropped (docs/storage.md, "What a read sees").
     */
    public SeriesStoreSpec withMaxReadHold(Duration maxReadHold) {
        if (maxReadHold.isNegative() || maxReadHold.isZero()) {
            throw new IllegalArgumentException("the longest a read may hold a dropped segment must be positive, was " + maxReadHold);
        }
        SeriesStoreSpec spec = new SeriesStoreSpec();
        spec.retentionMs.putAll(retentionMs);
        spec.spanMs.putAll(spanMs);
        spec.rawBlockMs = rawBlockMs;
        spec.maxReadHold = maxReadHold;
        return spec;
    }

    /**
     * How long a read may keep a segment that a seal dropped: past it, while the drop waits, the read is revoked and its
     * next use fails (never a short answer). Default {@link #DEFAULT_MAX_READ_HOLD}.
     */
    public Duration maxReadHold() {
        return maxReadHold;
    }

    private void set(Table table, long retention, long span) {
        if (retention < 1 || span < 1) {
            throw new IllegalArgumentException("retention and segment span of " + table.storeName()
                    + " must be positive, were " + retention + " and " + span + " ms");
        }
        retentionMs.put(table, retention);
        spanMs.put(table, span);
    }

    private static long gcd(long a, long b) {
        return b == 0 ? a : gcd(b, a % b);
    }

    /**
     * The time span of one raw block (one row of the raw table per series and span: docs/storage.md, "Blocks"):
     * {@value #RAW_BLOCK_MS} ms, or the greatest common divisor of it and the raw segment's span, so that a block
     * always lies in one segment.
     */
    public long rawBlockMs() {
        return rawBlockMs;
    }

    public long retentionMs(Table table) {
        return retentionMs.get(table);
    }

    public long spanMs(Table table) {
        return spanMs.get(table);
    }

    /** The segment of a row of {@code table} at {@code epochMillis}. */
    long segmentOf(Table table, long epochMillis) {
        return table.timeKeyed() ? Math.floorDiv(epochMillis, spanMs(table)) : 0;
    }
}
