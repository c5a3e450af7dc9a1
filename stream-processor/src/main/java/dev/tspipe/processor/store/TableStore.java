package dev.tspipe.processor.store;

import java.io.File;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.BooleanSupplier;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.apache.kafka.streams.processor.BatchingStateRestoreCallback;
import org.apache.kafka.streams.processor.StateStore;
import org.apache.kafka.streams.processor.StateStoreContext;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.QueryableStoreType;
import org.apache.kafka.streams.state.StoreBuilder;

/**
 * One table of a task's {@link SeriesStore} as a Kafka Streams store: the five tables share the task's one
 * database, and each is a store of its own so that it has its own changelog topic (with its own retention)
 * and is queryable by name ({@code QueryableStoreTypes.keyValueStore()}, read-only).
 *
 * <p>Kafka Streams adds no layers of its own (no metered, caching or change-logging store): the series
 * store buffers, logs and restores itself. Writes come only from the ingest processor through
 * {@link #seriesStore()}; the {@code put} methods of the interface are refused.
 */
public final class TableStore extends StreamsInternals.FlushHook implements KeyValueStore<Bytes, byte[]> {

    private final Table table;
    private final SeriesStoreSpec spec;
    private SeriesStore store;
    private File directory;
    private SeriesStore.Changelog changelog;
    private BooleanSupplier transactionInFlight;
    private volatile boolean open;

    TableStore(Table table, SeriesStoreSpec spec) {
        this.table = Objects.requireNonNull(table, "table");
        this.spec = Objects.requireNonNull(spec, "spec");
    }

    /** The builder of {@code table}'s store, with its changelog's topic configuration. */
    public static StoreBuilder<TableStore> builder(Table table, SeriesStoreSpec spec) {
        return new Builder(table, spec);
    }

    /**
     * For {@code KafkaStreams.store(StoreQueryParameters.fromNameAndType(name, TableStore.queryableType()))}: the
     * table stores themselves (not a read-only view), e.g. for their segment statistics.
     */
    public static QueryableStoreType<List<TableStore>> queryableType() {
        return StreamsInternals.tableStores();
    }

    /** The series store behind {@code store}, a store the processor got from its context (under Kafka Streams' layers). */
    public static SeriesStore seriesStoreOf(StateStore store) {
        return StreamsInternals.find(store, TableStore.class)
                .orElseThrow(() -> new IllegalArgumentException("not a table of the series store: " + store.name()))
                .seriesStore();
    }

    /**
     * The changelog topic's settings: raw rows and 1-minute buckets are sent once per series and commit, every
     * record new, so only time deletes them; hourly and daily buckets and latest values are sent per key, so
     * compaction keeps the newest of each (and time deletes expired buckets). The extra segment span is a
     * margin, like Kafka Streams' {@code windowstore.changelog.additional.retention.ms}: the broker deletes by
     * record timestamp against its clock, the store expires by stream time.
     */
    static Map<String, String> changelogConfig(Table table, SeriesStoreSpec spec) {
        Map<String, String> config = new HashMap<>();
        if (table == Table.LATEST) {
            config.put(TopicConfig.CLEANUP_POLICY_CONFIG, TopicConfig.CLEANUP_POLICY_COMPACT);
            return config;
        }
        config.put(TopicConfig.CLEANUP_POLICY_CONFIG, table.grouped() ? TopicConfig.CLEANUP_POLICY_DELETE
                : TopicConfig.CLEANUP_POLICY_COMPACT + "," + TopicConfig.CLEANUP_POLICY_DELETE);
        long retention = spec.retentionMs(table);
        long margin = spec.spanMs(table);
        config.put(TopicConfig.RETENTION_MS_CONFIG, Long.toString(retention > Long.MAX_VALUE - margin ? -1 : retention + margin));
        return config;
    }

    public Table table() {
        return table;
    }

    /** The task's series store; fails when the store is not open. */
    public SeriesStore seriesStore() {
        validateOpen();
        return store;
    }

    // ---------------------------------------------------------------------------------------
    // Lifecycle

    @Override
    public String name() {
        return table.storeName();
    }

