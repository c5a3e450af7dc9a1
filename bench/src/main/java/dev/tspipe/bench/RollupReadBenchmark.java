package dev.tspipe.bench;

import dev.tspipe.model.keys.RowKey;
import dev.tspipe.model.rows.RawRow;
import dev.tspipe.processor.store.RollupStep;
import dev.tspipe.processor.store.SeriesStore;
import dev.tspipe.processor.store.SeriesStoreSpec;
import dev.tspipe.processor.store.Table;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.state.KeyValueIterator;

/**
 * The read of a series' hourly buckets while its readings are still in raw blocks (docs/storage.md, "Rollups from
 * blocks: the seal"): what a {@code rollups?step=1h} page costs its owner when no hour of the range is sealed yet, as
 * in the harness's 50,000,000-reading run (75 hours, about 67 readings per series and hour). One store, readings
 * ingested in time order with a flush every {@code --flush-every} readings; then pages of {@code --page} buckets of a
 * random series, newest first, on one thread; prints pages/s and readings folded per second per round.
 *
 * <pre>java -cp bench/target/benchmarks.jar dev.tspipe.bench.RollupReadBenchmark [--series S] [--hours H]
 *     [--per-hour N] [--flush-every R] [--page P] [--seconds T] [--rounds K] [--dir DIR]</pre>
 */
public final class RollupReadBenchmark {

    private static final long HOUR = 3_600_000;

    private RollupReadBenchmark() {
    }

    public static void main(String[] args) throws IOException {
        int seriesCount = 200;
        int hours = 75;
        int perHour = 67;
        int flushEvery = 20_000;
        int page = 100;
        double seconds = 3;
        int rounds = 5;
        Path dir = Path.of(System.getProperty("java.io.tmpdir"), "rollup-read-benchmark");
        for (int i = 0; i < args.length; i += 2) {
            String value = args[i + 1];
            switch (args[i]) {
                case "--series" -> seriesCount = Integer.parseInt(value);
                case "--hours" -> hours = Integer.parseInt(value);
                case "--per-hour" -> perHour = Integer.parseInt(value);
                case "--flush-every" -> flushEvery = Integer.parseInt(value);
                case "--page" -> page = Integer.parseInt(value);
                case "--seconds" -> seconds = Double.parseDouble(value);
                case "--rounds" -> rounds = Integer.parseInt(value);
                case "--dir" -> dir = Path.of(value);
                default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        SeriesStoreSpec spec = SeriesStoreSpec.of(Duration.ofDays(7), Duration.ofDays(1), Map.of(
                RollupStep.MINUTE, Duration.ofDays(30), RollupStep.HOUR, Duration.ofDays(400), RollupStep.DAY, Duration.ofDays(5 * 365 + 1)));
        deleteRecursively(dir);
        byte[][] prefixes = new byte[seriesCount][];
        for (int i = 0; i < seriesCount; i++) {
            prefixes[i] = String.format("%04x#device-%05d#metric-%d#", (i * 7919) & 0xFFFF, i / 5, i % 5).getBytes(StandardCharsets.UTF_8);
        }
        long end = System.currentTimeMillis() / HOUR * HOUR;
        long start = end - hours * HOUR;
        long interval = HOUR / perHour;
        Random random = new Random(42);
        byte[] row = new RawRow(21.5, Map.of("unit", "C")).toBytes();
        SeriesStore.Changelog none = (table, key, value, timestamp) -> { };
        try (SeriesStore store = SeriesStore.open(spec, dir.toFile())) {
            long ingested = 0;
            for (long t = start; t < end; t += interval) {
                for (byte[] prefix : prefixes) {
                    long millis = t + random.nextInt(100);
                    double value = 21.5 + random.nextInt(40) / 10.0;
                    byte[] bytes = row.clone();
                    java.nio.ByteBuffer.wrap(bytes).putDouble(0, value);
                    store.ingest(RowKey.withTimestamp(prefix, millis), millis, bytes, value);
                    if (++ingested % flushEvery == 0) {
                        flush(store, none);
                    }
                }
            }
            flush(store, none);
            System.out.printf("ingested %,d readings of %,d series over %d hours%n", ingested, seriesCount, hours);
            for (int round = 0; round < rounds; round++) {
                long pages = 0;
                long buckets = 0;
                long counted = 0;
                long began = System.nanoTime();
                long until = began + (long) (seconds * 1e9);
                while (System.nanoTime() < until) {
                    byte[] prefix = prefixes[random.nextInt(seriesCount)];
                    // Newest first from now: as the query API reads a page of a series' buckets.
                    byte[] lower = RowKey.withTimestamp(prefix, end + HOUR);
                    byte[] upper = RowKey.withTimestamp(prefix, start - 1);
                    try (KeyValueIterator<Bytes, byte[]> rows = store.range(Table.HOUR, lower, upper, false)) {
                        for (int i = 0; i < page && rows.hasNext(); i++) {
                            byte[] value = rows.next().value;
                            counted += value.length;
                            buckets++;
                        }
                    }
                    pages++;
                }
                double elapsed = (System.nanoTime() - began) / 1e9;
                System.out.printf("round %d: %,.0f pages/s, %.1f buckets a page, %,.0f readings folded/s (bytes %d)%n", round,
                        pages / elapsed, buckets / (double) pages, buckets * (double) perHour / elapsed, counted % 10);
            }
        }
        deleteRecursively(dir);
    }

    private static long commits;

    /** A commit: the flush, then the offsets reported, which applies it. */
    private static void flush(SeriesStore store, SeriesStore.Changelog changelog) {
        store.flush(changelog);
        commits++;
        for (Table table : Table.values()) {
            store.committed(table, commits, false);
        }
    }

    private static void deleteRecursively(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(dir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(path -> {
                try {
                    Files.delete(path);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        }
    }
}
