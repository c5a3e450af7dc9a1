package dev.tspipe.processor.store;

import dev.tspipe.model.keys.KeyLayout;
import dev.tspipe.model.keys.RowKey;
import dev.tspipe.model.keys.SeriesId;
import dev.tspipe.model.rows.RawRow;
import dev.tspipe.model.rows.Rollup;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;

import static dev.tspipe.processor.store.BlockFixtures.SPAN;
import static dev.tspipe.processor.store.BlockFixtures.START;
import static org.assertj.core.api.Assertions.assertThat;

/** {@link BlockBuckets} against buckets folded from the rows themselves: the same rollup rows for every range and resolution. */
class BlockBucketsTest {

    private static final long[] STEPS = {60_000, SPAN, 24 * SPAN, 7 * 60_000};

    @Test
    void everyRangeGivesTheBucketsOfItsReadingsEitherWay() {
        long seed = new SplittableRandom().nextLong();
        SplittableRandom random = new SplittableRandom(seed);
        List<byte[]> prefixes = BlockFixtures.prefixes();
        for (int round = 0; round < 150; round++) {
            BlockFixtures store = new BlockFixtures();
            long spread = random.nextBoolean() ? 4 * SPAN : 72 * SPAN;
            for (int i = random.nextInt(0, 300); i > 0; i--) {
                store.add(prefixes.get(random.nextInt(prefixes.size())), START + random.nextLong(spread), random.nextInt(-500, 500) / 10.0);
            }
            for (long step : STEPS) {
                TreeMap<byte[], byte[]> buckets = buckets(store.rows, step);
                List<byte[]> keys = new ArrayList<>(buckets.keySet());
                keys.addAll(store.rows.keySet());
                for (int query = 0; query < 10; query++) {
                    byte[] lower = BlockFixtures.bound(random, keys, prefixes);
                    byte[] upper = BlockFixtures.bound(random, keys, prefixes);
                    long cutoff = random.nextBoolean() ? 0 : START + random.nextLong(spread);
                    for (boolean reverse : new boolean[] {false, true}) {
                        List<Map.Entry<byte[], byte[]>> want = new ArrayList<>(BlockFixtures.range(buckets, lower, upper, reverse));
                        want.removeIf(bucket -> RowKey.timestampOf(bucket.getKey()) < cutoff);
                        List<Map.Entry<byte[], byte[]>> got = BlockFixtures.drain(
                                BlockBuckets.of(store.source(), lower, upper, reverse, SPAN, step, cutoff));
                        assertThat(BlockFixtures.describe(got)).as("seed %d: step %d [%s, %s) reverse %s cutoff %d", seed, step,
                                BlockFixtures.printable(lower), BlockFixtures.printable(upper), reverse, cutoff)
                                .isEqualTo(BlockFixtures.describe(want));
                    }
                }
            }
        }
    }

    @Test
    void aDayBucketWhoseOnlyReadingsAreBelowTheBoundIsFound() {
        // The day's key is that of its start; its one reading, late in the day, has a key below a bound inside the day.
        byte[] prefix = RowKey.seriesPrefix(KeyLayout.DEFAULT, SeriesId.of("d1", "temperature"));
        BlockFixtures store = new BlockFixtures();
        store.add(prefix, START + 23 * SPAN, 4.0);
        byte[] lower = RowKey.withTimestamp(prefix, START + 12 * SPAN);
        List<Map.Entry<byte[], byte[]>> got = BlockFixtures.drain(BlockBuckets.of(store.source(), lower, null, false, SPAN, 24 * SPAN, 0));
        assertThat(got).hasSize(1);
        assertThat(got.get(0).getKey()).isEqualTo(RowKey.withTimestamp(prefix, START));
        assertThat(Rollup.fromBytes(got.get(0).getValue())).isEqualTo(Rollup.of(4.0, START + 23 * SPAN));
    }

    @Test
    void theLatestTimeAtOrAboveAKeyIsFoundForAnyBytes() {
        byte[] series = RowKey.seriesPrefix(KeyLayout.DEFAULT, SeriesId.of("d", "t"));
        assertThat(BlockBuckets.ceilingTime(series, RowKey.withTimestamp(series, START))).isEqualTo(START);
        assertThat(BlockBuckets.ceilingTime(series, series)).isEqualTo(RowKey.MAX_EPOCH_MILLIS);
        byte[] cut = Arrays.copyOf(RowKey.withTimestamp(series, START), series.length + 10);
        long time = BlockBuckets.ceilingTime(series, cut);
        assertThat(Arrays.compareUnsigned(RowKey.withTimestamp(series, time), cut)).isGreaterThanOrEqualTo(0);
        assertThat(Arrays.compareUnsigned(RowKey.withTimestamp(series, time + 1), cut)).isLessThan(0);
        byte[] past = series.clone();
        past[past.length - 1]++;
        assertThat(BlockBuckets.ceilingTime(series, past)).isEqualTo(-1);
    }

    /** Buckets folded from rows: per series and bucket, the readings added oldest first. */
    private static TreeMap<byte[], byte[]> buckets(TreeMap<byte[], byte[]> rows, long step) {
        TreeMap<byte[], Rollup> folded = new TreeMap<>(BlockFixtures.UNSIGNED);
        for (Map.Entry<byte[], byte[]> row : rows.descendingMap().entrySet()) {
            long time = RowKey.timestampOf(row.getKey());
            byte[] key = RowKey.withTimestamp(RowKey.seriesPrefixOf(row.getKey()), BlockRows.blockStart(time, step));
            double value = RawRow.valueOf(row.getValue());
            folded.merge(key, Rollup.of(value, time), (old, added) -> old.add(value, time));
        }
        TreeMap<byte[], byte[]> buckets = new TreeMap<>(BlockFixtures.UNSIGNED);
        folded.forEach((key, rollup) -> buckets.put(key, rollup.toBytes()));
        return buckets;
    }
}
