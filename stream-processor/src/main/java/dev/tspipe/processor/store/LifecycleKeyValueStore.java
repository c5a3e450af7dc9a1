package dev.tspipe.processor.store;

import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.processor.StateStore;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.StoreBuilder;
import org.apache.kafka.streams.state.Stores;
import org.apache.kafka.streams.state.internals.WrappedStateStore;

import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * The outermost layer of a segmented store as the topology and interactive queries see it:
 * it hides expired rows from every read.
 *
 * <p>Why a layer above Kafka Streams' record cache: the cache keeps rows (also clean ones) for
 * reads, and a segmented store below it learns of newer puts only when the cache is flushed.
 * This layer sees every put first, so its stream time is always current, and it filters what
 * the cache or the store returns: a read never returns an expired row, whatever is cached and
 * before the row's segment is dropped. After a restore, the segmented store's own stream time
 * (advanced by the restored rows) counts too.
 */
public final class LifecycleKeyValueStore extends WrappedStateStore<KeyValueStore<Bytes, byte[]>, Bytes, byte[]>
        implements KeyValueStore<Bytes, byte[]> {

    private static final long NO_STREAM_TIME = Long.MIN_VALUE;

    private final long retentionMs;
    private long streamTime = NO_STREAM_TIME;
    /** The segmented store below, looked up on first use; null until then. */
    private Optional<SegmentedKeyValueStore> segmented;

    LifecycleKeyValueStore(KeyValueStore<Bytes, byte[]> wrapped, long retentionMs) {
        super(wrapped);
        this.retentionMs = retentionMs;
    }

    /**
     * The production builder of a segmented store: the segments, Kafka Streams' changelog (with
     * {@link SegmentedStores#changelogConfig}), its record cache and metrics, and this layer on top.
     */
    public static StoreBuilder<KeyValueStore<Bytes, byte[]>> builder(SegmentedStoreSpec spec) {
        StoreBuilder<KeyValueStore<Bytes, byte[]>> inner = Stores.keyValueStoreBuilder(SegmentedStores.supplier(spec),
                        Serdes.Bytes(), Serdes.ByteArray())
                .withLoggingEnabled(SegmentedStores.changelogConfig(spec))
                .withCachingEnabled();
        return new Builder(inner, spec.retentionMs());
    }

    /** The largest timestamp put through this store or restored into its segments. */
    public synchronized OptionalLong streamTime() {
        long segmented = segmentedStreamTime();
        long time = Math.max(streamTime, segmented);
        return time == NO_STREAM_TIME ? OptionalLong.empty() : OptionalLong.of(time);
    }

    /**
     * The stream time of the segmented store {@code store} is, or wraps (Kafka Streams hands processors
     * its own layers around the store).
     *
     * @throws IllegalArgumentException if {@code store} is not a segmented store built by {@link #builder}
     */
    public static OptionalLong streamTimeOf(StateStore store) {
        return StoreLayers.find(store, LifecycleKeyValueStore.class)
                .orElseThrow(() -> new IllegalArgumentException("store " + store.name()
                        + " is not a segmented store (built by LifecycleKeyValueStore.builder)"))
                .streamTime();
    }

    private long segmentedStreamTime() {
        // The layers below never change: look for the segments once, not on every read.
        if (segmented == null) {
            segmented = StoreLayers.find(wrapped(), SegmentedKeyValueStore.class);
        }
        return segmented.isPresent() ? segmented.get().streamTime().orElse(NO_STREAM_TIME) : NO_STREAM_TIME;
    }

    /** Rows with a timestamp below this are expired; computed once per read, not once per row. */
    private long expiryLimit() {
        OptionalLong now = streamTime();
        return now.isPresent() ? now.getAsLong() - retentionMs : Long.MIN_VALUE;
    }

    private static boolean expired(Bytes key, long expiryLimit) {
        return SegmentedKeyValueStore.timestampOf(key.get()) < expiryLimit;
    }

    private synchronized void observe(Bytes key, byte[] value) {
        if (value != null) {
            streamTime = Math.max(streamTime, SegmentedKeyValueStore.timestampOf(key.get()));
        }
    }

    @Override
    public void put(Bytes key, byte[] value) {
        observe(key, value);
        wrapped().put(key, value);
    }

    @Override
    public byte[] putIfAbsent(Bytes key, byte[] value) {
        observe(key, value);
        return wrapped().putIfAbsent(key, value);
    }

    @Override
    public void putAll(List<KeyValue<Bytes, byte[]>> entries) {
        entries.forEach(entry -> observe(entry.key, entry.value));
        wrapped().putAll(entries);
    }

    @Override
    public byte[] delete(Bytes key) {
        return wrapped().delete(key);
    }

    @Override
    public byte[] get(Bytes key) {
        return expired(key, expiryLimit()) ? null : wrapped().get(key);
    }

    @Override
    public KeyValueIterator<Bytes, byte[]> range(Bytes from, Bytes to) {
        return new Unexpired(wrapped().range(from, to), expiryLimit());
    }

    @Override
    public KeyValueIterator<Bytes, byte[]> reverseRange(Bytes from, Bytes to) {
        return new Unexpired(wrapped().reverseRange(from, to), expiryLimit());
    }

    @Override
    public KeyValueIterator<Bytes, byte[]> all() {
        return new Unexpired(wrapped().all(), expiryLimit());
    }

    @Override
    public KeyValueIterator<Bytes, byte[]> reverseAll() {
        return new Unexpired(wrapped().reverseAll(), expiryLimit());
    }

    @Override
    public <PS extends Serializer<P>, P> KeyValueIterator<Bytes, byte[]> prefixScan(P prefix, PS prefixKeySerializer) {
        return new Unexpired(wrapped().prefixScan(prefix, prefixKeySerializer), expiryLimit());
    }

    @Override
    public long approximateNumEntries() {
        return wrapped().approximateNumEntries();
    }

    /** An iterator that skips the rows expired when it was opened. */
    private static final class Unexpired implements KeyValueIterator<Bytes, byte[]> {
        private final KeyValueIterator<Bytes, byte[]> inner;
        private final long expiryLimit;
        private KeyValue<Bytes, byte[]> next;

        Unexpired(KeyValueIterator<Bytes, byte[]> inner, long expiryLimit) {
            this.inner = inner;
            this.expiryLimit = expiryLimit;
        }

        @Override
        public boolean hasNext() {
            while (next == null && inner.hasNext()) {
                KeyValue<Bytes, byte[]> candidate = inner.next();
                if (!expired(candidate.key, expiryLimit)) {
                    next = candidate;
                }
            }
            return next != null;
        }

        @Override
        public KeyValue<Bytes, byte[]> next() {
            if (!hasNext()) {
                throw new NoSuchElementException();
            }
            KeyValue<Bytes, byte[]> result = next;
            next = null;
            return result;
        }

        @Override
        public Bytes peekNextKey() {
            if (!hasNext()) {
                throw new NoSuchElementException();
            }
            return next.key;
        }

        @Override
        public void close() {
            inner.close();
        }
    }

    private record Builder(StoreBuilder<KeyValueStore<Bytes, byte[]>> inner, long retentionMs)
            implements StoreBuilder<KeyValueStore<Bytes, byte[]>> {

        @Override
        public StoreBuilder<KeyValueStore<Bytes, byte[]>> withCachingEnabled() {
            return new Builder(inner.withCachingEnabled(), retentionMs);
        }

        @Override
        public StoreBuilder<KeyValueStore<Bytes, byte[]>> withCachingDisabled() {
            return new Builder(inner.withCachingDisabled(), retentionMs);
        }

        @Override
        public StoreBuilder<KeyValueStore<Bytes, byte[]>> withLoggingEnabled(Map<String, String> config) {
            return new Builder(inner.withLoggingEnabled(config), retentionMs);
        }

        @Override
        public StoreBuilder<KeyValueStore<Bytes, byte[]>> withLoggingDisabled() {
            return new Builder(inner.withLoggingDisabled(), retentionMs);
        }

        @Override
        public KeyValueStore<Bytes, byte[]> build() {
            return new LifecycleKeyValueStore(inner.build(), retentionMs);
        }

        @Override
        public Map<String, String> logConfig() {
            return inner.logConfig();
        }

        @Override
        public boolean loggingEnabled() {
            return inner.loggingEnabled();
        }

        @Override
        public String name() {
            return inner.name();
        }
    }
}
