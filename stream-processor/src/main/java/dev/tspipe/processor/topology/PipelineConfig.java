package dev.tspipe.processor.topology;

import dev.tspipe.model.keys.KeyLayout;
import dev.tspipe.processor.store.RollupStep;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Range;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigDef;

import java.time.Duration;
import java.util.Map;

/**
 * tspipe's own settings of the ingestion topology; every key declared once, with type, default,
 * validation and doc. Kafka Streams settings ({@code application.id}, {@code bootstrap.servers},
 * {@code processing.guarantee}, ...) are passed to Kafka Streams as they are.
 */
public final class PipelineConfig extends AbstractConfig {

    public static final String READINGS_TOPIC = "tspipe.readings.topic";
    public static final String DLQ_TOPIC = "tspipe.dlq.topic";
    public static final String DEVICES_TOPIC = "tspipe.devices.topic";
    public static final String SCHEMA_REGISTRY_URL = "schema.registry.url";
    public static final String RAW_RETENTION_MS = "tspipe.raw.retention.ms";
    public static final String RAW_SEGMENT_MS = "tspipe.raw.segment.ms";
    public static final String ROLLUP_1M_RETENTION_MS = "tspipe.rollup.1m.retention.ms";
    public static final String ROLLUP_1H_RETENTION_MS = "tspipe.rollup.1h.retention.ms";
    public static final String ROLLUP_1D_RETENTION_MS = "tspipe.rollup.1d.retention.ms";
    public static final String FUTURE_MARGIN_MS = "tspipe.future.margin.ms";
    public static final String MAX_VALUE_BYTES = "tspipe.max.value.bytes";
    public static final String MULTI_TENANT = "tspipe.multi.tenant";
    public static final String SALT_KEYS = "tspipe.keys.salted";
    public static final String ROCKSDB_MEMORY_BYTES = "tspipe.rocksdb.memory.bytes";
    public static final String READINGS_PARTITIONS = "tspipe.readings.partitions";
    public static final String REGISTRY_RETRY_MS = "tspipe.registry.retry.ms";
    public static final String KEYSPACE_ACTIVITY = "tspipe.keyspace.activity";

    private static final long DAY = Duration.ofDays(1).toMillis();

    private static final ConfigDef DEFINITION = new ConfigDef()
            .define(READINGS_TOPIC, Type.STRING, Topics.READINGS, new ConfigDef.NonEmptyString(), Importance.HIGH,
                    "Topic of the incoming readings (Avro Reading, keyed by device id).")
            .define(DLQ_TOPIC, Type.STRING, Topics.READINGS_DLQ, new ConfigDef.NonEmptyString(), Importance.HIGH,
                    "Dead-letter topic: rejected records with the reason in headers.")
            .define(DEVICES_TOPIC, Type.STRING, Topics.DEVICES, new ConfigDef.NonEmptyString(), Importance.MEDIUM,
                    "Compacted topic of device metadata (Avro Device, keyed by device id), read by every node as a "
                            + "replicated table (docs/devices.md).")
            .define(SCHEMA_REGISTRY_URL, Type.STRING, ConfigDef.NO_DEFAULT_VALUE, new ConfigDef.NonEmptyString(),
                    Importance.HIGH, "Schema registry URL(s) for reading Avro readings; mock://<scope> in tests.")
            .define(RAW_RETENTION_MS, Type.LONG, 7 * DAY, Range.atLeast(60_000), Importance.MEDIUM,
                    "Lifecycle of raw rows. Older readings are rejected as 'expired'; older segments are dropped whole.")
            .define(RAW_SEGMENT_MS, Type.LONG, DAY, Range.atLeast(60_000), Importance.LOW,
                    "Time span of one raw-row segment (one RocksDB instance), the unit of expiry.")
            .define(ROLLUP_1M_RETENTION_MS, Type.LONG, 30 * DAY, Range.atLeast(60_000), Importance.MEDIUM,
                    "Lifecycle of 1-minute rollups.")
            .define(ROLLUP_1H_RETENTION_MS, Type.LONG, 400 * DAY, Range.atLeast(3_600_000), Importance.MEDIUM,
                    "Lifecycle of 1-hour rollups.")
            .define(ROLLUP_1D_RETENTION_MS, Type.LONG, 5 * 365 * DAY + DAY, Range.atLeast(DAY), Importance.MEDIUM,
                    "Lifecycle of 1-day rollups (5 years).")
            .define(FUTURE_MARGIN_MS, Type.LONG, DAY, Range.atLeast(0), Importance.MEDIUM,
                    "Readings further ahead of stream time than this are rejected as 'future'.")
            .define(MAX_VALUE_BYTES, Type.INT, 1024 * 1024, Range.between(64, 16 * 1024 * 1024), Importance.LOW,
                    "Largest accepted record value, in bytes; larger records are rejected as 'too-large'.")
            .define(MULTI_TENANT, Type.BOOLEAN, false, Importance.MEDIUM,
                    "Whether every reading carries a tenant (keys tenant#device#metric#ts). "
                            + "Fixed for the life of the data.")
            .define(SALT_KEYS, Type.BOOLEAN, false, Importance.LOW,
                    "Prefix row keys with 4 hex chars of MD5(device) (Tablestore's hash prefix). "
                            + "Fixed for the life of the data.")
            .define(ROCKSDB_MEMORY_BYTES, Type.LONG, 256L * 1024 * 1024, Range.atLeast(16L * 1024 * 1024), Importance.MEDIUM,
                    "Memory of all RocksDB instances of the process together: one shared block cache, with the "
                            + "write buffers charged to it (docs/storage.md).")
            .define(READINGS_PARTITIONS, Type.INT, 0, Range.atLeast(0), Importance.LOW,
                    "Partitions of the readings topic. A device belongs to partition murmur2(key) mod partitions, as "
                            + "the Java client places it; a record found in another partition is re-routed there. 0: looked "
                            + "up from the broker when the Kafka Streams instance is created (TspipeStreams); a topology "
                            + "built without it does not check partitions. Set it only where the broker cannot be asked: "
                            + "a wrong count leaves records in the wrong partition, where queries do not find them.")
            .define(REGISTRY_RETRY_MS, Type.LONG, 5_000L, Range.atLeast(0), Importance.LOW,
                    "How long a record waits, inside its task, for a schema registry that cannot be reached, before "
                            + "the stream thread fails and is replaced (the record is then read again, never skipped). "
                            + "Keep it below transaction.timeout.ms (10 s under exactly-once; docs/architecture.md).")
            .define(KEYSPACE_ACTIVITY, Type.BOOLEAN, true, Importance.LOW,
                    "Whether the ingest step counts every write in the key-space heatmap (rows and bytes per device and "
                            + "minute, GET /api/v1/stats/keyspace; docs/query-api.md). Off: the heatmap shows reads only.");

