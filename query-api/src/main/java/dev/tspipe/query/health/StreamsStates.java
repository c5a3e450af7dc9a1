package dev.tspipe.query.health;

import org.apache.kafka.streams.KafkaStreams;

/** What each Kafka Streams state means for an operator, and what to do about it: the text of {@code /health} and {@code /ready}. */
final class StreamsStates {

    private StreamsStates() {
    }

    /**
     * Whether the instance is alive: CREATED (the query server starts before Kafka Streams), REBALANCING or
     * RUNNING. The other states lead to ERROR or NOT_RUNNING, which Kafka Streams never leaves by itself.
     */
    static boolean alive(KafkaStreams.State state) {
        return state == KafkaStreams.State.CREATED || state == KafkaStreams.State.REBALANCING
                || state == KafkaStreams.State.RUNNING;
    }

    static String meaning(KafkaStreams.State state) {
        return switch (state) {
            case CREATED -> "Kafka Streams is CREATED: the instance is starting and has not joined its group yet; wait";
            case REBALANCING -> "Kafka Streams is REBALANCING: partitions are being assigned or restored; wait "
                    + "(queries are answered meanwhile, from a standby or a restoring copy marked X-Tspipe-Stale)";
            case RUNNING -> "Kafka Streams is RUNNING";
            case PENDING_SHUTDOWN -> "Kafka Streams is PENDING_SHUTDOWN: the instance is closing; start it again "
                    + "if that was not intended";
            case NOT_RUNNING -> "Kafka Streams is NOT_RUNNING: it was closed and will not start again; restart the instance";
            case PENDING_ERROR -> "Kafka Streams is PENDING_ERROR: it is stopping after a fatal error; restart the "
                    + "instance (its log names the error)";
            case ERROR -> "Kafka Streams is ERROR: its stream threads stopped on a fatal error and will not recover; "
                    + "restart the instance (its log names the error)";
        };
    }
}
