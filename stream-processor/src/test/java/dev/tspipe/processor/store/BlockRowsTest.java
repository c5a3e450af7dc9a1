package dev.tspipe.processor.store;

import dev.tspipe.model.keys.KeyLayout;
import dev.tspipe.model.keys.RowKey;
import dev.tspipe.model.keys.SeriesId;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

import static dev.tspipe.processor.store.BlockFixtures.SPAN;
import static dev.tspipe.processor.store.BlockFixtures.START;
import static org.assertj.core.api.Assertions.assertThat;

/** {@link BlockRows} against the rows themselves in a sorted map: the same rows for every range, either way. */
class BlockRowsTest {

    @Test
    void everyRangeGivesTheRowsOfItsReadingsEitherWay() {
        long seed = new SplittableRandom().nextLong();
        SplittableRandom random = new SplittableRandom(seed);
        List<byte[]> prefixes = BlockFixtures.prefixes();
        for (int round = 0; round < 200; round++) {
            BlockFixtures store = new BlockFixtures();
            for (int i = random.nextInt(0, 300); i > 0; i--) {
                store.add(prefixes.get(random.nextInt(prefixes.size())), START + random.nextLong(4 * SPAN), random.nextInt(-500, 500) / 10.0);
            }
            List<byte[]> keys = new ArrayList<>(store.rows.keySet());
            for (int query = 0; query < 20; query++) {
                byte[] lower = BlockFixtures.bound(random, keys, prefixes);
                byte[] upper = BlockFixtures.bound(random, keys, prefixes);
                long cutoff = random.nextBoolean() ? 0 : START + random.nextLong(4 * SPAN);
                for (boolean reverse : new boolean[] {false, true}) {
                    List<Map.Entry<byte[], byte[]>> want = new ArrayList<>(BlockFixtures.range(store.rows, lower, upper, reverse));
                    want.removeIf(row -> RowKey.timestampOf(row.getKey()) < cutoff);
                    List<Map.Entry<byte[], byte[]>> got = BlockFixtures.drain(BlockRows.of(store.source(), lower, upper, reverse, SPAN, cutoff));
                    assertThat(BlockFixtures.describe(got)).as("seed %d: [%s, %s) reverse %s cutoff %d", seed, BlockFixtures.printable(lower),
                            BlockFixtures.printable(upper), reverse, cutoff).isEqualTo(BlockFixtures.describe(want));
                }
            }
        }
    }

    @Test
    void aBoundInsideABlocksSpanFindsTheBlockPastIt() {
        byte[] prefix = RowKey.seriesPrefix(KeyLayout.DEFAULT, SeriesId.of("d1", "temperature"));
        BlockFixtures store = new BlockFixtures();
        store.add(prefix, START + 10, 1.5);
        store.add(prefix, START + 20, 2.5);
        store.add(prefix, START + 30, 3.5);
        // The block's key is that of START, above every reading's key: a range of the readings at 15..25 ms has no block key in it.
        byte[] lower = RowKey.withTimestamp(prefix, START + 25);
        byte[] upper = RowKey.withTimestamp(prefix, START + 15);
        assertThat(keys(BlockRows.of(store.source(), lower, upper, false, SPAN, 0))).containsExactly(RowKey.withTimestamp(prefix, START + 20));
        assertThat(keys(BlockRows.of(store.source(), lower, upper, true, SPAN, 0))).containsExactly(RowKey.withTimestamp(prefix, START + 20));
        assertThat(keys(BlockRows.of(store.source(), null, null, false, SPAN, START + 20)))
                .containsExactly(RowKey.withTimestamp(prefix, START + 30), RowKey.withTimestamp(prefix, START + 20));
    }

    private static List<byte[]> keys(BlockRows rows) {
        return BlockFixtures.drain(rows).stream().map(Map.Entry::getKey).toList();
    }
}
