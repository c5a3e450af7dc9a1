package dev.tspipe.processor.store;

import java.util.Optional;
import org.apache.kafka.streams.processor.StateStore;
import org.apache.kafka.streams.state.internals.WrappedStateStore;

/**
 * Finds one layer of a store as Kafka Streams stacks them (its read-write decorator for processors,
 * metered, caching, change-logging, tspipe's lifecycle layer, the segmented store).
 */
public final class StoreLayers {

    private StoreLayers() {
    }

    /** The outermost layer of {@code store} (itself included) that is a {@code type}, if any. */
    public static <T> Optional<T> find(StateStore store, Class<T> type) {
        StateStore layer = store;
        while (!type.isInstance(layer) && layer instanceof WrappedStateStore<?, ?, ?> wrapper) {
            layer = wrapper.wrapped();
        }
        return type.isInstance(layer) ? Optional.of(type.cast(layer)) : Optional.empty();
    }
}
