package dev.tspipe.query.series;

import dev.tspipe.model.keys.KeyLayout;
import dev.tspipe.model.keys.KeyRange;
import dev.tspipe.model.keys.RowKey;
import dev.tspipe.model.keys.SeriesId;
import dev.tspipe.model.rows.LatestReading;
import dev.tspipe.processor.store.StoreNames;
import dev.tspipe.query.downsample.Aggregate;
import dev.tspipe.query.downsample.Resolution;
import dev.tspipe.query.promql.SeriesSource;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;

import java.util.List;
import java.util.Optional;

/**
 * The PromQL engine's {@link SeriesSource} over one copy of a partition's stores: the series come from the
 * latest-reading store (one key per series), their values from the raw or rollup store a resolution names.
 */
public final class StoreSeriesSource implements SeriesSource {

    private final KeyLayout layout;
    private final SeriesReader reader;
    private final SeriesReader.Stores stores;

    public StoreSeriesSource(KeyLayout layout, SeriesReader reader, SeriesReader.Stores stores) {
        this.layout = layout;
        this.reader = reader;
        this.stores = stores;
    }

    @Override
    public void forEachSeries(Optional<KeyRange> range, SeriesVisitor visitor) {
        ReadOnlyKeyValueStore<Bytes, byte[]> latest = stores.store(StoreNames.LATEST);
        try (KeyValueIterator<Bytes, byte[]> rows = range.isPresent()
                ? latest.range(Bytes.wrap(range.get().from()), Bytes.wrap(range.get().toExclusive())) : latest.all()) {
            while (rows.hasNext()) {
                KeyValue<Bytes, byte[]> row = rows.next();
                // Latest keys are series prefixes; with a timestamp appended they decode as row keys.
                SeriesId series = RowKey.fromBytes(RowKey.withTimestamp(row.key.get(), 0), layout).series();
                byte[] latestValue = row.value;
                visitor.visit(series, () -> LatestReading.fromBytes(latestValue).epochMillis());
            }
        }
    }

    @Override
    public List<Aggregate> aggregates(SeriesId series, long from, long to, Resolution source) {
        return reader.aggregates(stores, series, from, to, source, "step");
    }

    @Override
    public Aggregate readingBefore(SeriesId series, long time) {
        return reader.readingBefore(stores, series, time);
    }
}
