package dev.tspipe.query.promql;

import dev.tspipe.model.keys.KeyLayout;
import dev.tspipe.model.keys.RowKey;
import dev.tspipe.model.keys.SeriesId;
import dev.tspipe.model.rows.LatestReading;
import dev.tspipe.model.rows.RawRow;
import dev.tspipe.processor.store.StoreNames;
import dev.tspipe.query.series.SeriesReader;
import dev.tspipe.query.series.StoreSeriesSource;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;

import java.util.Iterator;
import java.util.Map;
import java.util.NavigableMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A partition's latest-reading store in a sorted map, for tests of the query side: it counts the rows its iterators
 * hand out and runs {@code onRow} for each (a test's clock can advance there, as if each read took time).
 */
public final class MemoryLatestStore implements ReadOnlyKeyValueStore<Bytes, byte[]> {

    private final NavigableMap<Bytes, byte[]> rows = new ConcurrentSkipListMap<>();
    private final AtomicLong rowsRead = new AtomicLong();
    private final Runnable onRow;

    public MemoryLatestStore() {
        this(() -> { });
    }

    public MemoryLatestStore(Runnable onRow) {
        this.onRow = onRow;
    }

    /** Stores {@code series} with a reading at {@code epochMillis}. */
    public void put(KeyLayout layout, SeriesId series, long epochMillis) {
        rows.put(Bytes.wrap(RowKey.seriesPrefix(layout, series)), new LatestReading(epochMillis, new RawRow(1.0, Map.of())).toBytes());
    }

    /** Stores {@code series} with a reading at 1 s past the epoch. */
    public void put(KeyLayout layout, SeriesId series) {
        put(layout, series, 1_000);
    }

    public long rowsRead() {
        return rowsRead.get();
    }

    public void resetRowsRead() {
        rowsRead.set(0);
    }

    /** The partition's stores: this one as the latest store; no other store is expected to be read. */
    /** The engine's source over this store, as the query server gives it one ({@link StoreSeriesSource}). */
    public SeriesSource source(KeyLayout layout) {
        return new StoreSeriesSource(layout, new SeriesReader(layout), stores());
    }

    public SeriesReader.Stores stores() {
        return name -> {
            if (!name.equals(StoreNames.LATEST)) {
                throw new AssertionError("read " + name + "; only the latest store is held");
            }
            return this;
        };
    }

    @Override
    public byte[] get(Bytes key) {
        return rows.get(key);
    }

    @Override
    public KeyValueIterator<Bytes, byte[]> range(Bytes from, Bytes to) {
        return counting(rows.subMap(from, true, to, false).entrySet().iterator());
    }

    @Override
    public KeyValueIterator<Bytes, byte[]> all() {
        return counting(rows.entrySet().iterator());
    }

    @Override
    public long approximateNumEntries() {
        return rows.size();
    }

    private KeyValueIterator<Bytes, byte[]> counting(Iterator<Map.Entry<Bytes, byte[]>> entries) {
        return new KeyValueIterator<>() {
            @Override
            public boolean hasNext() {
                return entries.hasNext();
            }

            @Override
            public KeyValue<Bytes, byte[]> next() {
                Map.Entry<Bytes, byte[]> entry = entries.next();
                rowsRead.incrementAndGet();
                onRow.run();
                return KeyValue.pair(entry.getKey(), entry.getValue());
            }

            @Override
            public void close() {
            }

            @Override
            public Bytes peekNextKey() {
                throw new UnsupportedOperationException();
            }
        };
    }
}
