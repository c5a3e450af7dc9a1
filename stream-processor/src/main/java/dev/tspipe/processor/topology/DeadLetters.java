package dev.tspipe.processor.topology;

import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;

import java.nio.charset.StandardCharsets;

/**
 * The headers of a dead-letter record (DESIGN §3). The record keeps the original key and value
 * bytes unchanged and the original headers; these are added.
 *
 * <table>
 *   <caption>Headers (UTF-8 text)</caption>
 *   <tr><td>{@code tspipe.error.reason}</td><td>a {@link RejectReason} code, e.g. {@code expired}</td></tr>
 *   <tr><td>{@code tspipe.error.message}</td><td>what was wrong, for a person</td></tr>
 *   <tr><td>{@code tspipe.error.stage}</td><td>{@code decode}, {@code ingest}, {@code deserialize} or {@code process}</td></tr>
 *   <tr><td>{@code tspipe.source.topic}, {@code .partition}, {@code .offset}</td><td>where the record was read from</td></tr>
 * </table>
 */
public final class DeadLetters {

    public static final String REASON = "tspipe.error.reason";
    public static final String MESSAGE = "tspipe.error.message";
    public static final String STAGE = "tspipe.error.stage";
    public static final String SOURCE_TOPIC = "tspipe.source.topic";
    public static final String SOURCE_PARTITION = "tspipe.source.partition";
    public static final String SOURCE_OFFSET = "tspipe.source.offset";
    /** Carried through the repartition topic: the key the record had when it arrived. */
    public static final String SOURCE_KEY = "tspipe.source.key";

    private DeadLetters() {
    }

    /** Where a record came from, kept across the repartition topic. */
    public record Source(String topic, int partition, long offset) {
    }

    /** Adds the error headers to {@code headers} (which already hold the original ones). */
    public static Headers annotate(Headers headers, RejectReason reason, String message, String stage, Source source) {
        RecordHeaders annotated = new RecordHeaders(headers.toArray());
        annotated.remove(REASON).remove(MESSAGE).remove(STAGE);
        annotated.add(REASON, utf8(reason.code()));
        annotated.add(MESSAGE, utf8(message));
        annotated.add(STAGE, utf8(stage));
        if (headers.lastHeader(SOURCE_TOPIC) == null) {
            annotated.add(SOURCE_TOPIC, utf8(source.topic()));
            annotated.add(SOURCE_PARTITION, utf8(Integer.toString(source.partition())));
            annotated.add(SOURCE_OFFSET, utf8(Long.toString(source.offset())));
        }
        return annotated;
    }

    /** The source recorded in the headers (after a repartition), or {@code fallback}. */
    public static Source sourceOf(Headers headers, Source fallback) {
        if (headers.lastHeader(SOURCE_TOPIC) == null) {
            return fallback;
        }
        return new Source(text(headers, SOURCE_TOPIC), Integer.parseInt(text(headers, SOURCE_PARTITION)),
                Long.parseLong(text(headers, SOURCE_OFFSET)));
    }

    /** Where the record being processed was read from; {@code fallbackTopic} when there is no record context. */
    static Source here(org.apache.kafka.streams.processor.api.ProcessorContext<?, ?> context, String fallbackTopic) {
        return context.recordMetadata()
                .map(m -> new Source(m.topic(), m.partition(), m.offset()))
                .orElse(new Source(fallbackTopic, -1, -1));
    }

    /**
     * The key the record had when it arrived: {@code key}, or for a record that came through the
     * repartition topic the key carried in {@link #SOURCE_KEY} (none when it arrived without a key).
     */
    static byte[] originalKey(Headers headers, byte[] key) {
        if (headers.lastHeader(SOURCE_TOPIC) == null) {
            return key;
        }
        var sourceKey = headers.lastHeader(SOURCE_KEY);
        return sourceKey == null ? null : sourceKey.value();
    }

    public static String text(Headers headers, String name) {
        var header = headers.lastHeader(name);
        return header == null || header.value() == null ? null : new String(header.value(), StandardCharsets.UTF_8);
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
