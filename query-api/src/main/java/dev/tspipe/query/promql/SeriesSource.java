package dev.tspipe.query.promql;

import dev.tspipe.model.keys.KeyRange;
import dev.tspipe.model.keys.SeriesId;
import dev.tspipe.query.downsample.Aggregate;
import dev.tspipe.query.downsample.Resolution;

import java.util.List;
import java.util.Optional;
import java.util.function.LongSupplier;

/**
 * What the engine reads series through: one copy of one partition's tables, as Prometheus' engine reads through
 * {@code storage.Queryable}. The engine decides what to read (which keys, which resolution, which window); a source
 * only reads it. {@code series/StoreSeriesSource} reads Kafka Streams' stores; a test can read anything.
 */
public interface SeriesSource {

    /**
     * Receives a series and, read only when asked (after the selector matched: most rows of a scan do not), the
     * timestamp of its newest reading; may throw to stop the scan.
     */
    @FunctionalInterface
    interface SeriesVisitor {
        void visit(SeriesId series, LongSupplier newestMillis);
    }

    /** Every series whose key lies in {@code range} (every series of the partition when empty), in key order. */
    void forEachSeries(Optional<KeyRange> range, SeriesVisitor visitor);

    /** The series' readings, or its rollup buckets of {@code source}, of {@code [from, to)} in ascending time. */
    List<Aggregate> aggregates(SeriesId series, long from, long to, Resolution source);

    /** The series' last reading before {@code time}, or null. */
    Aggregate readingBefore(SeriesId series, long time);
}
