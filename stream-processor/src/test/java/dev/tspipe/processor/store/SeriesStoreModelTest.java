package dev.tspipe.processor.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tspipe.model.keys.RowKey;
import dev.tspipe.model.rows.RawRow;
import dev.tspipe.model.rows.Rollup;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The series store against a plain model, on seeded random histories: readings in and out of order,
 * exact duplicates, corrections (often of a bucket's min or max), flushes at random points; then every
 * table compared with what the model says, and the tables rebuilt from the changelog records the store
 * sent compared byte for byte with the store's. Values are small integers, so sums do not depend on the
 * order of additions and every bucket is a function of its rows. The seed is printed on failure.
 */
class SeriesStoreModelTest {

    private static final long MINUTE = 60_000;
    private static final long HOUR = 60 * MINUTE;
    private static final long DAY = 24 * HOUR;
    private static final long T0 = 20_000 * DAY;

    @TempDir
    Path dir;

    /** Raw rows live long enough that no reading of the history expires: every bucket is exact. */
    private static SeriesStoreSpec longLived() {
        return SeriesStoreSpec.of(Duration.ofDays(30), Duration.ofDays(1),
                Map.of(RollupStep.MINUTE, Duration.ofDays(30), RollupStep.HOUR, Duration.ofDays(60), RollupStep.DAY, Duration.ofDays(400)));
    }

    /**
     * Raw rows live 3 hours (segments of an hour): a history of several hours seals its older blocks into the rollup
     * tables (RollupSeal), and every bucket must read the same before and after.
     */
    private static SeriesStoreSpec shortLived() {
        return SeriesStoreSpec.of(Duration.ofHours(3), Duration.ofHours(1),
                Map.of(RollupStep.MINUTE, Duration.ofDays(30), RollupStep.HOUR, Duration.ofDays(60), RollupStep.DAY, Duration.ofDays(400)));
    }

    @Test
    void randomHistoriesMatchTheModelAndTheirChangelogsRebuildThem() {
        checkHistories(longLived(), "run-");
    }

    @Test
    void historiesLongerThanTheRawLifecycleSealTheirBucketsAndReadTheSame() {
        checkHistories(shortLived(), "sealed-");
    }

    /**
     * A crash at every boundary between the batches of one commit (issue 49, item 7): the commit that seals blocks into
     * the rollup tables and is large enough for several batches is applied only up to batch k, for every k, as a kill -9
     * after Kafka's transaction committed and before the store applied all of it; the store is reopened, restores the
     * changelog records after the offsets it holds, and must then hold exactly the model (0 lost, 0 twice, 0 wrong).
     * The sealed rollup rows go in the batches before the last, which holds the seal's time and the offsets.
     */
    @Test
    void aCrashBetweenAnyTwoBatchesOfACommitRestoresExactlyTheModel() {
        long seed = Long.getLong("tspipe.seed", System.nanoTime());
        SeriesStoreSpec spec = shortLived();
        try {
            CrashRun dry = crashRun(seed, spec, dir.resolve("dry"), -1, -1);
            assertThat(dry.crashCommit).as("a commit that seals and spans several batches").isGreaterThanOrEqualTo(0);
            assertThat(dry.batches).isGreaterThan(1);
            for (int k = 0; k < dry.batches; k++) {
                crashRun(seed, spec, dir.resolve("crash-" + k), dry.crashCommit, k);
            }
        } catch (AssertionError | RuntimeException e) {
            throw new AssertionError("failed with seed " + seed + " (rerun with -Dtspipe.seed=" + seed + ")", e);
        }
    }

    /** Which commit a dry run would crash in, and in how many batches it is applied. */
    private record CrashRun(int crashCommit, int batches) {
    }

    /**
     * One seeded history of 50 series over several raw lifecycles, committed every 2,000 readings. With
     * {@code crashCommit < 0}: a dry run that finds the first commit whose flush seals and makes at least two batches.
     * Otherwise that commit is applied up to {@code crashAfter} batches, the store reopened and restored, and compared.
     */
    private static CrashRun crashRun(long seed, SeriesStoreSpec spec, Path runDir, int crashCommit, int crashAfter) {
        Random random = new Random(seed);
        Recorder changelog = new Recorder();
        Model model = new Model();
        long rawLifecycle = spec.retentionMs(Table.RAW);
        List<byte[]> prefixes = new ArrayList<>();
        long[] newest = new long[200];
        for (int i = 0; i < newest.length; i++) {
            prefixes.add(("big-" + i + "#m" + (i % 3) + "#").getBytes(StandardCharsets.UTF_8));
            newest[i] = T0;
        }
        SeriesStore store = SeriesStore.open(spec, runDir.toFile());
        try {
            for (int commit = 0; commit < 12; commit++) {
                for (int r = 0; r < 8_000; r++) {
                    int series = random.nextInt(prefixes.size());
                    byte[] prefix = prefixes.get(series);
                    long millis = random.nextInt(10) == 0 ? newest[series] - random.nextInt(30) * MINUTE // late, or again
                            : newest[series] + MINUTE + random.nextInt(120_000);
                    newest[series] = Math.max(newest[series], millis);
                    if (store.streamTime().isPresent() && millis < store.streamTime().getAsLong() - rawLifecycle) {
                        continue; // refused before the store, as IngestStep refuses it
                    }
                    double value = random.nextInt(21) - 10;
                    SeriesStore.Outcome expected = model.ingest(prefix, millis, value);
                    assertThat(store.ingest(RowKey.withTimestamp(prefix, millis), millis, row(prefix, value), value))
                            .isEqualTo(expected);
                }
                java.util.OptionalLong sealedBefore = store.sealedBefore();
                store.flush(changelog);
                boolean sealed = !store.sealedBefore().equals(sealedBefore);
                int batches = store.sentBatches();
                Map<Table, Long> offsets = new EnumMap<>(Table.class);
                for (Table table : Table.values()) {
                    int size = changelog.records.get(table).size();
                    offsets.put(table, size == 0 ? null : size - 1L);
                }
                if (crashCommit < 0 && sealed && batches > 1) {
                    return new CrashRun(commit, batches);
                }
                if (commit == crashCommit) {
                    store.committedThenCrashedAfter(offsets, crashAfter);
                    store = SeriesStore.open(spec, runDir.toFile());
                    for (Table table : Table.values()) {
                        Long stored = store.committedOffset(table);
                        List<KeyValue<byte[], byte[]>> records = changelog.records.get(table);
                        int from = stored == null ? 0 : (int) (stored + 1);
                        if (from < records.size()) {
                            store.restore(table, records.subList(from, records.size()));
                        }
                    }
                    for (Table table : Table.values()) {
                        store.committed(table, offsets.get(table), false);
                    }
                    assertTablesMatch(store, model, rawLifecycle);
                    return new CrashRun(commit, batches);
                }
                for (Table table : Table.values()) {
                    store.committed(table, offsets.get(table), false);
                }
            }
            return new CrashRun(-1, 0);
        } finally {
            store.close();
        }
    }

    /** Six seeded histories (the seed printed on failure, or given with -Dtspipe.seed) under {@code spec}. */
    private void checkHistories(SeriesStoreSpec spec, String dirPrefix) {
        long base = Long.getLong("tspipe.seed", System.nanoTime());
        for (int run = 0; run < 6; run++) {
            long seed = base + run;
            try {
                checkHistory(seed, spec, dir.resolve(dirPrefix + run));
            } catch (AssertionError | RuntimeException e) {
                throw new AssertionError("failed with seed " + seed + " (rerun with -Dtspipe.seed=" + seed + ")", e);
            }
        }
    }

    private void checkHistory(long seed, SeriesStoreSpec spec, Path runDir) {
        Random random = new Random(seed);
        long rawLifecycle = spec.retentionMs(Table.RAW);
        Recorder changelog = new Recorder();
        Model model = new Model();
        List<byte[]> prefixes = new ArrayList<>();
        for (int device = 0; device < 3; device++) {
            for (int metric = 0; metric < 2; metric++) {
                prefixes.add(("dev-" + device + "#m" + metric + "#").getBytes(StandardCharsets.UTF_8));
            }
        }
        try (SeriesStore store = SeriesStore.open(spec, runDir.resolve("live").toFile())) {
            int operations = 2_000 + random.nextInt(2_000);
            for (int i = 0; i < operations; i++) {
                byte[] prefix = prefixes.get(random.nextInt(prefixes.size()));
                double choice = random.nextDouble();
                long millis;
                double value = random.nextInt(11) - 5;
                TreeMap<Long, Double> existing = model.rows.get(Bytes.wrap(prefix));
                if (choice < 0.15 && existing != null) {
                    // An exact duplicate of a stored reading.
                    millis = pick(existing, random);
                    value = existing.get(millis);
                } else if (choice < 0.30 && existing != null) {
                    millis = pick(existing, random); // a correction (or, by chance, a duplicate)
                } else if (choice < 0.45 && existing != null) {
                    millis = existing.lastKey() - random.nextInt(3) * HOUR - random.nextInt(3_600) * 1_000L; // late
                } else {
                    long newest = existing == null ? T0 : existing.lastKey();
                    // In order, often the same minute; hours apart now and then in a history that outlives its raw rows.
                    millis = newest + random.nextInt(5) * 20_000L + random.nextInt(1_000)
                            + (rawLifecycle < DAY && random.nextInt(50) == 0 ? HOUR : 0);
                }
                millis = Math.max(millis, T0 - DAY);
                if (store.streamTime().isPresent() && millis < store.streamTime().getAsLong() - rawLifecycle) {
                    continue; // refused before the store, as IngestStep refuses it (older than the raw lifecycle)
                }
                byte[] key = RowKey.withTimestamp(prefix, millis);
                SeriesStore.Outcome expected = model.ingest(prefix, millis, value);
                assertThat(store.ingest(key, millis, row(prefix, value), value)).as("outcome of reading %d", i).isEqualTo(expected);
                if (random.nextInt(20) == 0) {
                    store.flush(changelog);
                    commit(store);
                }
                if (i == operations / 2) {
                    store.flush(changelog);
                    commit(store);
                    assertTablesMatch(store, model, rawLifecycle);
                    assertRebuilt(store, spec, changelog, runDir.resolve("half"), random);
                }
            }
            store.flush(changelog);
            commit(store);
            assertTablesMatch(store, model, rawLifecycle);
            assertRebuilt(store, spec, changelog, runDir.resolve("end"), random);
            if (rawLifecycle < DAY) {
                assertThat(store.segmentsOf(Table.MINUTE)).as("buckets sealed").isNotEmpty();
                assertThat(store.segmentsOf(Table.RAW).get(0).id * HOUR).as("raw segments dropped once sealed")
                        .isGreaterThan(T0);
            }
        }
    }

    /** What Kafka Streams does after the task's transaction committed: every table reports its changelog offset. */
    static void commit(SeriesStore store) {
        for (Table table : Table.values()) {
            store.committed(table, 0L, false);
        }
    }

    private static long pick(TreeMap<Long, Double> rows, Random random) {
        List<Long> keys = new ArrayList<>(rows.keySet());
        return keys.get(random.nextInt(keys.size()));
    }

    private static byte[] row(byte[] prefix, double value) {
        return new RawRow(value, tags(prefix, value)).toBytes();
    }

    /**
     * The tags of a reading: a series of no tags, one whose tags change with the value's sign (so that chunks of one
     * block hold one tag set or two, and a correction changes them), and series of one unit; the crash test's series
     * ({@code big-}) a long tag set of five kinds.
     */
    static Map<String, String> tags(byte[] prefix, double value) {
        if (prefix.length > 4 && prefix[0] == 'b' && prefix[1] == 'i' && prefix[2] == 'g' && prefix[3] == '-') {
            // Series of the crash test: a long tag set that changes with the value, so that a commit is large.
            return Map.of("site", "s".repeat(80) + Math.floorMod((long) value, 5));
        }
        return switch (Math.floorMod(Arrays.hashCode(prefix), 3)) {
            case 0 -> Map.of();
            case 1 -> value >= 0 ? Map.of("unit", "°C") : Map.of("unit", "°C", "site", "north-7");
            default -> Map.of("unit", "hPa");
        };
    }

    private static void assertTablesMatch(SeriesStore store, Model model, long rawLifecycle) {
        assertThat(contents(store, Table.RAW)).isEqualTo(model.rawTable(store.streamTime().orElseThrow() - rawLifecycle));
        for (RollupStep step : RollupStep.values()) {
            assertThat(contents(store, Table.of(step))).as("table %s", Table.of(step)).isEqualTo(model.bucketTable(step));
        }
        assertThat(contents(store, Table.LATEST)).isEqualTo(model.latestTable());
    }

    /**
     * Restores the recorded changelogs into a new store, in batches of random sizes with commit reports at random
     * points between them and at the end (as Kafka Streams reports restoring stores every commit interval and when
     * their restore completes), and compares every table.
     */
    private static void assertRebuilt(SeriesStore live, SeriesStoreSpec spec, Recorder changelog, Path restoreDir, Random random) {
        try (SeriesStore rebuilt = SeriesStore.open(spec, restoreDir.toFile())) {
            for (Table table : Table.values()) {
                List<KeyValue<byte[], byte[]>> records = changelog.records.get(table);
                int start = 0;
                while (start < records.size()) {
                    int end = Math.min(records.size(), start + 1 + random.nextInt(50));
                    rebuilt.restore(table, records.subList(start, end));
                    start = end;
                    if (random.nextInt(5) == 0) {
                        commit(rebuilt);
                    }
                }
            }
            commit(rebuilt);
            for (Table table : Table.values()) {
                assertThat(contents(rebuilt, table)).as("restored table %s", table).isEqualTo(contents(live, table));
            }
            assertThat(rebuilt.streamTime()).isEqualTo(live.streamTime());
        }
    }

    static Map<String, String> contents(SeriesStore store, Table table) {
        Map<String, String> rows = new TreeMap<>();
        try (KeyValueIterator<Bytes, byte[]> all = store.range(table, null, null, false)) {
            while (all.hasNext()) {
                KeyValue<Bytes, byte[]> row = all.next();
                rows.put(new String(row.key.get(), StandardCharsets.UTF_8), describe(table, row.value));
            }
        }
        return rows;
    }

    private static String describe(Table table, byte[] value) {
        if (table == Table.RAW) {
            return RawRow.fromBytes(value).toString();
        }
        if (table == Table.LATEST) {
            return ByteBuffer.wrap(value).getLong() + " " + RawRow.fromBytes(Arrays.copyOfRange(value, 8, value.length));
        }
        return Rollup.fromBytes(value).toString();
    }

    /** Everything the store sent, per table, in order. */
    static final class Recorder implements SeriesStore.Changelog {
        final Map<Table, List<KeyValue<byte[], byte[]>>> records = new EnumMap<>(Table.class);

        Recorder() {
            for (Table table : Table.values()) {
                records.put(table, new ArrayList<>());
            }
        }

        @Override
        public void send(Table table, byte[] key, byte[] value, long timestamp) {
            records.get(table).add(KeyValue.pair(key, value));
        }
    }

    /** Rows per series; buckets and latest values are derived from them. */
    private static final class Model {
        final Map<Bytes, TreeMap<Long, Double>> rows = new HashMap<>();

        SeriesStore.Outcome ingest(byte[] prefix, long millis, double value) {
            TreeMap<Long, Double> series = rows.computeIfAbsent(Bytes.wrap(prefix), p -> new TreeMap<>());
            Double old = series.put(millis, value);
            if (old == null) {
                return SeriesStore.Outcome.STORED;
            }
            return old == value ? SeriesStore.Outcome.DUPLICATE : SeriesStore.Outcome.CORRECTED;
        }

        /** The raw rows from {@code cutoff} on (readers do not see older ones). */
        Map<String, String> rawTable(long cutoff) {
            Map<String, String> table = new TreeMap<>();
            rows.forEach((prefix, series) -> series.tailMap(cutoff, true).forEach((millis, value) ->
                    table.put(key(prefix, millis), new RawRow(value, tags(prefix.get(), value)).toString())));
            return table;
        }

        Map<String, String> bucketTable(RollupStep step) {
            Map<String, String> table = new TreeMap<>();
            rows.forEach((prefix, series) -> {
                Map<Long, Rollup> buckets = new TreeMap<>();
                // Newest first, as the store folds a recomputed bucket; with integer values the order does not matter.
                series.descendingMap().forEach((millis, value) -> buckets.merge(step.bucketStart(millis), Rollup.of(value, millis),
                        (bucket, one) -> bucket.add(one.last(), one.lastEpochMillis())));
                buckets.forEach((start, bucket) -> table.put(key(prefix, start), bucket.toString()));
            });
            return table;
        }

        Map<String, String> latestTable() {
            Map<String, String> table = new TreeMap<>();
            rows.forEach((prefix, series) -> table.put(new String(prefix.get(), StandardCharsets.UTF_8),
                    series.lastKey() + " " + new RawRow(series.lastEntry().getValue(), tags(prefix.get(), series.lastEntry().getValue()))));
            return table;
        }

        private static String key(Bytes prefix, long millis) {
            return new String(RowKey.withTimestamp(prefix.get(), millis), StandardCharsets.UTF_8);
        }
    }
}
