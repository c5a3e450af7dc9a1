package dev.tspipe.processor.topology;

import dev.tspipe.processor.store.StreamsInternals;
import dev.tspipe.schemas.serde.RegistryUnavailableSerializationException;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.errors.DeserializationExceptionHandler;
import org.apache.kafka.streams.errors.ErrorHandlerContext;
import org.apache.kafka.streams.errors.ProcessingExceptionHandler;
import org.apache.kafka.streams.processor.api.Record;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;
import java.util.Map;

/**
 * Kafka Streams' exception handlers, set so that nothing bypasses the dead-letter topic: they
 * build on Kafka Streams' own dead-letter support (KIP-1034: records returned with
 * {@code Response.resume(...)} are written in the task's transaction) and add tspipe's headers.
 * The topology itself validates every record; these catch what it could not foresee.
 */
public final class DeadLetterHandlers {

    private static final Logger log = LoggerFactory.getLogger(DeadLetterHandlers.class);

    private DeadLetterHandlers() {
    }

    private static String dlqTopic(Map<String, ?> configs) {
        Object topic = configs.get(StreamsConfig.ERRORS_DEAD_LETTER_QUEUE_TOPIC_NAME_CONFIG);
        if (topic == null) {
            topic = configs.get(PipelineConfig.DLQ_TOPIC);
        }
        return topic == null ? Topics.READINGS_DLQ : topic.toString();
    }

    private static ProducerRecord<byte[], byte[]> deadLetter(String dlqTopic, ErrorHandlerContext context, byte[] key,
                                                             byte[] value, RejectReason reason, String stage, Exception exception) {
        Headers original = context.headers() == null ? StreamsInternals.mutableCopy(null) : context.headers();
        DeadLetters.Source here = new DeadLetters.Source(context.topic(), context.partition(), context.offset());
        Headers headers = DeadLetters.annotate(original, reason, String.valueOf(exception), stage,
                DeadLetters.sourceOf(original, here));
        // A producer record refuses a negative timestamp; the broker then stamps the dead letter itself.
        Long timestamp = context.timestamp() < 0 ? null : context.timestamp();
        return new ProducerRecord<>(dlqTopic, null, timestamp, DeadLetters.originalKey(original, key, here), value, headers);
    }

    /** Undecodable source records (the topology reads bytes, so this is a safety net). */
    public static final class Deserialization implements DeserializationExceptionHandler {
        private String dlqTopic = Topics.READINGS_DLQ;

        @Override
        public void configure(Map<String, ?> configs) {
            dlqTopic = dlqTopic(configs);
        }

        @Override
        public Response handleError(ErrorHandlerContext context, ConsumerRecord<byte[], byte[]> record, Exception exception) {
            log.warn("Undecodable record of task {} at {}-{} offset {} sent to {}: {}", context.taskId(), context.topic(),
                    context.partition(), context.offset(), dlqTopic, exception.toString());
            return Response.resume(List.of(deadLetter(dlqTopic, context, record.key(), record.value(),
                    RejectReason.UNDECODABLE, "deserialize", exception)));
        }
    }

    /**
     * Unexpected failures inside a processor: the source record goes to the dead-letter topic
     * (reason {@code processing-error}) so that it can be replayed after a fix, and processing
     * continues. A failure that is not the record's fault (the schema registry unreachable) stops
     * the task instead, so that the record is retried and not lost.
     */
    public static final class Processing implements ProcessingExceptionHandler {
        private String dlqTopic = Topics.READINGS_DLQ;

        @Override
        public void configure(Map<String, ?> configs) {
            dlqTopic = dlqTopic(configs);
        }

        @Override
        public Response handleError(ErrorHandlerContext context, Record<?, ?> record, Exception exception) {
            for (Throwable cause = exception; cause != null; cause = cause.getCause()) {
                if (cause instanceof RegistryUnavailableSerializationException) {
                    log.error("Task {} stops at {}-{} offset {}: {}", context.taskId(), context.topic(),
                            context.partition(), context.offset(), cause.getMessage());
                    return Response.fail();
                }
            }
            log.error("Processing failed in {} of task {} at {}-{} offset {}; record sent to {}", context.processorNodeId(),
                    context.taskId(), context.topic(), context.partition(), context.offset(), dlqTopic, exception);
            return Response.resume(List.of(deadLetter(dlqTopic, context, context.sourceRawKey(), context.sourceRawValue(),
                    RejectReason.PROCESSING_ERROR, "process", exception)));
        }
    }
}
