package dev.tspipe.processor.store;

import dev.tspipe.processor.keys.MalformedKeyException;
import dev.tspipe.processor.keys.RowKey;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeMap;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.common.utils.Utils;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.apache.kafka.streams.errors.ProcessorStateException;
import org.apache.kafka.streams.processor.StateStore;
import org.apache.kafka.streams.processor.StateStoreContext;
import org.apache.kafka.streams.processor.internals.ChangelogRecordDeserializationHelper;
import org.apache.kafka.streams.processor.internals.RecordBatchingStateRestoreCallback;
import org.apache.kafka.streams.query.Position;
import org.apache.kafka.streams.query.PositionBound;
import org.apache.kafka.streams.query.Query;
import org.apache.kafka.streams.query.QueryConfig;
import org.apache.kafka.streams.query.QueryResult;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.internals.OffsetCheckpoint;
import org.apache.kafka.streams.state.internals.StoreQueryUtils;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A key-value store of rows partitioned by time (docs/design.md §1 rule 9): one RocksDB instance per segment
 * of {@code segmentInterval}, dropped whole when all of its span has expired. Plugs into Kafka Streams
 * as a {@code KeyValueStore<Bytes, byte[]>} (logging and caching layers on top work as usual); create it
 * with {@link SegmentedStores#supplier}.
 *
 * <h2>Keys and time</h2>
 * Every key ends with the 19-digit reversed timestamp of {@link RowKey} (raw rows and rollups alike);
 * the store reads a row's timestamp from there and refuses other keys with
 * {@link IllegalArgumentException}. Stream time is the largest timestamp of any row put (or restored);
 * a tombstone does not move it. A row is <em>expired</em> when its timestamp is before
 * {@code streamTime - retention}: putting it is a silent no-op (so restoring skips it), and no read
 * returns it, even while its segment still exists.
 *
 * <h2>Segments</h2>
 * Segment {@code id = epochMillis / segmentInterval} lives in {@code <state dir>/<store name>/<id>}.
 * Segments open lazily on the first row of their span and reopen on {@link #init}. When stream time
 * advances, every segment whose whole span is expired is closed and its directory deleted: no per-row
 * deletes, nothing written to the changelog (whose own time-based retention drops the same rows; see
 * {@link SegmentedStores#changelogConfig}).
 *
 * <h2>Hot and cold compression</h2>
 * The segment that is the newest when it opens takes almost every write, so its flushes and upper
 * levels use LZ4 (cheap on every flush and compaction), and only its bottommost level, where data
 * settles once compacted, uses ZSTD (RocksDB's recommended LZ4-above, ZSTD-at-the-bottom setup).
 * Segments that open when a newer one exists (on restart, or for late rows) are cold: mostly read and
 * kept for days, so ZSTD on every level (about a third smaller than LZ4 for this kind of data, at more
 * CPU per byte written). A segment keeps its options while open: when a newer segment opens, the
 * previous newest keeps LZ4 above its bottommost level until the store reopens. Switching it at run time
 * is not possible with rocksdbjni 10.1.3 ({@code setOptions} rejects the {@code compression} option it
 * serializes), and closing and reopening it would have to wait for its open iterators; as its data has
 * mostly settled in the (ZSTD) bottommost level by then, the gain would be small.
 *
 * <h2>Durability</h2>
 * As with Kafka Streams' own RocksDB stores, the changelog is the write-ahead log (RocksDB's WAL is off).
 * Persisting flushes every segment's memtables, then writes stream time to {@value #STREAM_TIME_FILE}
 * (one decimal number, replaced atomically) and the query position to {@value #POSITION_FILE};
 * {@link #init} reads both, so a restart knows stream time before the first row arrives. The store persists
 * when it closes and, at least once, on every {@link #commit}; Kafka Streams commits or closes the store
 * before it writes its checkpoint, and exactly once it writes one only on close.
 *
 * <h2>Reads</h2>
 * Ranges, prefix scans and full scans merge the segments' iterators (k-way, unsigned byte order, which
 * is RocksDB's default comparator and the order of {@link Bytes}). Iterators must be closed; closing the
 * store closes them. Methods are synchronized, so interactive queries may read while the stream thread
 * writes. IQv2 {@code KeyQuery} and {@code RangeQuery} are answered through Kafka Streams'
 * {@code StoreQueryUtils}, with the store's {@link Position} tracked as the built-in stores track it.
 *
 * <p>Memory comes from the JVM-wide budget of {@link RocksDbMemory}.
 */
public final class SegmentedKeyValueStore implements KeyValueStore<Bytes, byte[]> {

    /** The stream-time file in the store's directory. */
    public static final String STREAM_TIME_FILE = ".stream-time";
    /** The IQv2 position file in the store's directory (Kafka Streams' offset-checkpoint format). */
    public static final String POSITION_FILE = ".position";

    private static final Logger LOG = LoggerFactory.getLogger(SegmentedKeyValueStore.class);
    private static final long NO_STREAM_TIME = Long.MIN_VALUE;
    /** How often a store asks {@link RocksDbMemory#balanceMemtables()} to check the memtables. */
    private static final int WRITES_PER_BALANCE = 4096;

    private final SegmentedStoreSpec spec;
    private final long retentionMs;
    private final long segmentIntervalMs;
    private final TreeMap<Long, Segment> segments = new TreeMap<>();
    private final Set<MergedSegmentIterator> openIterators = new HashSet<>();
    private File storeDir;
    private StateStoreContext context;
    private Position position = Position.emptyPosition();
    private boolean consistencyEnabled;
    private boolean exactlyOnce;
    private int writesUntilBalance = WRITES_PER_BALANCE;
    private long streamTime = NO_STREAM_TIME;
    private volatile boolean open;

    public SegmentedKeyValueStore(SegmentedStoreSpec spec) {
        this.spec = Objects.requireNonNull(spec, "spec");
        this.retentionMs = spec.retentionMs();
        this.segmentIntervalMs = spec.segmentIntervalMs();
    }

    // ---------------------------------------------------------------------------------------
    // Lifecycle

    @Override
    public String name() {
        return spec.name();
    }

    @Override
    public synchronized void init(StateStoreContext context, StateStore root) {
        this.context = context;
        this.storeDir = new File(context.stateDir(), spec.name());
        if (!storeDir.isDirectory() && !storeDir.mkdirs()) {
            throw new ProcessorStateException("cannot create the directory " + storeDir + " of store " + name());
        }
        streamTime = readStreamTime();
        position = readPosition();
        exactlyOnce = StreamsConfig.EXACTLY_ONCE_V2.equals(
                String.valueOf(context.appConfigs().get(StreamsConfig.PROCESSING_GUARANTEE_CONFIG)));
        consistencyEnabled = StreamsConfig.InternalConfig.getBoolean(context.appConfigs(),
                StreamsConfig.InternalConfig.IQ_CONSISTENCY_OFFSET_VECTOR_ENABLED, false);
        List<Long> existing = existingSegmentIds();
        long newest = existing.isEmpty() ? -1 : existing.get(existing.size() - 1);
        try {
            for (long id : existing) {
                segments.put(id, Segment.open(name(), id, segmentDir(id), id == newest));
            }
        } catch (RuntimeException e) {
            segments.values().forEach(Segment::close);
            segments.clear();
            throw e;
        }
        open = true;
        dropExpiredSegments();
        context.register(root, new RestoreCallback());
        LOG.debug("Opened store {} in {}: {} segments, stream time {}", name(), storeDir, segments.size(),
                streamTime == NO_STREAM_TIME ? "unknown" : streamTime);
    }

    @Override
    public boolean persistent() {
        return true;
    }

    @Override
    public boolean isOpen() {
        return open;
    }

    /**
     * Kafka Streams calls this on every commit. At least once, it makes the store durable ({@link #persist}),
     * because Kafka Streams may write its checkpoint right after. Exactly once, it does nothing: Kafka Streams
     * then writes a checkpoint only when the store closes (and deletes it when the store opens, so a crash
     * means a restore from the changelog), and {@link #close} persists first. Flushing every segment's
     * memtable on every commit wrote a small SST file per segment per commit: the end-to-end benchmark
     * measured that as a flush storm (docs/benchmarks.md).
     */
    @Override
    public synchronized void commit(Map<TopicPartition, Long> changelogOffsets) {
        if (open && !exactlyOnce) {
            persist();
        }
    }

    /** Flushes every segment's memtables, then writes stream time and the query position. */
    private void persist() {
        segments.values().forEach(Segment::flush);
        if (streamTime != NO_STREAM_TIME) {
            writeAtomically(STREAM_TIME_FILE, Long.toString(streamTime));
        }
        try {
            StoreQueryUtils.checkpointPosition(new OffsetCheckpoint(new File(storeDir, POSITION_FILE)), position);
        } catch (RuntimeException e) {
            throw new ProcessorStateException("cannot write the position of store " + name(), e);
        }
    }

    /** The same as {@link #commit}, for callers of the older API. */
    @Override
    @Deprecated
    public void flush() {
        commit(Map.of());
    }

    @Override
    public synchronized void close() {
        if (!open) {
            return;
        }
        try {
            persist(); // if it fails, the exception reaches Kafka Streams, which then writes no checkpoint
        } finally {
            open = false;
            for (MergedSegmentIterator iterator : openIterators) {
                iterator.closeWithStore();
            }
            openIterators.clear();
            segments.values().forEach(Segment::close);
            segments.clear();
        }
    }

    // ---------------------------------------------------------------------------------------
    // Writes

    /**
     * Writes a row, or deletes it when {@code value} is null. An expired row is dropped silently.
     *
     * @throws IllegalArgumentException if the key does not end with a 19-digit reversed timestamp
     */
    @Override
    public synchronized void put(Bytes key, byte[] value) {
        Objects.requireNonNull(key, "key");
        validateOpen();
        putRow(key.get(), value);
        StoreQueryUtils.updatePosition(position, context);
    }

    @Override
    public synchronized byte[] putIfAbsent(Bytes key, byte[] value) {
        byte[] previous = get(key);
        if (previous == null) {
            put(key, value);
        }
        return previous;
    }

    @Override
    public synchronized void putAll(List<KeyValue<Bytes, byte[]>> entries) {
        for (KeyValue<Bytes, byte[]> entry : entries) {
            put(entry.key, entry.value);
        }
    }

    @Override
    public synchronized byte[] delete(Bytes key) {
        byte[] previous = get(key);
        put(key, null);
        return previous;
    }

    private void putRow(byte[] key, byte[] value) {
        long timestamp = timestampOf(key);
        if (isExpired(timestamp)) {
            return;
        }
        long id = segmentId(timestamp);
        if (value == null) {
            Segment segment = segments.get(id);
            if (segment != null) {
                segment.delete(key);
            }
            return;
        }
        segmentForWrite(id).put(key, value);
        if (--writesUntilBalance == 0) {
            writesUntilBalance = WRITES_PER_BALANCE;
            RocksDbMemory.balanceMemtables();
        }
        if (timestamp > streamTime) {
            streamTime = timestamp;
            dropExpiredSegments();
        }
    }

    private Segment segmentForWrite(long id) {
        Segment segment = segments.get(id);
        if (segment != null) {
            return segment;
        }
        Map.Entry<Long, Segment> newest = segments.lastEntry();
        boolean hot = newest == null || id > newest.getKey();
        segment = Segment.open(name(), id, segmentDir(id), hot);
        segments.put(id, segment);
        return segment;
    }

    private void dropExpiredSegments() {
        if (streamTime == NO_STREAM_TIME) {
            return;
        }
        // A segment's span [id * interval, (id + 1) * interval) is all expired when its end is at or
        // before the expiry limit, that is when id < floor(limit / interval).
        long firstLive = Math.floorDiv(streamTime - retentionMs, segmentIntervalMs);
        Map<Long, Segment> expired = segments.headMap(firstLive, false);
        for (Segment segment : new ArrayList<>(expired.values())) {
            for (MergedSegmentIterator iterator : openIterators) {
                iterator.segmentDropped(segment.id);
            }
            segment.close();
            segments.remove(segment.id);
            try {
                Utils.delete(segment.dir);
            } catch (IOException e) {
                throw new ProcessorStateException("cannot delete the directory " + segment.dir + " of expired segment "
                        + segment.id + " of store " + name(), e);
            }
            LOG.info("Dropped expired segment {} of store {} (stream time {})", segment.id, name(), streamTime);
        }
    }

    // ---------------------------------------------------------------------------------------
    // Reads

    /** @throws IllegalArgumentException if the key does not end with a 19-digit reversed timestamp */
    @Override
    public synchronized byte[] get(Bytes key) {
        Objects.requireNonNull(key, "key");
        validateOpen();
        long timestamp = timestampOf(key.get());
        if (isExpired(timestamp)) {
            return null;
        }
        Segment segment = segments.get(segmentId(timestamp));
        return segment == null ? null : segment.get(key.get());
    }

    @Override
    public synchronized KeyValueIterator<Bytes, byte[]> range(Bytes from, Bytes to) {
        return boundedRange(from, to, false);
    }

    @Override
    public synchronized KeyValueIterator<Bytes, byte[]> reverseRange(Bytes from, Bytes to) {
        return boundedRange(from, to, true);
    }

    @Override
    public synchronized KeyValueIterator<Bytes, byte[]> all() {
        return iterator(null, null, false);
    }

    @Override
    public synchronized KeyValueIterator<Bytes, byte[]> reverseAll() {
        return iterator(null, null, true);
    }

    @Override
    public synchronized <PS extends Serializer<P>, P> KeyValueIterator<Bytes, byte[]> prefixScan(P prefix, PS prefixKeySerializer) {
        Objects.requireNonNull(prefix, "prefix");
        Objects.requireNonNull(prefixKeySerializer, "prefixKeySerializer");
        byte[] lower = prefixKeySerializer.serialize(null, prefix);
        return iterator(lower, lower.length == 0 ? null : successorOfPrefix(lower), false);
    }

    /** Sum of RocksDB's key estimates over the live segments; may count expired rows not yet dropped. */
    @Override
    public synchronized long approximateNumEntries() {
        validateOpen();
        long total = 0;
        for (Segment segment : segments.values()) {
            long estimate = segment.longProperty("rocksdb.estimate-num-keys");
            if (estimate < 0 || total + estimate < 0) {
                return Long.MAX_VALUE;
            }
            total += estimate;
        }
        return total;
    }

    /** Per live segment, oldest first: its span, estimated rows, bytes and compression. */
    public synchronized List<SegmentStatistics> segmentStatistics() {
        validateOpen();
        List<SegmentStatistics> statistics = new ArrayList<>(segments.size());
        for (Segment segment : segments.values()) {
            long start = segment.id * segmentIntervalMs;
            statistics.add(new SegmentStatistics(segment.id, start, start + segmentIntervalMs,
                    segment.longProperty("rocksdb.estimate-num-keys"),
                    segment.longProperty("rocksdb.live-sst-files-size"),
                    segment.longProperty("rocksdb.cur-size-all-mem-tables"),
                    segment.compression(), segment.bottommostCompression()));
        }
        return statistics;
    }

    /** The largest timestamp put or restored so far, if any. */
    public synchronized OptionalLong streamTime() {
        return streamTime == NO_STREAM_TIME ? OptionalLong.empty() : OptionalLong.of(streamTime);
    }

    public SegmentedStoreSpec spec() {
        return spec;
    }

    @Override
    public synchronized <R> QueryResult<R> query(Query<R> query, PositionBound positionBound, QueryConfig config) {
        return StoreQueryUtils.handleBasicQueries(query, positionBound, config, this, position, context);
    }

    @Override
    public synchronized Position getPosition() {
        return position;
    }

    private KeyValueIterator<Bytes, byte[]> boundedRange(Bytes from, Bytes to, boolean reverse) {
        if (from != null && to != null && from.compareTo(to) > 0) {
            LOG.warn("Returning an empty iterator for a range of store {} whose from key is after its to key; "
                    + "check the order of the bounds", name());
            return iterator(new byte[0], new byte[0], reverse);
        }
        // The smallest key after `to` is `to` followed by 0x00: the inclusive bound made exclusive.
        byte[] upper = to == null ? null : Arrays.copyOf(to.get(), to.get().length + 1);
        return iterator(from == null ? null : from.get(), upper, reverse);
    }

    private KeyValueIterator<Bytes, byte[]> iterator(byte[] lower, byte[] upperExclusive, boolean reverse) {
        validateOpen();
        List<Segment> live = lower != null && upperExclusive != null && Arrays.compareUnsigned(lower, upperExclusive) >= 0
                ? List.of()
                : new ArrayList<>(segments.values());
        MergedSegmentIterator iterator = new MergedSegmentIterator(this, live, lower, upperExclusive, reverse);
        openIterators.add(iterator);
        return iterator;
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
    // Time

    synchronized boolean isExpiredKey(byte[] key) {
        return isExpired(timestampOf(key));
    }

    void iteratorClosed(MergedSegmentIterator iterator) {
        openIterators.remove(iterator);
    }

    private boolean isExpired(long timestamp) {
        return streamTime != NO_STREAM_TIME && timestamp < streamTime - retentionMs;
    }

    private long segmentId(long timestamp) {
        return timestamp / segmentIntervalMs;
    }

    /** The epoch millis of a key (see {@link RowKey#timestampOf}); a key that has none is refused, naming the key. */
    static long timestampOf(byte[] key) {
        try {
            return RowKey.timestampOf(key);
        } catch (MalformedKeyException e) {
            throw new IllegalArgumentException("key '" + printable(key) + "' does not end with a valid "
                    + RowKey.TIMESTAMP_DIGITS + "-digit reversed timestamp (see RowKey): " + e.getMessage(), e);
        }
    }

    private static String printable(byte[] key) {
        StringBuilder out = new StringBuilder(key.length);
        for (byte b : key) {
            int u = b & 0xFF;
            if (u >= 0x20 && u < 0x7F && u != '\\') {
                out.append((char) u);
            } else {
                out.append(String.format("\\x%02X", u));
            }
        }
        return out.toString();
    }

    private void validateOpen() {
        if (!open) {
            throw new InvalidStateStoreException("store " + name() + " is not open");
        }
    }

    // ---------------------------------------------------------------------------------------
    // Files

    private File segmentDir(long id) {
        return new File(storeDir, Long.toString(id));
    }

    private List<Long> existingSegmentIds() {
        File[] children = storeDir.listFiles(file -> file.isDirectory() && file.getName().matches("[0-9]{1,18}"));
        List<Long> ids = new ArrayList<>();
        if (children != null) {
            for (File child : children) {
                ids.add(Long.parseLong(child.getName()));
            }
        }
        ids.sort(null);
        return ids;
    }

    private long readStreamTime() {
        Path file = storeDir.toPath().resolve(STREAM_TIME_FILE);
        try {
            String text = Files.readString(file, StandardCharsets.US_ASCII).trim();
            return Long.parseLong(text);
        } catch (NoSuchFileException e) {
            return NO_STREAM_TIME;
        } catch (IOException | NumberFormatException e) {
            throw new ProcessorStateException("cannot read the stream time of store " + name() + " from " + file
                    + "; delete the store's directory to rebuild it from the changelog", e);
        }
    }

    private Position readPosition() {
        try {
            return StoreQueryUtils.readPositionFromCheckpoint(new OffsetCheckpoint(new File(storeDir, POSITION_FILE)));
        } catch (RuntimeException e) {
            throw new ProcessorStateException("cannot read the position of store " + name(), e);
        }
    }

    private void writeAtomically(String fileName, String content) {
        Path target = storeDir.toPath().resolve(fileName);
        Path temporary = storeDir.toPath().resolve(fileName + ".tmp");
        try {
            Files.writeString(temporary, content, StandardCharsets.US_ASCII);
            Files.move(temporary, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new ProcessorStateException("cannot write " + target + " of store " + name(), e);
        }
    }

    /** Restores through the put path, so expired rows are skipped and stream time advances as when processing. */
    private final class RestoreCallback implements RecordBatchingStateRestoreCallback {

        @Override
        public void restoreBatch(Collection<ConsumerRecord<byte[], byte[]>> records) {
            synchronized (SegmentedKeyValueStore.this) {
                for (ConsumerRecord<byte[], byte[]> record : records) {
                    ChangelogRecordDeserializationHelper.applyChecksAndUpdatePosition(record, consistencyEnabled, position);
                    putRow(record.key(), record.value());
                }
            }
        }

        @Override
        public void restoreAll(Collection<KeyValue<byte[], byte[]>> records) {
            synchronized (SegmentedKeyValueStore.this) {
                for (KeyValue<byte[], byte[]> record : records) {
                    putRow(record.key, record.value);
                }
            }
        }
    }
}
