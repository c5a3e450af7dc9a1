package dev.tspipe.processor.topology;

import dev.tspipe.processor.keys.KeyRange;
import dev.tspipe.processor.keys.RowKey;
import dev.tspipe.processor.rows.LatestReading;
import dev.tspipe.processor.rows.RawRow;
import dev.tspipe.processor.rows.Rollup;
import dev.tspipe.processor.store.LifecycleKeyValueStore;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.Map;

/**
 * Stores one valid reading: everything it changes lives in this task's stores and is written in
 * the task's transaction (docs/design.md §1 rule 11): the raw row, the counters of its 1m/1h/1d buckets,
 * and the series' latest reading.
 *
 * <p>Re-ingestion is idempotent (docs/design.md §5): the same reading again changes nothing; the same
 * series and timestamp with another value replaces the row and corrects the counters of its
 * buckets, recomputing a bucket from its raw rows when the replaced value was its min or max.
 *
 * <p>Readings older than the raw lifecycle, or further ahead than the margin, measured from the
 * task's stream time (the largest reading timestamp seen), leave for the dead-letter topic.
 */
final class IngestProcessor implements Processor<byte[], Routed, byte[], byte[]> {

    static final String STAGE = "ingest";
    private static final long NO_STREAM_TIME = Long.MIN_VALUE;
    /** Rows remembered per store and task (about 200 bytes each): enough for the series of a busy task. */
    static final int RECENT_WRITES_PER_STORE = 4_096;

    private final PipelineConfig config;
    private ProcessorContext<byte[], byte[]> context;
    private KeyValueStore<Bytes, byte[]> raw;
    private KeyValueStore<Bytes, byte[]> latest;
    private final Map<RollupStep, KeyValueStore<Bytes, byte[]>> rollups = new EnumMap<>(RollupStep.class);
    private final Map<RollupStep, RecentWrites> recentRollups = new EnumMap<>(RollupStep.class);
    private RecentWrites recentLatest;
    private long streamTime = NO_STREAM_TIME;
    private PipelineMetrics metrics;

    IngestProcessor(PipelineConfig config) {
        this.config = config;
    }

    @Override
    public void init(ProcessorContext<byte[], byte[]> context) {
        this.context = context;
        this.metrics = new PipelineMetrics(context.metrics());
        raw = context.getStateStore(StoreNames.RAW);
        latest = context.getStateStore(StoreNames.LATEST);
        for (RollupStep step : RollupStep.values()) {
            rollups.put(step, context.getStateStore(StoreNames.rollup(step)));
            recentRollups.put(step, new RecentWrites(RECENT_WRITES_PER_STORE));
        }
        recentLatest = new RecentWrites(RECENT_WRITES_PER_STORE);
        // Every accepted reading writes its raw row, so the largest raw row timestamp is stream time; the raw
        // store keeps it across restarts and restores, and this processor keeps it current from there.
        streamTime = LifecycleKeyValueStore.streamTimeOf(raw).orElse(NO_STREAM_TIME);
    }

    @Override
    public void process(Record<byte[], Routed> record) {
        ReadingValidator.Accepted accepted = record.value().accepted();
        ValidReading reading = accepted.reading();
        long timestamp = reading.epochMillis();
        if (streamTime != NO_STREAM_TIME) {
            if (timestamp < streamTime - config.rawRetentionMs()) {
                reject(record, RejectReason.EXPIRED, "reading at " + Instant.ofEpochMilli(timestamp)
                        + " is older than the raw lifecycle (" + Duration.ofMillis(config.rawRetentionMs())
                        + ") before stream time " + Instant.ofEpochMilli(streamTime));
                return;
            }
            if (timestamp > streamTime + config.futureMarginMs()) {
                reject(record, RejectReason.FUTURE, "reading at " + Instant.ofEpochMilli(timestamp)
                        + " is more than " + Duration.ofMillis(config.futureMarginMs()) + " ahead of stream time "
                        + Instant.ofEpochMilli(streamTime));
                return;
            }
        }
        streamTime = Math.max(streamTime, timestamp);
        store(accepted.rowKey(), reading);
    }

