package dev.tspipe.processor.store;

import org.apache.kafka.common.header.Headers;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.BooleanSupplier;

import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.processor.StateStore;
import org.apache.kafka.streams.processor.StateStoreContext;
import org.apache.kafka.streams.processor.internals.InternalProcessorContext;
import org.apache.kafka.streams.processor.internals.RecordCollector;
import org.apache.kafka.streams.processor.internals.RecordCollectorImpl;
import org.apache.kafka.streams.processor.internals.StreamsProducer;
import org.apache.kafka.streams.query.Position;
import org.apache.kafka.streams.state.QueryableStoreType;
import org.apache.kafka.streams.state.internals.CacheFlushListener;
import org.apache.kafka.streams.state.internals.CachedStateStore;
import org.apache.kafka.streams.state.internals.StateStoreProvider;
import org.apache.kafka.streams.state.internals.WrappedStateStore;

/**
 * Every use of Kafka Streams' internal packages by tspipe's store, in one place, so that a Kafka upgrade
 * breaks here or nowhere (covered by {@code StreamsInternalsTest} and the topology tests). Pinned to
 * Kafka Streams 4.4.0; what each relies on is written in docs/storage.md ("Kafka Streams internals").
 */
public final class StreamsInternals {

    private StreamsInternals() {
    }

    /**
     * A mutable copy of {@code headers}, or empty headers for null: kafka-clients' {@code RecordHeaders}, the one
     * implementation of {@link Headers} it has, is in an {@code internals} package. The dead-letter path
     * ({@code DeadLetters}, {@code DeadLetterHandlers}) annotates a rejected record's headers on such a copy.
     */
    public static Headers mutableCopy(Headers headers) {
        return headers == null ? new RecordHeaders() : new RecordHeaders(headers.toArray());
    }

    /**
     * A store whose {@link #flushCache()} Kafka Streams calls before every commit, inside the task's
     * transaction: {@code ProcessorStateManager.flushCache()} calls it on every store that implements the
     * internal {@code CachedStateStore} (the hook Kafka Streams' own record cache uses to send its dirty
     * entries to the changelog), and {@code StreamTask.flush()} then flushes the record collector before
     * the transaction commits. It is also called on clean closes, before the last commit.
     */
    public abstract static class FlushHook implements CachedStateStore<Bytes, byte[]> {

        @Override
        public abstract void flushCache();

        @Override
        public boolean setFlushListener(CacheFlushListener<Bytes, byte[]> listener, boolean sendOldValues) {
            return false;
        }

        @Override
        public void clearCache() {
            // Nothing cached between commits that a reader could see: the series store's buffers are flushed above.
        }
    }

    /**
     * Sends changelog records for the task's stores, as Kafka Streams' change-logging layer does
     * ({@code InternalProcessorContext.logChange}): to the changelog partition Kafka Streams registered for
     * the store, through the task's record collector, so inside its transaction under exactly-once.
     */
    static SeriesStore.Changelog changelog(StateStoreContext context) {
        InternalProcessorContext<?, ?> internal = internal(context);
        return (table, key, value, timestamp) -> internal.logChange(table.storeName(), Bytes.wrap(key), value, timestamp,
                new RecordHeaders(), Position.emptyPosition());
    }

    /**
     * An interactive-query store type whose answer is the tables of one name on this instance (active,
     * standby or restoring, as the query parameters say), as they are: {@code StateStoreProvider} is internal.
     */
    static QueryableStoreType<List<TableStore>> tableStores() {
        return new QueryableStoreType<>() {
            @Override
            public boolean accepts(StateStore stateStore) {
                return find(stateStore, TableStore.class).isPresent();
            }

            @Override
            @SuppressWarnings({"unchecked", "rawtypes"})
            public List<TableStore> create(StateStoreProvider provider, String storeName) {
                List<TableStore> tables = new ArrayList<>();
                for (Object store : provider.stores(storeName, (QueryableStoreType) this)) {
                    find((StateStore) store, TableStore.class).ifPresent(tables::add);
                }
                return tables;
            }
        };
    }

    /**
     * Whether the task's producer still has a transaction open, asked when Kafka Streams reports a commit to the
     * stores. It is false right after a transaction committed, and still true when committing it failed: Kafka
     * Streams 4.4 then reports the commit to the stores anyway when it closes the tasks
     * ({@code TaskManager.tryCloseCleanActiveTasks} post-commits every task it was closing, then closes them dirty),
     * and the series store must not apply that transaction's writes. {@code StreamsProducer.transactionInFlight()}
     * and {@code RecordCollectorImpl.streamsProducer} are package-private: read by reflection, checked when the class
     * loads (a Kafka upgrade that renames them fails every store at once, and {@code StreamsInternalsTest}).
     * No record collector (a standby task, the stores Kafka Streams opens at startup) or another collector: false.
     */
    static BooleanSupplier transactionInFlight(StateStoreContext context) {
        if (!(context instanceof RecordCollector.Supplier supplier)) {
            // Kafka Streams also opens the stores of the task directories it finds when it starts
            // (StateDirectory.initializeStartupStores), with a context that has no producer: nothing is ever sent there.
            return () -> false;
        }
        return () -> {
            RecordCollector collector = supplier.recordCollector();
            if (!(collector instanceof RecordCollectorImpl)) {
                return false;
            }
            try {
                return (boolean) TRANSACTION_IN_FLIGHT.invoke(STREAMS_PRODUCER.get(collector));
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException("cannot ask Kafka Streams' producer whether a transaction is open", e);
            }
        };
    }

    private static final Field STREAMS_PRODUCER;
    private static final Method TRANSACTION_IN_FLIGHT;

    static {
        try {
            STREAMS_PRODUCER = RecordCollectorImpl.class.getDeclaredField("streamsProducer");
            STREAMS_PRODUCER.setAccessible(true);
            TRANSACTION_IN_FLIGHT = StreamsProducer.class.getDeclaredMethod("transactionInFlight");
            TRANSACTION_IN_FLIGHT.setAccessible(true);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError("Kafka Streams' RecordCollectorImpl.streamsProducer or "
                    + "StreamsProducer.transactionInFlight() is gone: this Kafka Streams version is not the one tspipe "
                    + "was built for (4.4.0); see docs/storage.md, \"Kafka Streams internals\" (" + e + ")");
        }
    }

    private static InternalProcessorContext<?, ?> internal(StateStoreContext context) {
        if (!(context instanceof InternalProcessorContext<?, ?> internal)) {
            throw new IllegalStateException("the series store needs Kafka Streams' own store context, got "
                    + context.getClass().getName());
        }
        return internal;
    }

    /**
     * The outermost layer of {@code store} (itself included) that is a {@code type}, under Kafka Streams' layers
     * (the read-write decorator it gives processors, the checkpointing wrapper, metered and caching layers).
     */
    static <T> Optional<T> find(StateStore store, Class<T> type) {
        StateStore layer = store;
        while (!type.isInstance(layer) && layer instanceof WrappedStateStore<?, ?, ?> wrapper) {
            layer = wrapper.wrapped();
        }
        return type.isInstance(layer) ? Optional.of(type.cast(layer)) : Optional.empty();
    }
}
