package dev.tspipe.processor.topology;

import dev.tspipe.model.keys.RowKey;
import dev.tspipe.processor.store.SeriesStore;
import dev.tspipe.processor.store.StoreNames;
import dev.tspipe.processor.store.TableStore;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;

import java.time.Duration;
import java.time.Instant;

/**
 * Stores one valid reading in the task's {@link SeriesStore}, which turns it into everything it changes
 * (the raw row, the counters of its 1m/1h/1d buckets, the series' latest reading) and writes all of it
 * in the task's transaction (docs/design.md §1 rule 11, docs/storage.md).
 *
 * <p>Re-ingestion is idempotent (docs/design.md §5): the same reading again changes nothing; the same
 * series and timestamp with another value replaces the row and corrects the counters of its buckets.
 *
 * <p>Readings older than the raw lifecycle, or further ahead than the margin, measured from the
 * task's stream time (the largest reading timestamp stored, which the series store owns), leave for
 * the dead-letter topic.
 *
 * <p>Not a node of its own: the decode step that accepted a reading calls it (a node per step cost Kafka
 * Streams' per-record forwarding twice more per reading; docs/architecture.md).
 */
final class IngestStep {

    static final String STAGE = "ingest";

    private final PipelineConfig config;
    private final ProcessorContext<byte[], Routed> context;
    private final PipelineMetrics metrics;
    private final String rejectedChild;
    private final SeriesStore store;

    /** The step of the processor of {@code context}, to which the series store's tables are connected. */
    IngestStep(PipelineConfig config, ProcessorContext<byte[], Routed> context, PipelineMetrics metrics, String rejectedChild) {
        this.config = config;
        this.context = context;
        this.metrics = metrics;
        this.rejectedChild = rejectedChild;
        // The five tables are one series store: any of them leads to it.
        this.store = TableStore.seriesStoreOf(context.getStateStore(StoreNames.RAW));
        store.beforeEachFlush(metrics::publish);
    }

    /**
     * Stores {@code accepted}, read as {@code record} (alone, or as reading {@code index} of {@code batch}), or sends it
     * to the dead-letter child with its reason: the record, or for a reading of a batch that reading alone.
     */
    void ingest(Record<byte[], byte[]> record, ReadingValidator.Accepted accepted, BatchVerdict batch, int index) {
        ValidReading reading = accepted.reading();
        long timestamp = reading.epochMillis();
        if (!withinStreamTime(record, batch, index, timestamp)) {
            return;
        }
        byte[] rowKey = accepted.rowKey();
        if (config.keyspaceActivity()) {
            // Every write counts in the key-space heatmap, a duplicate too: it is load on its key range all the same.
            store.keyspace().written(rowKey, rowKey.length + reading.row().length, context.currentSystemTimeMs());
        }
        counted(store.ingest(rowKey, timestamp, reading.row(), reading.value()), record, batch, index, timestamp);
    }

    /**
     * Stores the readings of {@code run} of {@code batch}, each exactly as {@link #ingest} stores it alone (the same
     * checks against stream time, which each reading stored moves, the same outcomes and dead letters), with what
     * belongs to the series once: its lookup in the store, its row template, its key-space count.
     */
    void ingestRun(Record<byte[], byte[]> record, BatchVerdict batch, BatchVerdict.Run run) {
        byte[] prefix = run.seriesPrefix();
        byte[] row = run.rowTemplate().clone();
        long written = 0;
        for (int i = run.from(); i < run.to(); i++) {
            long timestamp = batch.timestamp(i);
            if (!withinStreamTime(record, batch, i, timestamp)) {
                continue;
            }
            written++;
            double value = batch.value(i);
            BatchVerdict.putValue(row, value);
            counted(store.ingestInSeries(prefix, timestamp, row, value), record, batch, i, timestamp);
        }
        if (config.keyspaceActivity() && written > 0) {
            long rowBytes = prefix.length + RowKey.TIMESTAMP_DIGITS + row.length;
            store.keyspace().writtenInSeries(prefix, written, written * rowBytes, context.currentSystemTimeMs());
        }
    }

    /** Whether a reading at {@code timestamp} is within the raw lifecycle and the future margin; if not, it is sent away. */
    private boolean withinStreamTime(Record<byte[], byte[]> record, BatchVerdict batch, int index, long timestamp) {
        long now = store.streamTimeOrMin();
        if (now == Long.MIN_VALUE) {
            return true;
        }
        if (timestamp < now - config.rawRetentionMs()) {
            reject(record, batch, index, RejectReason.EXPIRED, "reading at " + Instant.ofEpochMilli(timestamp)
                    + " is older than the raw lifecycle (" + Duration.ofMillis(config.rawRetentionMs())
                    + ") before stream time " + Instant.ofEpochMilli(now));
            return false;
        }
        if (timestamp > now + config.futureMarginMs()) {
            reject(record, batch, index, RejectReason.FUTURE, "reading at " + Instant.ofEpochMilli(timestamp)
                    + " is more than " + Duration.ofMillis(config.futureMarginMs()) + " ahead of stream time "
                    + Instant.ofEpochMilli(now));
            return false;
        }
        return true;
    }

    private void counted(SeriesStore.Outcome outcome, Record<byte[], byte[]> record, BatchVerdict batch, int index, long timestamp) {
        switch (outcome) {
            case DUPLICATE -> metrics.duplicate();
            case SEALED -> reject(record, batch, index, RejectReason.EXPIRED, "reading at " + Instant.ofEpochMilli(timestamp)
                    + " is before " + Instant.ofEpochMilli(store.sealedBefore().getAsLong())
                    + ", up to which this task's raw readings are sealed into the rollup tables");
            case STORED -> metrics.stored();
            case CORRECTED -> {
                metrics.stored();
                metrics.corrected();
            }
        }
    }

    private void reject(Record<byte[], byte[]> record, BatchVerdict batch, int index, RejectReason reason, String message) {
        DeadLetters.Source here = DeadLetters.here(context, config.readingsTopic());
        String said = batch == null ? message : "reading " + index + " of the batch: " + message;
        Headers headers = DeadLetters.annotate(record.headers(), reason, said, STAGE, DeadLetters.sourceOf(record.headers(), here), index);
        metrics.deadLetter(reason);
        byte[] originalKey = DeadLetters.originalKey(record.headers(), record.key(), here);
        byte[] value = batch == null ? record.value() : batch.deadLetterValue(index);
        context.forward(new Record<>(originalKey, Routed.rejected(new ReadingValidator.Rejected(reason, said), originalKey,
                value), record.timestamp(), headers), rejectedChild);
    }
}
