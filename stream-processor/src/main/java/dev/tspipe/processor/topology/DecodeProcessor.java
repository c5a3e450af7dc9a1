package dev.tspipe.processor.topology;

import dev.tspipe.model.keys.DevicePartitioner;
import dev.tspipe.schemas.serde.RegistryUnavailableSerializationException;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.streams.errors.StreamsException;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Decodes a record's Avro value and validates it, before anything is stored. Rejections leave
 * with the error headers of {@link DeadLetters}; accepted readings leave with their row key and
 * their {@link Routed.Placement}. A record that is not where its device's rows live (another key,
 * or another partition than {@link DevicePartitioner} gives its key) also gets its source
 * coordinates and original key as headers, so that they survive the repartition topic.
 *
 * <p>A batch of readings ({@link BatchVerdict}) is placed by its device as a whole, and re-routed whole; in its place,
 * each of its readings is stored or rejected as it would be alone, in the batch's order.
 *
 * <p>An accepted reading in its place is stored right here, by the {@link IngestStep} of this node, which the series
 * store's tables are connected to; its rejections (expired, future) leave through their own child.
 *
 * <p>A schema registry that cannot be reached is not the record's fault: the record waits for it,
 * within the task, for up to {@code tspipe.registry.retry.ms}; after that the stream thread fails and
 * is replaced ({@link StreamThreadReplacement}), so the record is read again, never skipped.
 */
final class DecodeProcessor implements Processor<byte[], byte[], byte[], Routed> {

    static final String STAGE = "decode";
    private static final long FIRST_RETRY_PAUSE_MS = 50;
    private static final long LONGEST_RETRY_PAUSE_MS = 1_000;

    private final PipelineConfig config;
    /** Whether records are checked against the partition of their key (the input topic); records of the repartition topic are placed by it. */
    private final boolean checkPartition;
    private final Children children;
    private ProcessorContext<byte[], Routed> context;
    private ReadingDecoder decoder;
    private PipelineMetrics metrics;
    private MisplacedRecords misplaced;
    private IngestStep ingest;

    /**
     * The names of the child nodes a record is forwarded to: rejected by decoding, to re-route by device (null: none,
     * a misplaced record is stored here anyway), rejected by the ingest step.
     */
    record Children(String rejected, String elsewhere, String ingestRejected) {
    }

    DecodeProcessor(PipelineConfig config, boolean checkPartition, Children children) {
        this.config = config;
        this.children = children;
        this.checkPartition = checkPartition && config.readingsPartitions() > 0;
    }

    @Override
    public void init(ProcessorContext<byte[], Routed> context) {
        this.context = context;
        this.metrics = new PipelineMetrics(context.metrics());
        this.misplaced = new MisplacedRecords(metrics);
        this.decoder = new ReadingDecoder(config);
        this.ingest = new IngestStep(config, context, metrics, children.ingestRejected());
    }

    @Override
    public void process(Record<byte[], byte[]> record) {
        byte[] value = record.value();
        DeadLetters.Source here = DeadLetters.here(context, config.readingsTopic());
        ReadingValidator.Verdict verdict = verdictOn(value, here.topic());
        if (verdict instanceof ReadingValidator.Rejected rejected) {
            byte[] originalKey = DeadLetters.originalKey(record.headers(), record.key(), here);
            Headers headers = DeadLetters.annotate(record.headers(), rejected.reason(), rejected.message(), STAGE,
                    DeadLetters.sourceOf(record.headers(), here));
            metrics.deadLetter(rejected.reason());
            context.forward(new Record<>(originalKey, Routed.rejected(rejected, originalKey, value),
                    record.timestamp(), headers), children.rejected());
            return;
        }
        String distributionKey = verdict instanceof BatchVerdict batch ? batch.distributionKey()
                : ((ReadingValidator.Accepted) verdict).reading().series().distributionKey();
        // Most records are keyed by their device already: then the key is the device's bytes, no encoding needed.
        byte[] deviceKey = isUtf8Of(record.key(), distributionKey) ? record.key() : distributionKey.getBytes(StandardCharsets.UTF_8);
        Routed.Placement placement = placement(record.key(), deviceKey, here);
        if (placement != Routed.Placement.HERE) {
            misplaced.rerouted(placement, here, distributionKey);
            DeadLetters.carrySource(record.headers(), here, record.key());
            if (children.elsewhere() != null) {
                context.forward(record.withValue(new Routed(verdict, record.key(), value, deviceKey, placement)), children.elsewhere());
                return;
            }
        }
        if (verdict instanceof BatchVerdict batch) {
            ingestBatch(record, batch, here);
        } else {
            ingest.ingest(record, (ReadingValidator.Accepted) verdict, null, -1);
        }
    }