    @Override
    public void init(StateStoreContext context, StateStore root) {
        directory = new File(context.stateDir(), SeriesStore.DIRECTORY);
        store = SharedSeriesStores.acquire(directory, () -> SeriesStore.open(spec, directory));
        try {
            changelog = StreamsInternals.changelog(context);
            transactionInFlight = StreamsInternals.transactionInFlight(context);
            context.register(root, (BatchingStateRestoreCallback) records -> restore(records));
        } catch (RuntimeException e) {
            SharedSeriesStores.release(directory, store);
            throw e;
        }
        open = true;
    }

    private void restore(Collection<KeyValue<byte[], byte[]>> records) {
        seriesStore().restore(table, records);
    }

    /** Before every commit: the series store writes its buffers and sends their changelog records (once for all five tables). */
    @Override
    public void flushCache() {
        if (open) {
            store.flush(changelog);
        }
    }

    /**
     * After the task's transaction committed (with {@code enable.transactional.statestores}, which tspipe sets), and
     * on standby and restoring tasks: the changelog offset this table's data covers. The series store applies its
     * sent batches once all five tables have reported, and keeps the offsets with the data ({@link #committedOffset}).
     */
    @Override
    public void commit(Map<TopicPartition, Long> changelogOffsets) {
        if (open) {
            // Kafka Streams 4.4 passes {changelog partition: offset} (-4 for a changelog without a record yet, given back
            // by committedOffset and read by it as unknown), and an empty map to a store it marked corrupted: that table's
            // offset is then unknown, and the commit still completes (docs/storage.md, "The write path", step 3).
            store.committed(table, reportedOffset(changelogOffsets), transactionInFlight.getAsBoolean());
        }
    }

    /** The offset a commit report gives this table's changelog, or null when it gives none (see {@link #commit}). */
    static Long reportedOffset(Map<TopicPartition, Long> changelogOffsets) {
        return changelogOffsets.isEmpty() ? null : changelogOffsets.values().iterator().next();
    }

    /** The store keeps its changelog offsets itself, with its data, so a crash does not make Kafka Streams wipe it. */
    @Override
    public boolean managesOffsets() {
        return true;
    }

    @Override
    public Long committedOffset(TopicPartition partition) {
        return seriesStore().committedOffset(table);
    }

    /** The buffered bytes of the whole series store, reported once (by the raw table). */
    @Override
    public long approximateNumUncommittedBytes() {
        return open && table == Table.RAW ? store.uncommittedBytes() : 0;
    }

    /** Not a commit: Kafka Streams 4.4 commits through {@link #flushCache} and {@link #commit}. */
    @Override
    @Deprecated
    public void flush() {
    }

    @Override
    public boolean persistent() {
        return true;
    }

    @Override
    public boolean isOpen() {
        return open && store.isOpen();
    }

    /**
     * Lets go of the series store; the last of the five tables to close closes it. Nothing to persist: what was
     * applied is in RocksDB's write-ahead log with its changelog offsets, and what was not is not committed.
     */
    @Override
    public void close() {
        if (!open) {
            return;
        }
        open = false;
        SharedSeriesStores.release(directory, store);
    }

    // ---------------------------------------------------------------------------------------
    // Reads

    @Override
    public byte[] get(Bytes key) {
        Objects.requireNonNull(key, "key");
        SeriesStore series = seriesStore();
        byte[] value = series.get(table, key.get());
        if (value != null) {
            series.keyspace().read(key.get(), table.timeKeyed(), key.get().length + value.length, System.currentTimeMillis());
        }
        return value;
    }

    @Override
    public KeyValueIterator<Bytes, byte[]> range(Bytes from, Bytes to) {
        return boundedRange(from, to, false);
    }

    @Override
    public KeyValueIterator<Bytes, byte[]> reverseRange(Bytes from, Bytes to) {
        return boundedRange(from, to, true);
    }

    @Override
    public KeyValueIterator<Bytes, byte[]> all() {
        return counted(null, null, false);
    }

    @Override
    public KeyValueIterator<Bytes, byte[]> reverseAll() {
        return counted(null, null, true);
    }

    @Override
    public <PS extends Serializer<P>, P> KeyValueIterator<Bytes, byte[]> prefixScan(P prefix, PS prefixKeySerializer) {
        Objects.requireNonNull(prefix, "prefix");
        Objects.requireNonNull(prefixKeySerializer, "prefixKeySerializer");
        byte[] lower = prefixKeySerializer.serialize(null, prefix);
        return counted(lower, lower.length == 0 ? null : successorOfPrefix(lower), false);
    }

