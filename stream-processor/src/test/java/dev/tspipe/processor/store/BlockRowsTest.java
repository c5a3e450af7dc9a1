package dev.tspipe.processor.store;

import dev.tspipe.model.blocks.ChunkWriter;
import dev.tspipe.model.keys.KeyLayout;
import dev.tspipe.model.keys.RowKey;
import dev.tspipe.model.keys.SeriesId;
import dev.tspipe.model.rows.RawRow;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.SplittableRandom;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;

/** {@link BlockRows} against the rows themselves in a sorted map: the same rows for every range, either way. */
class BlockRowsTest {

    private static final long SPAN = 3_600_000;
    private static final long START = 1_764_547_200_000L; // 2025-12-01T00:00Z

    private static final Comparator UNSIGNED = new Comparator();

    @Test
    void everyRangeGivesTheRowsOfItsReadingsEitherWay() {
        long seed = new SplittableRandom().nextLong();
        SplittableRandom random = new SplittableRandom(seed);
        try {
            for (int round = 0; round < 200; round++) {
                checkRound(random);
            }
        } catch (AssertionError | RuntimeException e) {
            throw new AssertionError("seed " + seed + ": " + e.getMessage(), e);
        }
    }

    @Test
    void aBoundInsideABlocksSpanFindsTheBlockPastIt() {
        byte[] prefix = RowKey.seriesPrefix(KeyLayout.DEFAULT, SeriesId.of("d1", "temperature"));
        TreeMap<byte[], byte[]> blocks = new TreeMap<>(UNSIGNED);
        TreeMap<byte[], byte[]> rows = new TreeMap<>(UNSIGNED);
        add(blocks, rows, prefix, START + 10, 1.5);
        add(blocks, rows, prefix, START + 20, 2.5);
        add(blocks, rows, prefix, START + 30, 3.5);
        // The block's key is that of START, above every reading's key: a range of the readings at 15..25 ms has no block key in it.
        byte[] lower = RowKey.withTimestamp(prefix, START + 25);
        byte[] upper = RowKey.withTimestamp(prefix, START + 15);
        assertThat(keys(BlockRows.of(source(blocks), lower, upper, false, SPAN, 0))).containsExactly(RowKey.withTimestamp(prefix, START + 20));
        assertThat(keys(BlockRows.of(source(blocks), lower, upper, true, SPAN, 0))).containsExactly(RowKey.withTimestamp(prefix, START + 20));
        assertThat(keys(BlockRows.of(source(blocks), null, null, false, SPAN, START + 20)))
                .containsExactly(RowKey.withTimestamp(prefix, START + 30), RowKey.withTimestamp(prefix, START + 20));
    }

    private static void checkRound(SplittableRandom random) {
        TreeMap<byte[], byte[]> blocks = new TreeMap<>(UNSIGNED);
        TreeMap<byte[], byte[]> rows = new TreeMap<>(UNSIGNED);
        List<byte[]> prefixes = new ArrayList<>();
        for (String device : new String[] {"d", "d1", "d#2", "e"}) {
            for (String metric : new String[] {"t", "temp"}) {
                prefixes.add(RowKey.seriesPrefix(KeyLayout.DEFAULT, SeriesId.of(device, metric)));
            }
        }
        int readings = random.nextInt(0, 300);
        for (int i = 0; i < readings; i++) {
            byte[] prefix = prefixes.get(random.nextInt(prefixes.size()));
            add(blocks, rows, prefix, START + random.nextLong(4 * SPAN), random.nextInt(-500, 500) / 10.0);
        }
        List<byte[]> keys = new ArrayList<>(rows.keySet());
        for (int query = 0; query < 20; query++) {
            byte[] lower = bound(random, keys, prefixes);
            byte[] upper = bound(random, keys, prefixes);
            long cutoff = random.nextBoolean() ? 0 : START + random.nextLong(4 * SPAN);
            List<KeyValue<byte[], byte[]>> expected = new ArrayList<>();
            if (lower == null || upper == null || Arrays.compareUnsigned(lower, upper) < 0) {
                NavigableMap<byte[], byte[]> view = rows;
                if (lower != null) {
                    view = view.tailMap(lower, true);
                }
                if (upper != null) {
                    view = view.headMap(upper, false);
                }
                view.forEach((k, v) -> {
                    if (RowKey.timestampOf(k) >= cutoff) {
                        expected.add(KeyValue.pair(k, v));
                    }
                });
            }
            for (boolean reverse : new boolean[] {false, true}) {
                List<KeyValue<byte[], byte[]>> want = new ArrayList<>(expected);
                if (reverse) {
                    Collections.reverse(want);
                }
                List<KeyValue<byte[], byte[]>> got = new ArrayList<>();
                try (BlockRows it = BlockRows.of(source(blocks), lower, upper, reverse, SPAN, cutoff)) {
                    while (it.hasNext()) {
                        byte[] peeked = it.peekNextKey().get();
                        KeyValue<Bytes, byte[]> row = it.next();
                        assertThat(row.key.get()).isEqualTo(peeked);
                        got.add(KeyValue.pair(row.key.get(), row.value));
                    }
                }
                assertThat(got).as("[%s, %s) reverse %s cutoff %d", printable(lower), printable(upper), reverse, cutoff)
                        .usingElementComparator((a, b) -> Arrays.equals(a.key, b.key) && Arrays.equals(a.value, b.value) ? 0 : 1)
                        .containsExactlyElementsOf(want);
            }
        }
    }

