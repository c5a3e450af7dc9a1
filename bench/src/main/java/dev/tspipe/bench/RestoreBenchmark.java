package dev.tspipe.bench;

import dev.tspipe.model.keys.RowKey;
import dev.tspipe.model.rows.RawRow;
import dev.tspipe.processor.store.RollupStep;
import dev.tspipe.processor.store.SeriesStore;
import dev.tspipe.processor.store.SeriesStoreSpec;
import dev.tspipe.processor.store.Table;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;
import org.apache.kafka.streams.KeyValue;

/**
 * The restore of one task's series store without Kafka: changelog records recorded from a catch-up-like
 * ingest (readings in event-time order across the series, a commit every {@code --commit-every} readings, as
 * the end-to-end harness's catch-up commits once a second) are fed straight into {@link SeriesStore#restore}
 * in batches of {@code --batch} records per table (the restore consumer's {@code max.poll.records}), the way
 * the state updater hands a poll to the store, with a commit report every {@code --commit-batches} batches
 * (Kafka Streams reports restoring stores' offsets every commit interval). Prints rows/s per round.
 *
 * <pre>java -cp bench/target/benchmarks.jar dev.tspipe.bench.RestoreBenchmark [--readings N] [--series S]
 *     [--commit-every R] [--batch B] [--commit-batches C] [--rounds K] [--dir DIR]</pre>
 */
public final class RestoreBenchmark {

    private static final long HOUR = 3_600_000;

