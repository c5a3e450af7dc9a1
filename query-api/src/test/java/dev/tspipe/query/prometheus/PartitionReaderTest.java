package dev.tspipe.query.prometheus;

import dev.tspipe.processor.keys.KeyLayout;
import dev.tspipe.processor.keys.RowKey;
import dev.tspipe.processor.keys.SeriesId;
import dev.tspipe.processor.rows.LatestReading;
import dev.tspipe.processor.rows.RawRow;
import dev.tspipe.processor.store.StoreNames;
import dev.tspipe.query.SeriesReader;
import dev.tspipe.query.promql.Expr.MatchOp;
import dev.tspipe.query.promql.Expr.Matcher;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;
import org.junit.jupiter.api.Test;

import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;

class PartitionReaderTest {

    private static final Matcher ANY_NAME = new Matcher("__name__", MatchOp.REGEX, ".+");

    @Test
    void anUnanchoredSelectorReadsOnlyTheAskingTenantsRows() {
        CountingStore latest = twoTenants(KeyLayout.MULTI_TENANT);
        PartitionReader reader = new PartitionReader(KeyLayout.MULTI_TENANT, new SeriesReader(KeyLayout.MULTI_TENANT));

        PartitionSeries bound = reader.series(latest.stores(), new SeriesSelection(List.of(ANY_NAME), "globex"), 0);

        assertThat(bound.series()).hasSize(100).allMatch(one -> one.series().tenant().equals("globex"));
        assertThat(latest.rowsRead).isEqualTo(100);

        latest.rowsRead = 0;
        PartitionSeries named = reader.series(latest.stores(),
                new SeriesSelection(List.of(ANY_NAME, new Matcher("tenant", MatchOp.EQUAL, "globex")), null), 0);
        assertThat(named.series()).hasSize(100);
        assertThat(latest.rowsRead).isEqualTo(100);
    }

    @Test
    void saltedKeysStillAnswerTheTenantsSeriesOnly() {
        KeyLayout salted = new KeyLayout(true, true);
        CountingStore latest = twoTenants(salted);
        PartitionReader reader = new PartitionReader(salted, new SeriesReader(salted));

        PartitionSeries answer = reader.series(latest.stores(), new SeriesSelection(List.of(ANY_NAME), "globex"), 0);

        assertThat(answer.series()).hasSize(100).allMatch(one -> one.series().tenant().equals("globex"));
    }

    /** A latest store with 2,200 series of acme, 100 of globex, and 100 of a tenant ordered after both. */
    private static CountingStore twoTenants(KeyLayout layout) {
        CountingStore latest = new CountingStore();
        for (int i = 0; i < 2_200; i++) {
            latest.put(layout, SeriesId.of("acme", "acme-pad-" + i, "temperature"));
        }
        for (int i = 0; i < 100; i++) {
            latest.put(layout, SeriesId.of("globex", "globex-pad-" + i, "temperature"));
            latest.put(layout, SeriesId.of("globexx", "globexx-pad-" + i, "temperature"));
        }
        return latest;
    }

    /** A latest-reading store in a sorted map that counts the rows its iterators hand out. */
    private static final class CountingStore implements ReadOnlyKeyValueStore<Bytes, byte[]> {
        private final NavigableMap<Bytes, byte[]> rows = new TreeMap<>();
        long rowsRead;

        void put(KeyLayout layout, SeriesId series) {
            rows.put(Bytes.wrap(RowKey.seriesPrefix(layout, series)), new LatestReading(1_000, new RawRow(1.0, Map.of())).toBytes());
        }

        SeriesReader.Stores stores() {
            return name -> {
                assertThat(name).isEqualTo(StoreNames.LATEST);
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
                    rowsRead++;
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
}
