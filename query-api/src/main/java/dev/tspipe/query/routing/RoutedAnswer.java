package dev.tspipe.query.routing;

import org.apache.kafka.streams.state.HostInfo;

import java.util.List;
import java.util.OptionalLong;

/** What carrying out a routing plan gave: {@link RoutedRead#answer} returns one of these. */
public sealed interface RoutedAnswer<T> {

    /**
     * This instance answered from its copy of {@code partition}: the active task ({@code lag} empty), or a
     * standby replica or restoring active task that is {@code lag} records behind.
     */
    record Local<T>(T value, int partition, OptionalLong lag) implements RoutedAnswer<T> {
        public boolean stale() {
            return lag.isPresent();
        }
    }

    /** Another instance answered (2xx, or a 4xx that is a real answer such as 400 or 404); hand it on unchanged. */
    record Forwarded<T>(HostInfo host, Forwarder.Answer answer) implements RoutedAnswer<T> {
    }

    /** No target of the plan could answer now; {@code attempts} says what each one did, in plan order. */
    record NoneAnswered<T>(List<String> attempts) implements RoutedAnswer<T> {
    }
}
