package dev.tspipe.processor.topology;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.streams.StreamsConfig;

import java.util.HashMap;
import java.util.Map;

/**
 * The Kafka Streams settings tspipe runs with unless the user overrides them: exactly-once,
 * the dead-letter handlers, one standby replica. User settings are applied on top.
 */
public final class StreamsSettings {

    /** ksqlDB commits every 2 s; Kafka Streams' exactly-once default is 100 ms (docs/architecture.md). */
    static final long COMMIT_INTERVAL_MS = 1_000;
    /** Kafka Streams' record cache: no store of tspipe's uses it any more (the series store buffers itself). */
    static final long CACHE_BYTES = 0;
    static final int PRODUCER_BATCH_BYTES = 256 * 1024;
    /** How long the group waits for a silent instance before its tasks move (Kafka's default: 45 s). */
    static final int SESSION_TIMEOUT_MS = 10_000;
    static final int HEARTBEAT_INTERVAL_MS = 3_000;

    private StreamsSettings() {
    }

    public static Map<String, Object> defaults(PipelineConfig config) {
        Map<String, Object> settings = new HashMap<>();
        settings.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
        // The series store applies a commit's writes only once Kafka Streams reports the transaction committed, and
        // keeps its changelog offsets with its data: a crash then replays only what was not committed, instead of
        // wiping the task's state (docs/storage.md, "Crashes"). Public in Kafka Streams 4.4 (KIP-892).
        settings.put(StreamsConfig.TRANSACTIONAL_STATE_STORES_CONFIG, true);
        settings.put(StreamsConfig.ERRORS_DEAD_LETTER_QUEUE_TOPIC_NAME_CONFIG, config.dlqTopic());
        settings.put(StreamsConfig.DESERIALIZATION_EXCEPTION_HANDLER_CLASS_CONFIG, DeadLetterHandlers.Deserialization.class);
        settings.put(StreamsConfig.PROCESSING_EXCEPTION_HANDLER_CLASS_CONFIG, DeadLetterHandlers.Processing.class);
        settings.put(StreamsConfig.PROCESSING_EXCEPTION_HANDLER_GLOBAL_ENABLED_CONFIG, true);
        // A standby per task: with one instance it stays unassigned; with more, failover is fast.
        settings.put(StreamsConfig.NUM_STANDBY_REPLICAS_CONFIG, 1);
        settings.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, COMMIT_INTERVAL_MS);
        // A task reads the input partition and the repartition partition of the same number; the latter is
        // empty when producers key by device. With idling enabled (0, the default) Kafka Streams formats a
        // log line about the empty partition for every record (measured: about 4% of the stream thread).
        // Ordering across the two partitions does not matter here: every write is an idempotent upsert.
        settings.put(StreamsConfig.MAX_TASK_IDLE_MS_CONFIG, StreamsConfig.MAX_TASK_IDLE_MS_DISABLED);
        settings.put(StreamsConfig.STATESTORE_CACHE_MAX_BYTES_CONFIG, CACHE_BYTES);
        // A node that dies (kill -9, a lost machine) keeps its tasks until the group notices, and its series are
        // answered only from standbys, stale, until then. The heartbeat thread is apart from processing, so a busy
        // stream thread does not miss heartbeats (docs/architecture.md, "Outages").
        settings.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, SESSION_TIMEOUT_MS);
        settings.put(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, HEARTBEAT_INTERVAL_MS);
        // What a valid reading becomes must fit the broker, or its changelog write fails and the client stops:
        // the internal topics and the producer accept the largest one (docs/reliability.md, "Record sizes").
        settings.put(StreamsConfig.topicPrefix(TopicConfig.MAX_MESSAGE_BYTES_CONFIG), Integer.toString(internalRecordBytes(config)));
        settings.put(StreamsConfig.producerPrefix(ProducerConfig.MAX_REQUEST_SIZE_CONFIG), internalRecordBytes(config));
        // A changelog record holds all of a series' rows of one commit: lz4 halves what the broker writes and a
        // restore reads, for little producer CPU (docs/storage.md, "Changelogs").
        settings.put(StreamsConfig.producerPrefix(ProducerConfig.COMPRESSION_TYPE_CONFIG), "lz4");
        // A commit sends thousands of records per changelog partition at once: fewer, larger batches.
        settings.put(StreamsConfig.producerPrefix(ProducerConfig.BATCH_SIZE_CONFIG), PRODUCER_BATCH_BYTES);
        return settings;
    }

    /**
     * The largest record a valid reading writes to an internal topic: a raw row or latest row is at
     * most 4 times the reading's value (4-byte lengths where Avro has 1-byte varints; an empty tag is 2
     * bytes in Avro, 8 in a row), plus a row key of at most 1,024 bytes and Kafka's record overhead.
     */
    static int internalRecordBytes(PipelineConfig config) {
        return 4 * config.maxValueBytes() + 64 * 1024;
    }

    /** {@link #defaults} with {@code overrides} (user settings, all keys) on top. */
    public static Map<String, Object> merged(PipelineConfig config, Map<String, ?> overrides) {
        Map<String, Object> settings = defaults(config);
        settings.putAll(overrides);
        return settings;
    }
}
