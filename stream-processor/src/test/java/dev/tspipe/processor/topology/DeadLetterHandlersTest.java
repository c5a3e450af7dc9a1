package dev.tspipe.processor.topology;

import dev.tspipe.schemas.serde.RegistryUnavailableSerializationException;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.errors.DeserializationExceptionHandler;
import org.apache.kafka.streams.errors.ErrorHandlerContext;
import org.apache.kafka.streams.errors.ProcessingExceptionHandler;
import org.apache.kafka.streams.errors.StreamsException;
import org.apache.kafka.streams.processor.TaskId;
import org.apache.kafka.streams.processor.api.Record;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/** Kafka Streams' exception handlers of tspipe, called as Kafka Streams calls them, without a topology. */
class DeadLetterHandlersTest {

    private static final byte[] KEY = {'g', 'w', '-', 1};
    private static final byte[] VALUE = {0, 0, 0, 0, 1, (byte) 0xFF, 0x7F};
    private static final long TIMESTAMP = 1_764_504_000_000L;

    /** What Kafka Streams passes to a handler: where the failing record was read, its raw bytes and headers. */
    private record Context(String topic, int partition, long offset, Headers headers, long timestamp,
                           byte[] sourceRawKey, byte[] sourceRawValue) implements ErrorHandlerContext {
        @Override
        public String processorNodeId() {
            return "ingest";
        }

        @Override
        public TaskId taskId() {
            return new TaskId(0, partition);
        }
    }

    private static Headers producerHeaders() {
        return new RecordHeaders().add("trace-id", utf8("abc-123")).add("binary", new byte[] {0, (byte) 0xFE});
    }

    private static Context readingsContext(Headers headers) {
        return new Context("readings", 3, 41L, headers, TIMESTAMP, KEY.clone(), VALUE.clone());
    }

    private static DeadLetterHandlers.Processing processingHandler(Map<String, ?> configs) {
        DeadLetterHandlers.Processing handler = new DeadLetterHandlers.Processing();
        handler.configure(configs);
        return handler;
    }

    @Test
    void anUnexpectedProcessingFailureSendsTheSourceRecordToTheDeadLetterTopicAndResumes() {
        Context context = readingsContext(producerHeaders());

        ProcessingExceptionHandler.Response response = processingHandler(Map.of(PipelineConfig.DLQ_TOPIC, "my-dlq"))
                .handleError(context, new Record<>(utf8("device-1"), "decoded", TIMESTAMP), new IllegalStateException("boom"));

        assertThat(response.result()).isEqualTo(ProcessingExceptionHandler.Result.RESUME);
        ProducerRecord<byte[], byte[]> letter = only(response.deadLetterQueueRecords());
        assertThat(letter.topic()).isEqualTo("my-dlq");
        assertThat(letter.partition()).isNull();
        assertThat(letter.key()).as("the source record's key, not the processor's").isEqualTo(KEY);
        assertThat(letter.value()).isEqualTo(VALUE);
        assertThat(letter.timestamp()).isEqualTo(TIMESTAMP);
        assertThat(headers(letter.headers())).containsExactly(
                "trace-id=abc-123", "binary=00fe",
                "tspipe.error.reason=processing-error",
                "tspipe.error.message=java.lang.IllegalStateException: boom",
                "tspipe.error.stage=process",
                "tspipe.source.topic=readings", "tspipe.source.partition=3", "tspipe.source.offset=41");
    }

    @Test
    void theDeadLetterTopicOfKafkaStreamsWinsOverTspipes() {
        Map<String, String> configs = Map.of(StreamsConfig.ERRORS_DEAD_LETTER_QUEUE_TOPIC_NAME_CONFIG, "streams-dlq",
                PipelineConfig.DLQ_TOPIC, "tspipe-dlq");

        ProcessingExceptionHandler.Response response = processingHandler(configs)
                .handleError(readingsContext(new RecordHeaders()), null, new RuntimeException("x"));

        assertThat(only(response.deadLetterQueueRecords()).topic()).isEqualTo("streams-dlq");
    }

    @Test
    void anUnreachableRegistryFailsTheTaskInsteadOfDeadLetteringAValidRecord() {
        RegistryUnavailableSerializationException unreachable =
                new RegistryUnavailableSerializationException("no registry answered", new java.net.ConnectException());
        Exception wrapped = new StreamsException("the schema registry is unreachable; will retry", unreachable);

        ProcessingExceptionHandler.Response response = processingHandler(Map.of())
                .handleError(readingsContext(producerHeaders()), null, wrapped);

        assertThat(response.result()).isEqualTo(ProcessingExceptionHandler.Result.FAIL);
        assertThat(response.deadLetterQueueRecords()).isEmpty();
    }

    @Test
    void aFailureAfterTheRepartitionTopicNamesTheRecordsFirstSourceAndOriginalKey() {
        Headers carried = producerHeaders()
                .add(DeadLetters.SOURCE_TOPIC, utf8("readings"))
                .add(DeadLetters.SOURCE_PARTITION, utf8("5"))
                .add(DeadLetters.SOURCE_OFFSET, utf8("7"))
                .add(DeadLetters.SOURCE_KEY, KEY);
        Context context = new Context("tspipe-readings-by-device-repartition", 1, 2L, carried, TIMESTAMP,
                utf8("device-1"), VALUE.clone());

        ProducerRecord<byte[], byte[]> letter = only(processingHandler(Map.of())
                .handleError(context, null, new ArithmeticException()).deadLetterQueueRecords());

        assertThat(letter.topic()).isEqualTo(Topics.READINGS_DLQ);
        assertThat(letter.key()).isEqualTo(KEY);
        assertThat(DeadLetters.text(letter.headers(), DeadLetters.SOURCE_TOPIC)).isEqualTo("readings");
        assertThat(DeadLetters.text(letter.headers(), DeadLetters.SOURCE_PARTITION)).isEqualTo("5");
        assertThat(DeadLetters.text(letter.headers(), DeadLetters.SOURCE_OFFSET)).isEqualTo("7");
    }

