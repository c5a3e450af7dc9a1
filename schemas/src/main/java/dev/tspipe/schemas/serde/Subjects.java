package dev.tspipe.schemas.serde;

import org.apache.avro.Schema;
import org.apache.kafka.common.config.ConfigException;

import java.util.Locale;

/**
 * Confluent's subject name strategies: under which subject of the registry a topic's keys or values are registered
 * (docs/schemas-and-serde.md, "Subjects"). The setting takes Confluent's class names, so that a configuration written
 * for {@code KafkaAvroSerializer} works unchanged, or their simple names.
 */
public enum Subjects {

    /** {@code <topic>-value} or {@code <topic>-key}: one record type per topic (Confluent's default). */
    TOPIC_NAME("TopicNameStrategy"),
    /** The record's full name, e.g. {@code dev.tspipe.schemas.ReadingBatch}: one subject per type, across topics. */
    RECORD_NAME("RecordNameStrategy"),
    /**
     * {@code <topic>-<record full name>}, e.g. {@code readings-dev.tspipe.schemas.ReadingBatch}: several record types on
     * one topic, each its own subject and compatibility history. tspipe's batches travel this way next to single readings.
     */
    TOPIC_RECORD_NAME("TopicRecordNameStrategy");

    /** The package of Confluent's strategy classes, which the setting may name. */
    private static final String CONFLUENT_PACKAGE = "io.confluent.kafka.serializers.subject.";

    private final String simpleName;

    Subjects(String simpleName) {
        this.simpleName = simpleName;
    }

    /** The subject of a topic's keys or values under Confluent's default strategy: {@code <topic>-value} or {@code <topic>-key}. */
    public static String of(String topic, boolean isKey) {
        return topic + (isKey ? "-key" : "-value");
    }

    /** The subject of {@code schema}, written to {@code topic}'s keys or values. */
    public String subject(String topic, boolean isKey, Schema schema) {
        return switch (this) {
            case TOPIC_NAME -> of(topic, isKey);
            case RECORD_NAME -> recordName(schema);
            case TOPIC_RECORD_NAME -> topic + "-" + recordName(schema);
        };
    }

    private String recordName(Schema schema) {
        if (schema.getType() != Schema.Type.RECORD) {
            throw new org.apache.kafka.common.errors.SerializationException(simpleName + " needs a record to name the subject, not a "
                    + schema.getType().getName() + " (use TopicNameStrategy for primitive keys and values)");
        }
        return schema.getFullName();
    }

    /** Confluent's class name of the strategy, e.g. {@code io.confluent.kafka.serializers.subject.TopicRecordNameStrategy}. */
    public String className() {
        return CONFLUENT_PACKAGE + simpleName;
    }

    /**
     * The strategy a setting names: Confluent's class name or its simple name, any case.
     *
     * @throws ConfigException naming the setting and the choices
     */
    public static Subjects named(String setting, String name) {
        String simple = name.trim();
        if (simple.startsWith(CONFLUENT_PACKAGE)) {
            simple = simple.substring(CONFLUENT_PACKAGE.length());
        }
        for (Subjects strategy : values()) {
            if (strategy.simpleName.toLowerCase(Locale.ROOT).equals(simple.toLowerCase(Locale.ROOT))) {
                return strategy;
            }
        }
        throw new ConfigException(setting, name, "not a subject name strategy; use TopicNameStrategy, RecordNameStrategy or "
                + "TopicRecordNameStrategy (or Confluent's class name, " + CONFLUENT_PACKAGE + "TopicRecordNameStrategy)");
    }
}