    /** A bound: none, a stored key, a key between readings, a series prefix or just past one, or some bytes. */
    private static byte[] bound(SplittableRandom random, List<byte[]> keys, List<byte[]> prefixes) {
        byte[] prefix = prefixes.get(random.nextInt(prefixes.size()));
        return switch (random.nextInt(7)) {
            case 0 -> null;
            case 1 -> keys.isEmpty() ? null : keys.get(random.nextInt(keys.size()));
            case 2 -> RowKey.withTimestamp(prefix, START + random.nextLong(4 * SPAN));
            case 3 -> prefix;
            case 4 -> {
                byte[] past = prefix.clone();
                past[past.length - 1]++;
                yield past;
            }
            case 5 -> Arrays.copyOf(RowKey.withTimestamp(prefix, START + random.nextLong(4 * SPAN)), prefix.length + random.nextInt(1, 19));
            default -> {
                byte[] bytes = new byte[random.nextInt(1, 6)];
                random.nextBytes(bytes);
                yield bytes;
            }
        };
    }

    /** One reading, as the store will keep it: appended as a chunk of its own to its block, and as the row it reads back as. */
    private static void add(TreeMap<byte[], byte[]> blocks, TreeMap<byte[], byte[]> rows, byte[] prefix, long timestamp, double value) {
        long start = BlockRows.blockStart(timestamp, SPAN);
        Map<String, String> tags = Map.of("unit", value > 0 ? "°C" : "K");
        byte[] row = new RawRow(value, tags).toBytes();
        ChunkWriter writer = new ChunkWriter().start(start);
        writer.add(timestamp, value, row, 8, row.length - 8);
        byte[] chunk = writer.toChunk();
        blocks.merge(RowKey.withTimestamp(prefix, start), chunk, BlockRowsTest::concat);
        rows.put(RowKey.withTimestamp(prefix, timestamp), row);
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] both = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, both, a.length, b.length);
        return both;
    }

    private static BlockRows.BlockSource source(TreeMap<byte[], byte[]> blocks) {
        return (lower, upper, reverse) -> {
            if (lower != null && upper != null && Arrays.compareUnsigned(lower, upper) >= 0) {
                return iterator(Collections.emptyIterator());
            }
            NavigableMap<byte[], byte[]> view = blocks;
            if (lower != null) {
                view = view.tailMap(lower, true);
            }
            if (upper != null) {
                view = view.headMap(upper, false);
            }
            return iterator((reverse ? view.descendingMap() : view).entrySet().iterator());
        };
    }

    private static KeyValueIterator<Bytes, byte[]> iterator(Iterator<Map.Entry<byte[], byte[]>> entries) {
        return new KeyValueIterator<>() {
            private Map.Entry<byte[], byte[]> peeked;

            @Override
            public boolean hasNext() {
                return peeked != null || entries.hasNext();
            }

            @Override
            public KeyValue<Bytes, byte[]> next() {
                Map.Entry<byte[], byte[]> entry = peeked != null ? peeked : entries.next();
                peeked = null;
                return KeyValue.pair(Bytes.wrap(entry.getKey()), entry.getValue());
            }

            @Override
            public Bytes peekNextKey() {
                if (peeked == null) {
                    peeked = entries.next();
                }
                return Bytes.wrap(peeked.getKey());
            }

            @Override
            public void close() {
            }
        };
    }

    private static List<byte[]> keys(BlockRows rows) {
        List<byte[]> keys = new ArrayList<>();
        try (rows) {
            rows.forEachRemaining(row -> keys.add(row.key.get()));
        }
        return keys;
    }

    private static String printable(byte[] key) {
        return key == null ? "null" : new String(key, java.nio.charset.StandardCharsets.ISO_8859_1);
    }

    private static final class Comparator implements java.util.Comparator<byte[]> {
        @Override
        public int compare(byte[] a, byte[] b) {
            return Arrays.compareUnsigned(a, b);
        }
    }
}