    /**
     * Stores each accepted reading of a batch in its place, as it would be alone, and sends each rejected one to the
     * dead-letter child as its own dead letter: the reading alone as its value, its index in a header.
     */
    private void ingestBatch(Record<byte[], byte[]> record, BatchVerdict batch, DeadLetters.Source here) {
        metrics.batch(batch.size());
        if (batch.runs() != null) {
            // Every reading accepted: stored a series entry at a time.
            for (BatchVerdict.Run run : batch.runs()) {
                ingest.ingestRun(record, batch, run);
            }
            return;
        }
        for (int i = 0; i < batch.size(); i++) {
            ReadingValidator.Verdict verdict = batch.reading(i);
            if (verdict instanceof ReadingValidator.Accepted accepted) {
                ingest.ingest(record, accepted, batch, i);
            } else {
                ReadingValidator.Rejected rejected = (ReadingValidator.Rejected) verdict;
                byte[] originalKey = DeadLetters.originalKey(record.headers(), record.key(), here);
                Headers headers = DeadLetters.annotate(record.headers(), rejected.reason(), rejected.message(), STAGE,
                        DeadLetters.sourceOf(record.headers(), here), i);
                metrics.deadLetter(rejected.reason());
                context.forward(new Record<>(originalKey, Routed.rejected(rejected, originalKey, batch.deadLetterValue(i)),
                        record.timestamp(), headers), children.rejected());
            }
        }
    }

    /** Whether {@code bytes} are the UTF-8 encoding of {@code text}, without encoding it (ASCII compared in place). */
    static boolean isUtf8Of(byte[] bytes, String text) {
        if (bytes == null || bytes.length < text.length()) {
            return false;
        }
        if (bytes.length == text.length()) {
            for (int i = 0; i < bytes.length; i++) {
                char c = text.charAt(i);
                if (c >= 0x80 || bytes[i] != (byte) c) {
                    return c >= 0x80 && Arrays.equals(bytes, text.getBytes(StandardCharsets.UTF_8));
                }
            }
            return true;
        }
        return Arrays.equals(bytes, text.getBytes(StandardCharsets.UTF_8));
    }

    private Routed.Placement placement(byte[] key, byte[] deviceKey, DeadLetters.Source here) {
        if (!Arrays.equals(key, deviceKey)) {
            return Routed.Placement.OTHER_KEY;
        }
        if (checkPartition && here.partition() >= 0
                && here.partition() != DevicePartitioner.partitionOf(deviceKey, config.readingsPartitions())) {
            return Routed.Placement.OTHER_PARTITION;
        }
        return Routed.Placement.HERE;
    }

    private ReadingValidator.Verdict verdictOn(byte[] value, String topic) {
        if (value == null) {
            return new ReadingValidator.Rejected(RejectReason.UNDECODABLE, "the record has no value (a tombstone is not a reading)");
        }
        if (value.length > config.maxValueBytes()) {
            return new ReadingValidator.Rejected(RejectReason.TOO_LARGE, "the record value is " + value.length
                    + " bytes, over the limit of " + config.maxValueBytes());
        }
        return decodeWaitingForRegistry(value, topic);
    }

    /**
     * Decodes {@code value}; while the registry cannot be reached, waits and tries again, up to
     * {@code tspipe.registry.retry.ms} (short enough that the task's open transaction does not time out).
     */
    private ReadingValidator.Verdict decodeWaitingForRegistry(byte[] value, String topic) {
        long deadline = System.nanoTime() + config.registryRetryMs() * 1_000_000;
        long pause = FIRST_RETRY_PAUSE_MS;
        while (true) {
            try {
                return decoder.verdict(topic, value);
            } catch (RegistryUnavailableSerializationException e) {
                long left = (deadline - System.nanoTime()) / 1_000_000;
                if (left <= 0) {
                    // Not the record's fault: fail the stream thread, which is replaced after a pause; the record
                    // is read again from the last commit, never skipped.
                    throw new StreamsException("the schema registry is unreachable (" + e.getMessage() + "), waited "
                            + config.registryRetryMs() + " ms; the stream thread is replaced and reads the record again", e);
                }
                sleep(Math.min(pause, left));
                pause = Math.min(pause * 2, LONGEST_RETRY_PAUSE_MS);
            }
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new StreamsException("interrupted while waiting for the schema registry", e);
        }
    }

    @Override
    public void close() {
        if (decoder != null) {
            decoder.close();
        }
    }
}
