package dev.tspipe.processor.topology;

import dev.tspipe.schemas.serde.AvroDeserializer;
import dev.tspipe.schemas.serde.AvroSerdeConfig;
import dev.tspipe.schemas.serde.RegistryUnavailableSerializationException;
import dev.tspipe.schemas.serde.UnknownSchemaException;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.streams.errors.StreamsException;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.processor.api.RecordMetadata;

import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * Decodes a record's Avro value and validates it, before anything is stored. Rejections leave
 * with the error headers of {@link DeadLetters}; accepted readings leave with their row key.
 * A record that is not keyed by its device also gets its source coordinates and original key as
 * headers, so that they survive the repartition topic.
 */
final class DecodeProcessor implements Processor<byte[], byte[], byte[], Routed> {

    static final String STAGE = "decode";

    private final PipelineConfig config;
    private final ReadingValidator validator;
    private ProcessorContext<byte[], Routed> context;
    private AvroDeserializer<Object> deserializer;
    private PipelineMetrics metrics;

    DecodeProcessor(PipelineConfig config) {
        this.config = config;
        this.validator = new ReadingValidator(config.keyLayout());
    }

    @Override
    public void init(ProcessorContext<byte[], Routed> context) {
        this.context = context;
        this.metrics = new PipelineMetrics(context.metrics());
        this.deserializer = new AvroDeserializer<>();
        deserializer.configure(Map.of(AvroSerdeConfig.SCHEMA_REGISTRY_URL, config.schemaRegistryUrl()), false);
    }

    @Override
    public void process(Record<byte[], byte[]> record) {
        byte[] value = record.value();
        ReadingValidator.Verdict verdict = verdictOn(value);
        DeadLetters.Source here = DeadLetters.here(context, config.readingsTopic());
        if (verdict instanceof ReadingValidator.Rejected rejected) {
            byte[] originalKey = DeadLetters.originalKey(record.headers(), record.key(), here);
            Headers headers = DeadLetters.annotate(record.headers(), rejected.reason(), rejected.message(), STAGE,
                    DeadLetters.sourceOf(record.headers(), here));
            metrics.deadLetter(rejected.reason());
            context.forward(new Record<>(originalKey, new Routed(verdict, originalKey, value, null),
                    record.timestamp(), headers));
            return;
        }
        ReadingValidator.Accepted accepted = (ReadingValidator.Accepted) verdict;
        byte[] deviceKey = accepted.reading().series().distributionKey().getBytes(StandardCharsets.UTF_8);
        Routed routed = new Routed(verdict, record.key(), value, deviceKey);
        Record<byte[], Routed> out = record.withValue(routed);
        if (!routed.keyedByDevice()) {
            DeadLetters.carrySource(out.headers(), here, record.key());
        }
        context.forward(out);
    }

    private ReadingValidator.Verdict verdictOn(byte[] value) {
        if (value == null) {
            return new ReadingValidator.Rejected(RejectReason.UNDECODABLE, "the record has no value (a tombstone is not a reading)");
        }
        if (value.length > config.maxValueBytes()) {
            return new ReadingValidator.Rejected(RejectReason.TOO_LARGE, "the record value is " + value.length
                    + " bytes, over the limit of " + config.maxValueBytes());
        }
        Object decoded;
        try {
            decoded = deserializer.deserialize(context.recordMetadata().map(RecordMetadata::topic).orElse(config.readingsTopic()), value);
        } catch (RegistryUnavailableSerializationException e) {
            // Not the record's fault: fail the task so that it is retried, instead of losing a valid record.
            throw new StreamsException("the schema registry is unreachable; will retry: " + e.getMessage(), e);
        } catch (UnknownSchemaException e) {
            return new ReadingValidator.Rejected(RejectReason.UNKNOWN_SCHEMA, e.getMessage());
        } catch (SerializationException e) {
            return new ReadingValidator.Rejected(RejectReason.UNDECODABLE, e.getMessage());
        }
        return validator.validate(decoded);
    }

    @Override
    public void close() {
        if (deserializer != null) {
            deserializer.close();
        }
    }
}
