package dev.tspipe.processor.topology;

import dev.tspipe.processor.store.StreamsInternals;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.streams.processor.api.RecordMetadata;

import java.nio.charset.StandardCharsets;
import java.util.Optional;

/**
 * The headers of a dead-letter record (docs/design.md §3). The record keeps the original key and value
 * bytes unchanged and the original headers; these are added.
 *
 * <table>
 *   <caption>Headers (UTF-8 text)</caption>
 *   <tr><td>{@code tspipe.error.reason}</td><td>a {@link RejectReason} code, e.g. {@code expired}</td></tr>
 *   <tr><td>{@code tspipe.error.message}</td><td>what was wrong, for a person</td></tr>
 *   <tr><td>{@code tspipe.error.stage}</td><td>{@code decode}, {@code ingest}, {@code deserialize} or {@code process}</td></tr>
 *   <tr><td>{@code tspipe.source.topic}, {@code .partition}, {@code .offset}</td><td>where the record was read from</td></tr>
 *   <tr><td>{@code tspipe.batch.index}</td><td>for one reading of a batch: its index in the batch (from 0); the value is
 *   then that reading alone, a batch of one in the batch's schema</td></tr>
 * </table>
 */
public final class DeadLetters {

    public static final String REASON = "tspipe.error.reason";
    public static final String MESSAGE = "tspipe.error.message";
    public static final String STAGE = "tspipe.error.stage";
    public static final String SOURCE_TOPIC = "tspipe.source.topic";
    public static final String SOURCE_PARTITION = "tspipe.source.partition";
    public static final String SOURCE_OFFSET = "tspipe.source.offset";
    /** On the dead letter of one reading of a batch: the reading's index in the batch, from 0. */
    public static final String BATCH_INDEX = "tspipe.batch.index";
    /** Carried through the repartition topic: the key the record had when it arrived. */
    public static final String SOURCE_KEY = "tspipe.source.key";

    private DeadLetters() {
    }

    /** Where a record came from, kept across the repartition topic. */
    public record Source(String topic, int partition, long offset) {
    }

    /**
     * Adds the error headers and the record's source to {@code headers} (which already hold the
     * original ones). {@code tspipe.error.*} and {@code tspipe.source.topic/partition/offset} are
     * tspipe's own: values a producer put there are replaced. A source without a topic (no record
     * context) writes no source headers.
     */
    public static Headers annotate(Headers headers, RejectReason reason, String message, String stage, Source source) {
        return annotate(headers, reason, message, stage, source, -1);
    }

    /** As {@link #annotate(Headers, RejectReason, String, String, Source)}, for reading {@code batchIndex} of a batch (-1: a record). */
    public static Headers annotate(Headers headers, RejectReason reason, String message, String stage, Source source, int batchIndex) {
        Headers annotated = StreamsInternals.mutableCopy(headers);
        annotated.remove(REASON).remove(MESSAGE).remove(STAGE).remove(BATCH_INDEX);
        if (batchIndex >= 0) {
            annotated.add(BATCH_INDEX, utf8(Integer.toString(batchIndex)));
        }
        annotated.add(REASON, utf8(reason.code()));
        annotated.add(MESSAGE, utf8(String.valueOf(message)));
        annotated.add(STAGE, utf8(stage));
        if (source.topic() != null) {
            annotated.remove(SOURCE_TOPIC).remove(SOURCE_PARTITION).remove(SOURCE_OFFSET);
            annotated.add(SOURCE_TOPIC, utf8(source.topic()));
            annotated.add(SOURCE_PARTITION, utf8(Integer.toString(source.partition())));
            annotated.add(SOURCE_OFFSET, utf8(Long.toString(source.offset())));
        }
        return annotated;
    }

    /**
     * Where a record was first read. Only a record read from tspipe's own repartition topic carries
     * its source in headers (written by {@link #carrySource}); on any other record the
     * {@code tspipe.source.*} headers came from its producer (a dead letter sent back, say) and
     * say nothing about this record, so the answer is {@code here}. Carried headers that are
     * missing or not numbers also give {@code here}: this never throws.
     */
    public static Source sourceOf(Headers headers, Source here) {
        if (!readFromRepartition(here)) {
            return here;
        }
        String topic = text(headers, SOURCE_TOPIC);
        String partition = text(headers, SOURCE_PARTITION);
        String offset = text(headers, SOURCE_OFFSET);
        if (topic == null || topic.isEmpty() || partition == null || offset == null) {
            return here;
        }
        try {
            return new Source(topic, Integer.parseInt(partition), Long.parseLong(offset));
        } catch (NumberFormatException notANumber) {
            return here;
        }
    }

    /**
     * Before a record is sent through the repartition topic: writes where it was read, and its
     * key, as headers (replacing any a producer set), so that a later rejection names them.
     */
    static void carrySource(Headers headers, Source here, byte[] key) {
        if (readFromRepartition(here)) {
            return;
        }
        headers.remove(SOURCE_TOPIC).remove(SOURCE_PARTITION).remove(SOURCE_OFFSET).remove(SOURCE_KEY);
        headers.add(SOURCE_TOPIC, utf8(here.topic()));
        headers.add(SOURCE_PARTITION, utf8(Integer.toString(here.partition())));
        headers.add(SOURCE_OFFSET, utf8(Long.toString(here.offset())));
        if (key != null) {
            headers.add(SOURCE_KEY, key);
        }
    }

    /** Where the record being processed was read from; {@code fallbackTopic} when there is no record context. */
    static Source here(org.apache.kafka.streams.processor.api.ProcessorContext<?, ?> context, String fallbackTopic) {
        Optional<RecordMetadata> metadata = context.recordMetadata();
        if (metadata.isEmpty()) {
            return new Source(fallbackTopic, -1, -1);
        }
        RecordMetadata m = metadata.get();
        return new Source(m.topic(), m.partition(), m.offset());
    }

    /**
     * The key the record had when it arrived: {@code key}, or for a record read from the
     * repartition topic the key carried in {@link #SOURCE_KEY} (none when it arrived without a key).
     */
    static byte[] originalKey(Headers headers, byte[] key, Source here) {
        if (!readFromRepartition(here)) {
            return key;
        }
        var sourceKey = headers.lastHeader(SOURCE_KEY);
        return sourceKey == null ? null : sourceKey.value();
    }

    /** Whether {@code here} is tspipe's repartition topic ({@code <application.id>-readings-by-device-repartition}). */
    private static boolean readFromRepartition(Source here) {
        return here.topic() != null && here.topic().endsWith("-" + Topics.BY_DEVICE_REPARTITION + "-repartition");
    }

    public static String text(Headers headers, String name) {
        var header = headers.lastHeader(name);
        return header == null || header.value() == null ? null : new String(header.value(), StandardCharsets.UTF_8);
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
