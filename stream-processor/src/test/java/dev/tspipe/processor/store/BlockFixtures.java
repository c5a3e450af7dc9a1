package dev.tspipe.processor.store;

import dev.tspipe.model.blocks.ChunkWriter;
import dev.tspipe.model.keys.KeyLayout;
import dev.tspipe.model.keys.RowKey;
import dev.tspipe.model.keys.SeriesId;
import dev.tspipe.model.rows.RawRow;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.state.KeyValueIterator;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.SplittableRandom;
import java.util.TreeMap;

/** Blocks in a sorted map, as the store's raw table will hold them, with the rows they stand for: for the block views' tests. */
final class BlockFixtures {

    static final long SPAN = 3_600_000;
    static final long START = 1_764_547_200_000L; // 2025-12-01T00:00Z
    static final Comparator<byte[]> UNSIGNED = Arrays::compareUnsigned;

    /** Blocks by key, each the chunks of its readings one after the other. */
    final TreeMap<byte[], byte[]> blocks = new TreeMap<>(UNSIGNED);
    /** The rows of the readings, by row key. */
    final TreeMap<byte[], byte[]> rows = new TreeMap<>(UNSIGNED);

    /** Series prefixes whose devices are prefixes of one another and need escaping. */
    static List<byte[]> prefixes() {
        List<byte[]> prefixes = new ArrayList<>();
        for (String device : new String[] {"d", "d1", "d#2", "e"}) {
            for (String metric : new String[] {"t", "temp"}) {
                prefixes.add(RowKey.seriesPrefix(KeyLayout.DEFAULT, SeriesId.of(device, metric)));
            }
        }
        return prefixes;
    }

    /** One reading: appended to its block as a chunk of its own (so later ones replace earlier ones), and its row. */
    void add(byte[] prefix, long timestamp, double value) {
        long start = BlockRows.blockStart(timestamp, SPAN);
        byte[] row = new RawRow(value, Map.of("unit", value > 0 ? "°C" : "K")).toBytes();
        ChunkWriter writer = new ChunkWriter().start(start);
        writer.add(timestamp, value, row, 8, row.length - 8);
        byte[] chunk = writer.toChunk();
        blocks.merge(RowKey.withTimestamp(prefix, start), chunk, (a, b) -> {
            byte[] both = Arrays.copyOf(a, a.length + b.length);
            System.arraycopy(b, 0, both, a.length, b.length);
            return both;
        });
        rows.put(RowKey.withTimestamp(prefix, timestamp), row);
    }

    BlockRows.BlockSource source() {
        return (lower, upper, reverse) -> iterator(range(blocks, lower, upper, reverse));
    }

    /** The entries of {@code map} in {@code [lower, upper)} (null: unbounded), in order or reversed; empty when lower >= upper. */
    static List<Map.Entry<byte[], byte[]>> range(TreeMap<byte[], byte[]> map, byte[] lower, byte[] upper, boolean reverse) {
        if (lower != null && upper != null && Arrays.compareUnsigned(lower, upper) >= 0) {
            return List.of();
        }
        NavigableMap<byte[], byte[]> view = map;
        if (lower != null) {
            view = view.tailMap(lower, true);
        }
        if (upper != null) {
            view = view.headMap(upper, false);
        }
        List<Map.Entry<byte[], byte[]>> entries = new ArrayList<>(view.entrySet());
        if (reverse) {
            Collections.reverse(entries);
        }
        return entries;
    }

    /** A bound: none, a stored key, a key between readings, a series prefix or just past one, a cut key, or some bytes. */
    static byte[] bound(SplittableRandom random, List<byte[]> keys, List<byte[]> prefixes) {
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

    /** Key and value pairs of an iterator, which it closes; checks {@code peekNextKey} on the way. */
    static List<Map.Entry<byte[], byte[]>> drain(KeyValueIterator<Bytes, byte[]> iterator) {
        List<Map.Entry<byte[], byte[]>> entries = new ArrayList<>();
        try (iterator) {
            while (iterator.hasNext()) {
                Bytes peeked = iterator.peekNextKey();
                KeyValue<Bytes, byte[]> next = iterator.next();
                if (!next.key.equals(peeked)) {
                    throw new AssertionError("peekNextKey gave " + printable(peeked.get()) + ", next " + printable(next.key.get()));
                }
                entries.add(Map.entry(next.key.get(), next.value));
            }
        }
        return entries;
    }

    static String printable(byte[] key) {
        return key == null ? "null" : new String(key, StandardCharsets.ISO_8859_1);
    }

    static String describe(List<Map.Entry<byte[], byte[]>> entries) {
        StringBuilder out = new StringBuilder();
        for (Map.Entry<byte[], byte[]> entry : entries) {
            out.append(printable(entry.getKey())).append('=').append(Arrays.toString(entry.getValue())).append('\n');
        }
        return out.toString();
    }

    private static KeyValueIterator<Bytes, byte[]> iterator(List<Map.Entry<byte[], byte[]>> entries) {
        Iterator<Map.Entry<byte[], byte[]>> it = entries.iterator();
        return new KeyValueIterator<>() {
            private Map.Entry<byte[], byte[]> peeked;

            @Override
            public boolean hasNext() {
                return peeked != null || it.hasNext();
            }

            @Override
            public KeyValue<Bytes, byte[]> next() {
                Map.Entry<byte[], byte[]> entry = peeked != null ? peeked : it.next();
                peeked = null;
                return KeyValue.pair(Bytes.wrap(entry.getKey()), entry.getValue());
            }

            @Override
            public Bytes peekNextKey() {
                if (peeked == null) {
                    peeked = it.next();
                }
                return Bytes.wrap(peeked.getKey());
            }

            @Override
            public void close() {
            }
        };
    }
}
