package dev.tspipe.query.routing;

import dev.tspipe.query.error.ApiException;
import org.apache.kafka.streams.errors.InvalidStateStoreException;

import java.util.Optional;
import java.util.function.Supplier;

/**
 * A read of this instance's copy of a partition, for {@code RoutedRead}: the answer, or empty when
 * the copy cannot give one and another copy should be asked.
 *
 * <p>A copy cannot answer when its store is not queryable here now (Kafka Streams'
 * {@link InvalidStateStoreException}), and — when it is read stale (a standby, or an active task
 * still restoring) — when the series is not in it: a copy that is behind can show what it has, but
 * it cannot tell that a series does not exist, only that it has not got it yet. A standby created
 * during a failover starts empty and may be within the lag bound of {@code SeriesRouting} while it
 * restores; its "unknown series" would be a wrong 404 for data that exists. So only a fresh read (the
 * active task, caught up) answers 404.
 */
public final class LocalCopy {

    private LocalCopy() {
    }

    public static <T> Optional<T> read(Supplier<T> read, boolean stale) {
        try {
            return Optional.of(read.get());
        } catch (InvalidStateStoreException notHere) {
            return Optional.empty();
        } catch (ApiException e) {
            if (stale && e.status() == 404) {
                return Optional.empty();
            }
            throw e;
        }
    }
}