    @Test
    void carriedSourceHeadersThatAreNotNumbersFallBackToWhereTheRecordWasReadInsteadOfThrowing() {
        Headers carried = new RecordHeaders()
                .add(DeadLetters.SOURCE_TOPIC, utf8("readings"))
                .add(DeadLetters.SOURCE_PARTITION, utf8("five"))
                .add(DeadLetters.SOURCE_OFFSET, utf8("7"));
        Context context = new Context("tspipe-readings-by-device-repartition", 1, 2L, carried, TIMESTAMP,
                utf8("device-1"), VALUE.clone());

        ProducerRecord<byte[], byte[]> letter = only(processingHandler(Map.of())
                .handleError(context, null, new ArithmeticException()).deadLetterQueueRecords());

        assertThat(DeadLetters.text(letter.headers(), DeadLetters.SOURCE_TOPIC)).isEqualTo("tspipe-readings-by-device-repartition");
        assertThat(DeadLetters.text(letter.headers(), DeadLetters.SOURCE_PARTITION)).isEqualTo("1");
        assertThat(DeadLetters.text(letter.headers(), DeadLetters.SOURCE_OFFSET)).isEqualTo("2");
    }

    @Test
    void sourceHeadersAProducerSetThatAreNotNumbersAreReplacedByWhereTheRecordWasRead() {
        Headers bogus = producerHeaders()
                .add(DeadLetters.SOURCE_TOPIC, utf8("elsewhere"))
                .add(DeadLetters.SOURCE_PARTITION, utf8("not-a-number"))
                .add(DeadLetters.SOURCE_OFFSET, utf8("9".repeat(30)));

        ProducerRecord<byte[], byte[]> letter = only(processingHandler(Map.of())
                .handleError(readingsContext(bogus), null, new RuntimeException("x")).deadLetterQueueRecords());

        assertThat(letter.key()).isEqualTo(KEY);
        assertThat(letter.headers().headers(DeadLetters.SOURCE_PARTITION)).hasSize(1);
        assertThat(DeadLetters.text(letter.headers(), DeadLetters.SOURCE_TOPIC)).isEqualTo("readings");
        assertThat(DeadLetters.text(letter.headers(), DeadLetters.SOURCE_PARTITION)).isEqualTo("3");
        assertThat(DeadLetters.text(letter.headers(), DeadLetters.SOURCE_OFFSET)).isEqualTo("41");
    }

    @Test
    void anUndecodableSourceRecordGoesToTheDeadLetterTopicWithItsBytesAndHeaders() {
        DeadLetterHandlers.Deserialization handler = new DeadLetterHandlers.Deserialization();
        handler.configure(Map.of(PipelineConfig.DLQ_TOPIC, "my-dlq"));
        Headers headers = producerHeaders();
        ConsumerRecord<byte[], byte[]> record = new ConsumerRecord<>("readings", 3, 41L, TIMESTAMP, TimestampType.CREATE_TIME,
                KEY.length, VALUE.length, KEY.clone(), VALUE.clone(), headers, Optional.empty());

        DeserializationExceptionHandler.Response response = handler.handleError(readingsContext(headers), record,
                new SerializationException("not Avro"));

        assertThat(response.result()).isEqualTo(DeserializationExceptionHandler.Result.RESUME);
        ProducerRecord<byte[], byte[]> letter = only(response.deadLetterQueueRecords());
        assertThat(letter.topic()).isEqualTo("my-dlq");
        assertThat(letter.key()).isEqualTo(KEY);
        assertThat(letter.value()).isEqualTo(VALUE);
        assertThat(headers(letter.headers())).containsExactly(
                "trace-id=abc-123", "binary=00fe",
                "tspipe.error.reason=undecodable",
                "tspipe.error.message=org.apache.kafka.common.errors.SerializationException: not Avro",
                "tspipe.error.stage=deserialize",
                "tspipe.source.topic=readings", "tspipe.source.partition=3", "tspipe.source.offset=41");
    }

    @Test
    void aRecordWithoutHeadersOrKeyOrTimestampStillMakesADeadLetter() {
        Context context = new Context("readings", 0, 0L, null, -1L, null, null);

        ProducerRecord<byte[], byte[]> letter = only(processingHandler(Map.of())
                .handleError(context, null, new NullPointerException()).deadLetterQueueRecords());

        assertThat(letter.key()).isNull();
        assertThat(letter.value()).isNull();
        assertThat(letter.timestamp()).as("left to the broker").isNull();
        assertThat(DeadLetters.text(letter.headers(), DeadLetters.REASON)).isEqualTo("processing-error");
    }

    private static ProducerRecord<byte[], byte[]> only(List<ProducerRecord<byte[], byte[]>> records) {
        assertThat(records).hasSize(1);
        return records.get(0);
    }

    /** Every header in order, as name=value: UTF-8 text for tspipe's and the trace id, hex for the binary one. */
    private static List<String> headers(Headers headers) {
        return Arrays.stream(headers.toArray()).map(DeadLetterHandlersTest::describe).toList();
    }

    private static String describe(Header header) {
        String value = header.key().equals("binary") ? java.util.HexFormat.of().formatHex(header.value())
                : new String(header.value(), StandardCharsets.UTF_8);
        return header.key() + "=" + value;
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
