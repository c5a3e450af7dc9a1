package dev.tspipe.schemas.serde;

/** Confluent's TopicNameStrategy: the subject of a topic's values is {@code <topic>-value}, of its keys {@code <topic>-key}. */
public final class Subjects {

    private Subjects() {
    }

    public static String of(String topic, boolean isKey) {
        return topic + (isKey ? "-key" : "-value");
    }
}
