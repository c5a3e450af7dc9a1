package dev.tspipe.bench;

import dev.tspipe.model.keys.KeyLayout;
import dev.tspipe.model.keys.RowKey;
import dev.tspipe.model.keys.SeriesId;
import dev.tspipe.model.rows.Rollup;
import dev.tspipe.processor.store.RollupStep;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.infra.Blackhole;

import java.util.concurrent.TimeUnit;

/**
 * The codec work of a rollup update: the bucket's key from the series prefix, the stored counters decoded, the
 * reading added, the counters encoded again. That is what a bucket read back from the store costs (a late or
 * repeated reading); the series store updates the buckets it buffers in place and encodes them only to write them
 * (docs/storage.md, "The write path"). The store's reads and writes are measured end to end by the harness
 * (docs/benchmarks.md), not here.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class RollupBenchmark {

    /** 2023-11-14T22:13:20Z, the reading's time. */
    static final long TIMESTAMP = 1_700_000_000_000L;

    byte[] seriesPrefix;
    byte[] storedBucket;
    double value;
    long epochMillis;

    @Setup
    public void setUp() {
        seriesPrefix = RowKey.seriesPrefixOf(RowKey.encode(KeyLayout.DEFAULT, SeriesId.of("sensor-000123", "temperature"),
                TIMESTAMP));
        storedBucket = Rollup.of(20.5, TIMESTAMP - 30_000).add(19.0, TIMESTAMP - 20_000).toBytes();
        value = 21.25;
        epochMillis = TIMESTAMP;
    }

    /** One step: key of the 1-minute bucket, decode, add, encode. */
    @Benchmark
    public void updateOneStep(Blackhole out) {
        update(RollupStep.MINUTE, out);
    }

    /** All three steps (1m, 1h, 1d), as for one reading. */
    @Benchmark
    public void updateAllSteps(Blackhole out) {
        for (RollupStep step : RollupStep.values()) {
            update(step, out);
        }
    }

    private void update(RollupStep step, Blackhole out) {
        out.consume(bucketKey(step));
        out.consume(updatedBucket());
    }

    byte[] bucketKey(RollupStep step) {
        return RowKey.withTimestamp(seriesPrefix, step.bucketStart(epochMillis));
    }

    byte[] updatedBucket() {
        return Rollup.fromBytes(storedBucket).add(value, epochMillis).toBytes();
    }
}
