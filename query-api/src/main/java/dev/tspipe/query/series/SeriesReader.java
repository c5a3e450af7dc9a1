package dev.tspipe.query.series;

import dev.tspipe.query.error.ApiException;
import dev.tspipe.model.keys.KeyLayout;
import dev.tspipe.model.keys.KeyRange;
import dev.tspipe.model.keys.RowKey;
import dev.tspipe.model.keys.SeriesId;
import dev.tspipe.model.rows.LatestReading;
import dev.tspipe.model.rows.RawRow;
import dev.tspipe.model.rows.Rollup;
import dev.tspipe.processor.store.RollupStep;
import dev.tspipe.processor.store.StoreNames;
import dev.tspipe.query.downsample.Aggregate;
import dev.tspipe.query.downsample.Downsampler;
import dev.tspipe.query.downsample.Resolution;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Optional;
import java.util.function.BiFunction;

/**
 * Reads a series from the stores of one partition (local, active or standby): pure store logic,
 * no routing and no HTTP. Every read is a range scan of the row keys of {@link RowKey}: forward
 * for newest first (reversed timestamps), reverse for oldest first.
 */
public final class SeriesReader {

    /** The most metrics a device's answer lists (docs/security.md, "Limits"); past it the answer says {@code truncated}. */
    public static final int MAX_DEVICE_METRICS = 10_000;

    /** The stores of the partition that owns the series. */
    @FunctionalInterface
    public interface Stores {
        ReadOnlyKeyValueStore<Bytes, byte[]> store(String name);
    }

    private final KeyLayout layout;

    public SeriesReader(KeyLayout layout) {
        this.layout = layout;
    }

    public Answers.ReadingsPage readings(Stores stores, PageRequest request) {
        Page<Answers.Reading> page = page(stores.store(StoreNames.RAW), request,
                (timestamp, value) -> Answers.Reading.of(timestamp, RawRow.fromBytes(value)));
        requireKnownSeries(stores, request, page);
        SeriesId series = request.series();
        return new Answers.ReadingsPage(series.tenant(), series.device(), series.metric(), request.window().from(),
                request.window().to(), request.order().label(), page.rows, page.nextCursor);
    }

    public Answers.RollupsPage rollups(Stores stores, RollupStep step, PageRequest request) {
        Page<Answers.Bucket> page = page(stores.store(StoreNames.rollup(step)), request,
                (start, value) -> Answers.Bucket.of(start, Rollup.fromBytes(value)));
        requireKnownSeries(stores, request, page);
        SeriesId series = request.series();
        return new Answers.RollupsPage(series.tenant(), series.device(), series.metric(), step.label(),
                request.window().from(), request.window().to(), request.order().label(), page.rows, page.nextCursor);
    }

    /** The most raw readings one downsampled answer reads (docs/query-api.md, "Downsampling"). */
    public static final long MAX_DOWNSAMPLE_RAW_ROWS = 2_000_000;

    /**
     * A downsampled series, from {@code source}: the rows of the window in ascending time, merged into buckets.
     * A raw source with more than {@value #MAX_DOWNSAMPLE_RAW_ROWS} readings in the window is a 400.
     */
    public Answers.Downsampled downsample(Stores stores, SeriesId series, Downsampler.Request request, Resolution source) {
        List<Downsampler.Point> points;
        boolean empty;
        // Streamed into the buckets: up to MAX_DOWNSAMPLE_RAW_ROWS readings are never held at once.
        try (Scan scan = new Scan(stores, series, request.from(), request.to(), source, "step")) {
            empty = !scan.hasNext();
            points = Downsampler.points(request, scan);
        }
        if (empty && latest(stores, series).isEmpty()) {
            throw unknownSeries(series);
        }
        return new Answers.Downsampled(series.tenant(), series.device(), series.metric(), request.from(), request.to(),
                request.step(), request.align(), request.fn().label(), request.fill().label(), source.label(), points);
    }

    /**
     * The series' readings, or its rollup buckets of {@code source}, of {@code [from, to)} in ascending time; more than
     * {@value #MAX_DOWNSAMPLE_RAW_ROWS} rows is a 400 on {@code parameter} (what makes the read that fine).
     */
    public List<Aggregate> aggregates(Stores stores, SeriesId series, long from, long to, Resolution source,
                                      String parameter) {
        List<Aggregate> aggregates = new ArrayList<>();
        try (Scan scan = new Scan(stores, series, from, to, source, parameter)) {
            scan.forEachRemaining(aggregates::add);
        }
        return aggregates;
    }

    /** The rows of a series' window in ascending time, each as an {@link Aggregate}; at most {@value #MAX_DOWNSAMPLE_RAW_ROWS}. */
    private final class Scan implements Iterator<Aggregate>, AutoCloseable {
        private final KeyValueIterator<Bytes, byte[]> rows;
        private final Resolution source;
        private final String parameter;
        private long read;

        Scan(Stores stores, SeriesId series, long from, long to, Resolution source, String parameter) {
            KeyRange range = RowKey.seriesRange(layout, series, from, to);
            this.rows = from >= to ? null : stores.store(source.store())
                    .reverseRange(Bytes.wrap(range.from()), Bytes.wrap(range.toExclusive()));
            this.source = source;
            this.parameter = parameter;
        }

        @Override
        public boolean hasNext() {
            return rows != null && rows.hasNext();
        }