    private RestoreBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        int readings = 600_000;
        int seriesCount = 2_500;
        int commitEvery = 20_000;
        int batch = 1_000;
        int commitBatches = 20;
        int rounds = 5;
        Path dir = Path.of(System.getProperty("java.io.tmpdir"), "restore-benchmark");
        for (int i = 0; i < args.length; i += 2) {
            String value = args[i + 1];
            switch (args[i]) {
                case "--readings" -> readings = Integer.parseInt(value);
                case "--series" -> seriesCount = Integer.parseInt(value);
                case "--commit-every" -> commitEvery = Integer.parseInt(value);
                case "--batch" -> batch = Integer.parseInt(value);
                case "--commit-batches" -> commitBatches = Integer.parseInt(value);
                case "--rounds" -> rounds = Integer.parseInt(value);
                case "--dir" -> dir = Path.of(value);
                default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        SeriesStoreSpec spec = SeriesStoreSpec.of(Duration.ofDays(7), Duration.ofDays(1), Map.of(
                RollupStep.MINUTE, Duration.ofDays(30), RollupStep.HOUR, Duration.ofDays(400), RollupStep.DAY, Duration.ofDays(5 * 365 + 1)));
        deleteRecursively(dir);
        Map<Table, List<KeyValue<byte[], byte[]>>> changelog = record(spec, dir.resolve("live"), readings, seriesCount, commitEvery);
        long records = changelog.values().stream().mapToLong(List::size).sum();
        System.out.printf("recorded %,d changelog records from %,d readings of %,d series:", records, readings, seriesCount);
        changelog.forEach((table, list) -> System.out.printf(" %s %,d", table.storeName(), list.size()));
        System.out.println();
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        com.sun.management.OperatingSystemMXBean os = (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        for (int round = 0; round < rounds; round++) {
            Path target = dir.resolve("restore-" + round);
            long rowsBefore = SeriesStore.rowsRestored();
            long supersededBefore = supersededRows();
            long start = System.nanoTime();
            long threadCpuStart = threads.getCurrentThreadCpuTime();
            long processCpuStart = os.getProcessCpuTime();
            long restored;
            try (SeriesStore store = SeriesStore.open(spec, target.toFile())) {
                restore(store, changelog, batch, commitBatches);
                restored = System.nanoTime();
            }
            long elapsed = System.nanoTime() - start;
            double threadCpu = (threads.getCurrentThreadCpuTime() - threadCpuStart) / 1e9;
            double processCpu = (os.getProcessCpuTime() - processCpuStart) / 1e9;
            long rows = SeriesStore.rowsRestored() - rowsBefore;
            long superseded = supersededRows() - supersededBefore;
            System.out.printf("round %d: %,d rows; restore %.3f s (%,.0f rows/s), with close %.3f s (%,.0f rows/s); "
                            + "CPU: restoring thread %.3f s (%.2f us/row), process %.3f s; %,d rows superseded before written%n",
                    round, rows, (restored - start) / 1e9, rows / ((restored - start) / 1e9), elapsed / 1e9, rows / (elapsed / 1e9),
                    threadCpu, threadCpu * 1e6 / rows, processCpu, superseded);
            if (round < rounds - 1) {
                deleteRecursively(target);
            }
        }
    }

    /**
     * What the state updater does: per poll, one batch per changelog partition (the tables interleaved, as
     * the consumer returns them), the stores' offsets reported every {@code commitBatches} polls and at the end.
     */
    private static void restore(SeriesStore store, Map<Table, List<KeyValue<byte[], byte[]>>> changelog, int batch, int commitBatches) {
        Map<Table, Integer> positions = new EnumMap<>(Table.class);
        boolean more = true;
        int polls = 0;
        while (more) {
            more = false;
            for (Map.Entry<Table, List<KeyValue<byte[], byte[]>>> entry : changelog.entrySet()) {
                List<KeyValue<byte[], byte[]>> records = entry.getValue();
                int from = positions.getOrDefault(entry.getKey(), 0);
                if (from >= records.size()) {
                    continue;
                }
                int to = Math.min(records.size(), from + batch);
                // The state updater hands the store a fresh list per batch.
                store.restore(entry.getKey(), new ArrayList<>(records.subList(from, to)));
                positions.put(entry.getKey(), to);
                more = true;
            }
            if (++polls % commitBatches == 0 || !more) {
                for (Table table : Table.values()) {
                    store.committed(table, (long) positions.getOrDefault(table, 0), false);
                }
            }
        }
    }

    /** Ingests readings in event-time order (round-robin over the series, jittered) and records the changelog. */
    private static Map<Table, List<KeyValue<byte[], byte[]>>> record(SeriesStoreSpec spec, Path dir, int readings, int seriesCount,
                                                                     int commitEvery) {
        Map<Table, List<KeyValue<byte[], byte[]>>> changelog = new EnumMap<>(Table.class);
        for (Table table : Table.values()) {
            changelog.put(table, new ArrayList<>());
        }
        SeriesStore.Changelog recorder = (table, key, value, timestamp) -> changelog.get(table).add(KeyValue.pair(key, value));
        byte[][] prefixes = new byte[seriesCount][];
        for (int i = 0; i < seriesCount; i++) {
            prefixes[i] = String.format("%04x#device-%05d#metric-%d#", (i * 7919) & 0xFFFF, i / 5, i % 5).getBytes(StandardCharsets.UTF_8);
        }
        Random random = new Random(42);
        long end = System.currentTimeMillis() - 5 * 60_000;
        long start = end - 3 * HOUR;
        double step = (end - start) / (double) readings;
        byte[] row = new RawRow(3.3, Map.of("unit", "V")).toBytes();
        try (SeriesStore store = SeriesStore.open(spec, dir.toFile())) {
            for (int i = 0; i < readings; i++) {
                long millis = start + (long) (i * step) + random.nextInt(100);
                byte[] prefix = prefixes[random.nextInt(seriesCount)];
                double value = 3.3 + random.nextInt(100) / 1000.0;
                byte[] bytes = row.clone();
                java.nio.ByteBuffer.wrap(bytes).putDouble(0, value);
                store.ingest(RowKey.withTimestamp(prefix, millis), millis, bytes, value);
                if ((i + 1) % commitEvery == 0 || i == readings - 1) {
                    store.flush(recorder);
                    for (Table table : Table.values()) {
                        store.committed(table, (long) changelog.get(table).size(), false);
                    }
                }
            }
        }
        return changelog;
    }

    /** {@code SeriesStore.rowsSupersededInRestore()}, when the store has it (0 before it did: the same harness measures both). */
    private static long supersededRows() {
        try {
            return (long) SeriesStore.class.getMethod("rowsSupersededInRestore").invoke(null);
        } catch (ReflectiveOperationException e) {
            return 0;
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