    @Override
    public long approximateNumEntries() {
        return seriesStore().approximateRows(table);
    }

    /** Per live segment of this table, oldest first: span, estimated rows, bytes, compression. */
    public List<SegmentStatistics> segmentStatistics() {
        return seriesStore().segmentStatistics(table);
    }

    private KeyValueIterator<Bytes, byte[]> boundedRange(Bytes from, Bytes to, boolean reverse) {
        if (from != null && to != null && from.compareTo(to) > 0) {
            return counted(new byte[0], new byte[0], reverse);
        }
        // The smallest key after `to` is `to` followed by 0x00: the inclusive bound made exclusive.
        byte[] upper = to == null ? null : Arrays.copyOf(to.get(), to.get().length + 1);
        return counted(from == null ? null : from.get(), upper, reverse);
    }

    /** A range of the series store whose rows count as reads in its key-space activity as they are taken. */
    private KeyValueIterator<Bytes, byte[]> counted(byte[] lower, byte[] upperExclusive, boolean reverse) {
        SeriesStore series = seriesStore();
        KeyValueIterator<Bytes, byte[]> rows = series.range(table, lower, upperExclusive, reverse);
        KeyspaceActivity keyspace = series.keyspace();
        boolean timeKeyed = table.timeKeyed();
        return new KeyValueIterator<>() {
            @Override
            public boolean hasNext() {
                return rows.hasNext();
            }

            @Override
            public KeyValue<Bytes, byte[]> next() {
                KeyValue<Bytes, byte[]> row = rows.next();
                byte[] key = row.key.get();
                keyspace.read(key, timeKeyed, key.length + row.value.length, System.currentTimeMillis());
                return row;
            }

            @Override
            public Bytes peekNextKey() {
                return rows.peekNextKey();
            }

            @Override
            public void close() {
                rows.close();
            }
        };
    }

    /** The first key after every key that starts with {@code prefix}, or null if there is none. */
    private static byte[] successorOfPrefix(byte[] prefix) {
        for (int i = prefix.length - 1; i >= 0; i--) {
            if (prefix[i] != (byte) 0xFF) {
                byte[] successor = Arrays.copyOf(prefix, i + 1);
                successor[i]++;
                return successor;
            }
        }
        return null;
    }

    // ---------------------------------------------------------------------------------------
    // Writes: only through SeriesStore.ingest

    @Override
    public void put(Bytes key, byte[] value) {
        throw refused();
    }

    @Override
    public byte[] putIfAbsent(Bytes key, byte[] value) {
        throw refused();
    }

    @Override
    public void putAll(List<KeyValue<Bytes, byte[]>> entries) {
        throw refused();
    }

    @Override
    public byte[] delete(Bytes key) {
        throw refused();
    }

    private UnsupportedOperationException refused() {
        return new UnsupportedOperationException("store " + name() + " is written only by the ingest processor, "
                + "through SeriesStore.ingest (docs/storage.md)");
    }

    private void validateOpen() {
        if (!open) {
            throw new InvalidStateStoreException("store " + name() + " is not open");
        }
    }

    private static final class Builder implements StoreBuilder<TableStore> {
        private final Table table;
        private final SeriesStoreSpec spec;
        private final Map<String, String> logConfig;

        Builder(Table table, SeriesStoreSpec spec) {
            this.table = table;
            this.spec = spec;
            this.logConfig = changelogConfig(table, spec);
        }

        @Override
        public StoreBuilder<TableStore> withCachingEnabled() {
            return this;
        }

        @Override
        public StoreBuilder<TableStore> withCachingDisabled() {
            return this;
        }

        @Override
        public StoreBuilder<TableStore> withLoggingEnabled(Map<String, String> config) {
            logConfig.putAll(config);
            return this;
        }

        @Override
        public StoreBuilder<TableStore> withLoggingDisabled() {
            throw new UnsupportedOperationException("the tables of the series store are always logged: the changelog is their write-ahead log");
        }

        @Override
        public TableStore build() {
            return new TableStore(table, spec);
        }

        @Override
        public Map<String, String> logConfig() {
            return logConfig;
        }

        @Override
        public boolean loggingEnabled() {
            return true;
        }

        @Override
        public String name() {
            return table.storeName();
        }
    }
}