        @Override
        public Aggregate next() {
            KeyValue<Bytes, byte[]> row = rows.next();
            if (++read > MAX_DOWNSAMPLE_RAW_ROWS) {
                throw ApiException.badParameter(parameter, "the window holds more than " + MAX_DOWNSAMPLE_RAW_ROWS
                        + " readings and the step is read from them (" + source.label() + "); a step that is a "
                        + "multiple of 1m with from and to on whole minutes reads the 1-minute rollups instead");
            }
            long timestamp = RowKey.fromBytes(row.key.get(), layout).epochMillis();
            return source.rollup() == null ? Aggregate.reading(timestamp, RawRow.fromBytes(row.value).value())
                    : Aggregate.rollup(timestamp, Rollup.fromBytes(row.value));
        }

        @Override
        public void close() {
            if (rows != null) {
                rows.close();
            }
        }
    }

    /** The series' last reading before {@code time}, or null: one seek, the newest row of the range before it. */
    public Aggregate readingBefore(Stores stores, SeriesId series, long time) {
        if (time <= RowKey.MIN_EPOCH_MILLIS) {
            return null;
        }
        KeyRange range = RowKey.seriesRange(layout, series, RowKey.MIN_EPOCH_MILLIS, time);
        try (KeyValueIterator<Bytes, byte[]> scan = stores.store(StoreNames.RAW)
                .range(Bytes.wrap(range.from()), Bytes.wrap(range.toExclusive()))) {
            if (!scan.hasNext()) {
                return null;
            }
            KeyValue<Bytes, byte[]> row = scan.next();
            return Aggregate.reading(RowKey.fromBytes(row.key.get(), layout).epochMillis(), RawRow.fromBytes(row.value).value());
        }
    }

    public Optional<Answers.Latest> latest(Stores stores, SeriesId series) {
        byte[] value = stores.store(StoreNames.LATEST).get(Bytes.wrap(RowKey.seriesPrefix(layout, series)));
        if (value == null) {
            return Optional.empty();
        }
        LatestReading latest = LatestReading.fromBytes(value);
        return Optional.of(new Answers.Latest(series.tenant(), series.device(), series.metric(), latest.epochMillis(),
                latest.row().value(), latest.row().tags()));
    }

    /** The device's metrics with their newest readings: a scan of the latest store over the device's key range. */
    public Answers.DeviceMetrics deviceMetrics(Stores stores, String tenant, String device) {
        KeyRange range = RowKey.deviceRange(layout, tenant, device);
        List<Answers.DeviceMetric> metrics = new ArrayList<>();
        try (KeyValueIterator<Bytes, byte[]> rows = stores.store(StoreNames.LATEST)
                .range(Bytes.wrap(range.from()), Bytes.wrap(range.toExclusive()))) {
            while (rows.hasNext()) {
                if (metrics.size() == MAX_DEVICE_METRICS) {
                    // More than an answer holds: the first ones, in metric order, and the mark that there are more.
                    return new Answers.DeviceMetrics(tenant, device, metrics, Boolean.TRUE);
                }
                KeyValue<Bytes, byte[]> row = rows.next();
                // Latest keys are series prefixes; with a timestamp appended they decode as row keys.
                String metric = RowKey.fromBytes(RowKey.withTimestamp(row.key.get(), 0), layout).series().metric();
                metrics.add(Answers.DeviceMetric.of(metric, LatestReading.fromBytes(row.value)));
            }
        }
        return new Answers.DeviceMetrics(tenant, device, metrics);
    }

    private record Page<T>(List<T> rows, String nextCursor) {
    }

    private <T> Page<T> page(ReadOnlyKeyValueStore<Bytes, byte[]> store, PageRequest request,
                             BiFunction<Long, byte[], T> decode) {
        TimeWindow window = request.remaining();
        List<T> rows = new ArrayList<>();
        if (window.from() >= window.to()) {
            return new Page<>(rows, null);
        }
        // The range's end is one byte longer than any key of the series, so never stored: Kafka
        // Streams' inclusive upper bound then equals the range's exclusive one.
        KeyRange range = RowKey.seriesRange(layout, request.series(), window.from(), window.to());
        Bytes from = Bytes.wrap(range.from());
        Bytes to = Bytes.wrap(range.toExclusive());
        long lastTimestamp = -1;
        boolean more = false;
        try (KeyValueIterator<Bytes, byte[]> scan = request.order() == Order.DESC ? store.range(from, to) : store.reverseRange(from, to)) {
            while (scan.hasNext()) {
                KeyValue<Bytes, byte[]> row = scan.next();
                if (rows.size() == request.limit()) {
                    more = true;    // the limit+1st row: there is a next page
                    break;
                }
                lastTimestamp = RowKey.fromBytes(row.key.get(), layout).epochMillis();
                rows.add(decode.apply(lastTimestamp, row.value));
            }
        }
        return new Page<>(rows, more ? request.nextCursor(lastTimestamp) : null);
    }

    /** An empty first page of a series that has no latest reading either: the series is unknown. */
    private void requireKnownSeries(Stores stores, PageRequest request, Page<?> page) {
        if (page.rows.isEmpty() && request.cursor() == null && latest(stores, request.series()).isEmpty()) {
            throw unknownSeries(request.series());
        }
    }

    private static ApiException unknownSeries(SeriesId series) {
        return ApiException.notFound("unknown-series", "no series '" + series.metric() + "' of device '"
                + series.device() + "'" + (series.tenant() == null ? "" : " of tenant '"
                + series.tenant() + "'") + " is stored; check the names (GET /api/v1/devices/{device}/metrics lists a device's metrics)");
    }
}