    // Read on every record: AbstractConfig's getters look the key up each time (measured: a few percent of the
    // stream thread), so the hot ones are read once.
    private final String readingsTopic;
    private final long rawRetentionMs;
    private final long futureMarginMs;
    private final int maxValueBytes;
    private final int readingsPartitions;
    private final long registryRetryMs;
    private final KeyLayout keyLayout;
    private final boolean keyspaceActivity;

    public PipelineConfig(Map<?, ?> originals) {
        super(DEFINITION, originals, false);
        readingsTopic = getString(READINGS_TOPIC);
        rawRetentionMs = getLong(RAW_RETENTION_MS);
        futureMarginMs = getLong(FUTURE_MARGIN_MS);
        maxValueBytes = getInt(MAX_VALUE_BYTES);
        readingsPartitions = getInt(READINGS_PARTITIONS);
        registryRetryMs = getLong(REGISTRY_RETRY_MS);
        keyLayout = new KeyLayout(getBoolean(MULTI_TENANT), getBoolean(SALT_KEYS));
        keyspaceActivity = getBoolean(KEYSPACE_ACTIVITY);
    }

    public static ConfigDef definition() {
        return DEFINITION;
    }

    public String readingsTopic() {
        return readingsTopic;
    }

    public String dlqTopic() {
        return getString(DLQ_TOPIC);
    }

    public String devicesTopic() {
        return getString(DEVICES_TOPIC);
    }

    public String schemaRegistryUrl() {
        return getString(SCHEMA_REGISTRY_URL);
    }

    public long rawRetentionMs() {
        return rawRetentionMs;
    }

    public long rawSegmentMs() {
        return getLong(RAW_SEGMENT_MS);
    }

    public long rollupRetentionMs(RollupStep step) {
        return switch (step) {
            case MINUTE -> getLong(ROLLUP_1M_RETENTION_MS);
            case HOUR -> getLong(ROLLUP_1H_RETENTION_MS);
            case DAY -> getLong(ROLLUP_1D_RETENTION_MS);
        };
    }

    public long futureMarginMs() {
        return futureMarginMs;
    }

    public int maxValueBytes() {
        return maxValueBytes;
    }

    public long rocksDbMemoryBytes() {
        return getLong(ROCKSDB_MEMORY_BYTES);
    }

    /** Partitions of the readings topic; 0 when unknown (no partition check). */
    public int readingsPartitions() {
        return readingsPartitions;
    }

    public long registryRetryMs() {
        return registryRetryMs;
    }

    public KeyLayout keyLayout() {
        return keyLayout;
    }

    /** Whether writes count in the key-space heatmap. */
    public boolean keyspaceActivity() {
        return keyspaceActivity;
    }
}
