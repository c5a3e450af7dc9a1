package dev.tspipe.bench.e2e;

import dev.tspipe.processor.topology.BatchVerdict;
import dev.tspipe.processor.topology.PipelineConfig;
import dev.tspipe.processor.topology.ReadingValidator;
import dev.tspipe.processor.topology.ReadingDecoder;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Named;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The ceiling: what any store design can reach at most. It reads {@code readings} as tspipe does
 * ({@code byte[]}), decodes and validates every value with tspipe's own {@link ReadingDecoder} (as
 * tspipe's decode step does: the fast path for the Reading layout, the generic path for anything
 * else), which also builds the row key and the raw row; it stores nothing.
 *
 * <pre>
 * readings ─► decode-and-validate ─┬─ accepted: nothing (no store, no changelog)
 *                                  └─ rejected ─► readings-dlq (never written by this input)
 * </pre>
 *
 * The rejected branch keeps a sink, as tspipe has, so that the validation's verdict is used. Of
 * tspipe's decode step it leaves out the partition check (one murmur2 per record: the node is not
 * told the partition count), the dead-letter headers and the pipeline metrics, which valid
 * readings do not touch either. Run with tspipe's Kafka Streams settings (exactly-once, commit
 * every second) by {@link NodeMain} in mode {@code noop}.
 */
final class CeilingTopology {

    private CeilingTopology() {
    }

    /** The topology; pure, no I/O until Kafka Streams runs it. */
    static Topology build(PipelineConfig config) {
        StreamsBuilder builder = new StreamsBuilder();
        builder.stream(config.readingsTopic(), Consumed.with(Serdes.ByteArray(), Serdes.ByteArray()).withName("readings"))
                .process(() -> new DecodeAndValidate(config), Named.as("decode-and-validate"))
                .to(config.dlqTopic(), Produced.with(Serdes.ByteArray(), Serdes.ByteArray()).withName("rejected"));
        return builder.build();
    }

    /** Decodes and validates each record; forwards only the rejected ones, unchanged. */
    static final class DecodeAndValidate implements Processor<byte[], byte[], byte[], byte[]> {

        private static final Logger log = LoggerFactory.getLogger(DecodeAndValidate.class);

        private final PipelineConfig config;
        private ProcessorContext<byte[], byte[]> context;
        private ReadingDecoder decoder;
        private long accepted;
        private long misplaced;
        private long rejected;

        DecodeAndValidate(PipelineConfig config) {
            this.config = config;
        }

        @Override
        public void init(ProcessorContext<byte[], byte[]> context) {
            this.context = context;
            decoder = new ReadingDecoder(config);
        }

        @Override
        public void process(Record<byte[], byte[]> record) {
            ReadingValidator.Verdict verdict = accept(record.value());
            if (verdict != null) {
                String distributionKey;
                if (verdict instanceof BatchVerdict batch) {
                    // A batch is placed once, by its device; its readings are each accepted (or not) as singles are.
                    distributionKey = batch.distributionKey();
                    int acceptedOfBatch = batch.acceptedCount();
                    accepted += acceptedOfBatch;
                    rejected += batch.size() - acceptedOfBatch;
                } else {
                    accepted++;
                    distributionKey = ((ReadingValidator.Accepted) verdict).reading().series().distributionKey();
                }
                // tspipe's placement check: is the record keyed by its device?
                if (!Arrays.equals(record.key(), distributionKey.getBytes(StandardCharsets.UTF_8))) {
                    misplaced++;
                }
            } else {
                rejected++;
                context.forward(record);
            }
        }

        /** tspipe's verdict on a value it accepts (a reading, or a batch); null for one it rejects as a whole. */
        private ReadingValidator.Verdict accept(byte[] value) {
            if (value == null || value.length > config.maxValueBytes()) {
                return null;
            }
            ReadingValidator.Verdict verdict = decoder.verdict(config.readingsTopic(), value);
            return verdict instanceof ReadingValidator.Rejected ? null : verdict;
        }

        @Override
        public void close() {
            // The harness's input is all valid and keyed by device: anything else means the ceiling did other work than tspipe.
            if (rejected > 0 || misplaced > 0) {
                log.warn("Ceiling task {}: {} readings accepted, {} of them not keyed by their device; {} rejected",
                        context == null ? "-" : context.taskId(), accepted, misplaced, rejected);
            }
            if (decoder != null) {
                decoder.close();
            }
        }
    }
}
