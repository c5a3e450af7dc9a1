package dev.tspipe.processor.store;

import java.util.Optional;
import org.apache.kafka.streams.processor.StateStore;

/**
 * Finds one layer of a store as Kafka Streams stacks them (its read-write decorator for processors,
 * its checkpointing wrapper, tspipe's {@link TableStore}).
 */
public final class StoreLayers {

    private StoreLayers() {
    }

    /** The outermost layer of {@code store} (itself included) that is a {@code type}, if any. */
    public static <T> Optional<T> find(StateStore store, Class<T> type) {
        return StreamsInternals.find(store, type);
    }
}