    private void store(byte[] rowKey, ValidReading reading) {
        Bytes key = Bytes.wrap(rowKey);
        byte[] newRow = reading.row().toBytes();
        byte[] oldBytes = raw.get(key);
        if (oldBytes != null && Arrays.equals(oldBytes, newRow)) {
            metrics.duplicate();
            return;
        }
        raw.put(key, newRow);
        metrics.stored();
        if (oldBytes != null) {
            metrics.corrected();
        }
        RawRow old = oldBytes == null ? null : RawRow.fromBytes(oldBytes);
        byte[] seriesPrefix = RowKey.seriesPrefixOf(rowKey);
        for (RollupStep step : RollupStep.values()) {
            updateRollup(step, seriesPrefix, reading, old);
        }
        updateLatest(seriesPrefix, reading);
    }

    private void updateRollup(RollupStep step, byte[] seriesPrefix, ValidReading reading, RawRow old) {
        KeyValueStore<Bytes, byte[]> store = rollups.get(step);
        RecentWrites recent = recentRollups.get(step);
        long bucketStart = step.bucketStart(reading.epochMillis());
        Bytes key = Bytes.wrap(RowKey.withTimestamp(seriesPrefix, bucketStart));
        byte[] current = recent.get(key);
        if (current == null) {
            current = store.get(key);
        }
        Rollup updated;
        if (current == null) {
            updated = Rollup.of(reading.value(), reading.epochMillis());
        } else {
            Rollup bucket = Rollup.fromBytes(current);
            if (old == null) {
                updated = bucket.add(reading.value(), reading.epochMillis());
            } else if (bucket.extremeIs(old.value()) && bucketStart >= streamTime - config.rawRetentionMs()) {
                updated = recompute(reading, bucketStart, step);
            } else {
                // The bucket reaches past the raw lifecycle: its raw rows are partly gone, so adjust in place.
                updated = bucket.replace(old.value(), reading.value(), reading.epochMillis());
            }
        }
        byte[] bytes = updated.toBytes();
        store.put(key, bytes);
        recent.wrote(key, bytes);
    }

    /** The bucket from its raw rows (the new value is already written): exact min and max again. */
    private Rollup recompute(ValidReading reading, long bucketStart, RollupStep step) {
        KeyRange range = RowKey.seriesRange(config.keyLayout(), reading.series(), bucketStart, bucketStart + step.sizeMillis());
        Rollup bucket = null;
        try (KeyValueIterator<Bytes, byte[]> rows = raw.range(Bytes.wrap(range.from()), Bytes.wrap(range.toExclusive()))) {
            while (rows.hasNext()) {
                var row = rows.next();
                if (!range.contains(row.key.get())) {
                    continue;
                }
                long timestamp = RowKey.timestampOf(row.key.get());
                double value = RawRow.fromBytes(row.value).value();
                bucket = bucket == null ? Rollup.of(value, timestamp) : bucket.add(value, timestamp);
            }
        }
        return bucket == null ? Rollup.of(reading.value(), reading.epochMillis()) : bucket;
    }

    private void updateLatest(byte[] seriesPrefix, ValidReading reading) {
        Bytes key = Bytes.wrap(seriesPrefix);
        byte[] current = recentLatest.get(key);
        if (current == null) {
            current = latest.get(key);
        }
        if (current == null || reading.epochMillis() >= ByteBuffer.wrap(current).getLong()) {
            byte[] bytes = new LatestReading(reading.epochMillis(), reading.row()).toBytes();
            latest.put(key, bytes);
            recentLatest.wrote(key, bytes);
        }
    }

    private void reject(Record<byte[], Routed> record, RejectReason reason, String message) {
        DeadLetters.Source here = DeadLetters.here(context, config.readingsTopic());
        Headers headers = DeadLetters.annotate(record.headers(), reason, message, STAGE, DeadLetters.sourceOf(record.headers(), here));
        metrics.deadLetter(reason);
        context.forward(new Record<>(DeadLetters.originalKey(record.headers(), record.value().originalKey(), here),
                record.value().originalValue(), record.timestamp(), headers));
    }
}
