package dev.tspipe.bench;

import dev.tspipe.model.keys.RowKey;
import dev.tspipe.model.rows.RawRow;
import dev.tspipe.model.rows.Rollup;
import dev.tspipe.model.rows.RollupCounters;
import dev.tspipe.processor.store.RollupStep;
import dev.tspipe.processor.store.SeriesStore;
import dev.tspipe.processor.store.SeriesStoreSpec;
import dev.tspipe.processor.store.Table;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Stream;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.state.KeyValueIterator;

/**
 * The series store's reads against a model while its stream thread writes (docs/reliability.md, "Reads while the
 * store commits"): one thread ingests seeded readings (in order, late, duplicates, corrections), commits, and so seals
 * raw blocks into the rollup tables across day boundaries and drops raw segments; reader threads meanwhile run raw
 * ranges, 1m/1h/1d rollup ranges, day-bucket point reads and latest readings, forward and reverse, some held open
 * across several commits. Every answer must equal the model's answer at a commit boundary that lies within the read
 * (the model's state is recorded for each commit before it is applied: one hash per query, a sum over its rows, so
 * that any row missing, extra, doubled or of another commit changes it), and its rows must come in key order. Its
 * commits are of one RocksDB batch each: a read between two batches of one commit is {@code SeriesStoreTest}'s.
 *
 * <p>The short run is a test ({@code ConcurrentReadsCheckTest}, in {@code mvn verify}); the long run:
 *
 * <pre>java -cp bench/target/benchmarks.jar dev.tspipe.bench.ConcurrentReadsCheck [--seed S] [--reads N]
 *     [--min-seals K] [--reads-per-commit R] [--readers T] [--dir DIR]</pre>
 */
public final class ConcurrentReadsCheck {

    private static final long MINUTE = 60_000;
    private static final long HOUR = 60 * MINUTE;
    private static final long DAY = 24 * HOUR;
    private static final long T0 = 20_000 * DAY + 20 * HOUR;
    private static final int SERIES = 40;
    /** Per series: raw range, then 1m, 1h and 1d rollup ranges, then the latest reading. */
    private static final int KINDS = 5;
    private static final int RAW_ALL = SERIES * KINDS;
    private static final int LATEST_ALL = RAW_ALL + 1;
    private static final int DAY_ALL = RAW_ALL + 2;
    private static final int HOUR_ALL = RAW_ALL + 3;
    private static final int QUERIES = RAW_ALL + 4;
    /** Days of history a run may cover (the day buckets recorded per commit). */
    private static final int MAX_DAYS = 64;
    private static final Table[] KIND_TABLES = {Table.RAW, Table.MINUTE, Table.HOUR, Table.DAY, Table.LATEST};

    /** What one run is asked to do. */
    public record Options(long seed, long minReads, int minSeals, int minSealedDays, int readsPerCommit, int readers,
                          Path dir, boolean progress) {
    }

    /** What one run did; {@link #mismatches} must be 0. */
    public record Result(long seed, long reads, long heldReads, long pointReads, int commits, int seals, int sealedDays,
                         long mismatches, List<String> firstMismatches, double seconds) {

        @Override
        public String toString() {
            return String.format("seed %d: %,d reads (%,d held across commits, %,d point reads) over %,d commits, %d seals "
                            + "(%d day boundaries sealed), %d answers that match no commit boundary, %.1f s", seed, reads, heldReads,
                    pointReads, commits, seals, sealedDays, mismatches, seconds);
        }
    }

    private final Options options;
    private final byte[][] prefixes = new byte[SERIES][];
    private final Map<Bytes, Integer> seriesOf = new HashMap<>();
    private final SeriesStoreSpec spec = SeriesStoreSpec.of(Duration.ofHours(3), Duration.ofHours(1), Map.of(
            RollupStep.MINUTE, Duration.ofHours(6), RollupStep.HOUR, Duration.ofDays(2), RollupStep.DAY, Duration.ofDays(400)));
    /** Per commit, the model's answers (index: commit number; 0 is the empty store). Written before the commit. */
    private final AtomicReference<Answers[]> answers = new AtomicReference<>(new Answers[1024]);
    /** The last commit applied (its view published), and the last commit whose answers are recorded. */
    private volatile int applied;
    private volatile int recorded;
    private volatile boolean writerDone;
    private final LongAdder reads = new LongAdder();
    private final LongAdder heldReads = new LongAdder();
    private final LongAdder pointReads = new LongAdder();
    private final AtomicLong mismatches = new AtomicLong();
    private final List<String> firstMismatches = new ArrayList<>();
    private final AtomicReference<Throwable> failure = new AtomicReference<>();

    private ConcurrentReadsCheck(Options options) {
        this.options = options;
        for (int s = 0; s < SERIES; s++) {
            prefixes[s] = String.format("%04x#dev-%02d#m%d#", (s * 7919) & 0xFFFF, s / 4, s % 4).getBytes(StandardCharsets.UTF_8);
            seriesOf.put(Bytes.wrap(prefixes[s]), s);
        }
    }

    /** One run: the writer and the readers until enough reads and seals happened; then the result. */
    public static Result run(Options options) {
        try {
            deleteRecursively(options.dir());
            return new ConcurrentReadsCheck(options).go();
        } finally {
            deleteRecursively(options.dir());
        }
    }

    public static void main(String[] args) {
        long seed = System.nanoTime();
        long minReads = 10_000_000;
        int minSeals = 30;
        int minDays = 3;
        int readsPerCommit = 20_000;
        int readers = 2;
        Path dir = Path.of(System.getProperty("java.io.tmpdir"), "concurrent-reads-check");
        for (int i = 0; i < args.length; i += 2) {
            String value = args[i + 1];
            switch (args[i]) {
                case "--seed" -> seed = Long.parseLong(value);
                case "--reads" -> minReads = Long.parseLong(value);
                case "--min-seals" -> minSeals = Integer.parseInt(value);
                case "--min-sealed-days" -> minDays = Integer.parseInt(value);
                case "--reads-per-commit" -> readsPerCommit = Integer.parseInt(value);
                case "--readers" -> readers = Integer.parseInt(value);
                case "--dir" -> dir = Path.of(value);
                default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        Result result = run(new Options(seed, minReads, minSeals, minDays, readsPerCommit, readers, dir, true));
        System.out.println(result);
        result.firstMismatches().forEach(System.out::println);
        if (result.mismatches() > 0) {
            System.exit(1);
        }
    }

    private Result go() {
        long began = System.nanoTime();
        Model model = new Model();
        record(0, model, Long.MIN_VALUE);
        List<Thread> threads = new ArrayList<>();
        Writer writer;
        try (SeriesStore store = SeriesStore.open(spec, options.dir().toFile())) {
            writer = new Writer(store, model);
            for (int r = 0; r < options.readers(); r++) {
                Reader reader = new Reader(store, new Random(options.seed() * 31 + r), r == 0 && options.readers() > 1);
                threads.add(start("reader-" + r, reader));
            }
            Thread writing = start("writer", writer);
            threads.add(writing);
            while (writing.isAlive()) {
                writing.join(10_000);
                if (options.progress()) {
                    System.err.printf("%,d reads of %,d, %d commits, %d seals (%d day boundaries), %d mismatches%n",
                            reads.sum(), options.minReads(), writer.commits, writer.seals, writer.sealedDays, mismatches.get());
                }
            }
            for (Thread thread : threads) {
                thread.join();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
        if (failure.get() != null) {
            throw new IllegalStateException("the check failed with seed " + options.seed(), failure.get());
        }
        synchronized (firstMismatches) {
            return new Result(options.seed(), reads.sum(), heldReads.sum(), pointReads.sum(), writer.commits, writer.seals,
                    writer.sealedDays, mismatches.get(),
                    List.copyOf(firstMismatches), (System.nanoTime() - began) / 1e9);
        }
    }

    private Thread start(String name, Runnable body) {
        Thread thread = new Thread(() -> {
            try {
                body.run();
            } catch (Throwable t) {
                failure.compareAndSet(null, t);
                writerDone = true;
            }
        }, name);
        thread.start();
        return thread;
    }

    /** The model's answers as {@code commit} will leave the store, recorded before it is applied. */
    private void record(int commit, Model model, long streamTime) {
        Answers[] all = answers.get();
        if (commit >= all.length) {
            all = Arrays.copyOf(all, all.length * 2);
            answers.set(all);
        }
        all[commit] = model.answers(streamTime);
        recorded = commit;
    }

    private static Map<String, String> tags(int series, double value) {
        if (series % 2 == 0) {
            // Long tag sets that change with the value: large chunks, so that some commits take several batches.
            return Map.of("site", "s".repeat(80) + Math.floorMod((long) value, 5));
        }
        return series % 3 == 0 ? Map.of() : Map.of("unit", "hPa");
    }

    // ---------------------------------------------------------------------------------------
    // Hashes: an answer is the sum of its rows' hashes and its row count, so the model keeps them by row.

    private static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
        z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
        return z ^ (z >>> 31);
    }

    private static long rowHash(int series, int kind, long millis, long a, long b) {
        return mix(mix(mix(mix(series * 16L + kind) ^ millis) ^ a) ^ b);
    }

    private static long rawHash(int series, long millis, double value, Map<String, String> tags) {
        return rowHash(series, 0, millis, Double.doubleToLongBits(value), tags.hashCode());
    }

    private static long bucketHash(int series, int kind, long start, Rollup bucket) {
        long counters = mix(mix(mix(mix(bucket.count()) ^ Double.doubleToLongBits(bucket.sum()))
                ^ Double.doubleToLongBits(bucket.min())) ^ Double.doubleToLongBits(bucket.max()));
        return rowHash(series, kind, start, counters, mix(Double.doubleToLongBits(bucket.last())) ^ bucket.lastEpochMillis());
    }

    private static long latestHash(int series, long millis, double value, Map<String, String> tags) {
        return rowHash(series, 4, millis, Double.doubleToLongBits(value), tags.hashCode());
    }

    private static long answer(long sum, long count) {
        return sum + count * 0x9E3779B97F4A7C15L;
    }

    /** The answers of one commit: one per query, and each series' day buckets (for point reads). */
    private record Answers(long[] queries, long[][] days) {
    }

    /** The readings per series, and their buckets per step, kept up to date at each commit. */
    private final class Model {
        final List<TreeMap<Long, Double>> rows = new ArrayList<>();
        /** Per series and step (minute, hour, day): bucket start to the bucket's hash. */
        final List<List<TreeMap<Long, Long>>> buckets = new ArrayList<>();
        final List<List<java.util.Set<Long>>> dirty = new ArrayList<>();

        Model() {
            for (int s = 0; s < SERIES; s++) {
                rows.add(new TreeMap<>());
                List<TreeMap<Long, Long>> bySteps = new ArrayList<>();
                List<java.util.Set<Long>> dirtySteps = new ArrayList<>();
                for (int step = 0; step < 3; step++) {
                    bySteps.add(new TreeMap<>());
                    dirtySteps.add(new java.util.HashSet<>());
                }
                buckets.add(bySteps);
                dirty.add(dirtySteps);
            }
        }

        SeriesStore.Outcome ingest(int series, long millis, double value) {
            Double old = rows.get(series).put(millis, value);
            for (int step = 0; step < 3; step++) {
                dirty.get(series).get(step).add(RollupStep.values()[step].bucketStart(millis));
            }
            if (old == null) {
                return SeriesStore.Outcome.STORED;
            }
            return old == value ? SeriesStore.Outcome.DUPLICATE : SeriesStore.Outcome.CORRECTED;
        }

        Answers answers(long streamTime) {
            long[] queries = new long[QUERIES];
            long[][] days = new long[SERIES][MAX_DAYS];
            long rawAllSum = 0;
            long rawAllCount = 0;
            long latestSum = 0;
            long dayAllSum = 0;
            long dayAllCount = 0;
            long hourAllSum = 0;
            long hourAllCount = 0;
            long cutoff = streamTime == Long.MIN_VALUE ? Long.MIN_VALUE : streamTime - spec.retentionMs(Table.RAW);
            for (int s = 0; s < SERIES; s++) {
                TreeMap<Long, Double> series = rows.get(s);
                long[] tailSums = new long[3];
                int[] tailCounts = new int[3];
                for (int step = 0; step < 3; step++) {
                    RollupStep rollup = RollupStep.values()[step];
                    TreeMap<Long, Long> hashes = buckets.get(s).get(step);
                    for (long start : dirty.get(s).get(step)) {
                        RollupCounters counters = new RollupCounters();
                        series.subMap(start, true, start + rollup.sizeMillis(), false).descendingMap()
                                .forEach((millis, value) -> counters.include(value, millis));
                        hashes.put(start, bucketHash(s, 1 + step, start, counters.toRollup()));
                    }
                    dirty.get(s).get(step).clear();
                    // Readers see the buckets that the stream time of the commit has not expired.
                    long bucketCutoff = streamTime == Long.MIN_VALUE ? Long.MIN_VALUE
                            : streamTime - spec.retentionMs(Table.of(rollup));
                    for (long hash : hashes.tailMap(bucketCutoff, true).values()) {
                        tailSums[step] += hash;
                        tailCounts[step]++;
                    }
                    queries[s * KINDS + 1 + step] = answer(tailSums[step], tailCounts[step]);
                }
                long rawSum = 0;
                int rawCount = 0;
                for (Map.Entry<Long, Double> row : series.tailMap(cutoff, true).entrySet()) {
                    rawSum += rawHash(s, row.getKey(), row.getValue(), tags(s, row.getValue()));
                    rawCount++;
                }
                queries[s * KINDS] = answer(rawSum, rawCount);
                rawAllSum += rawSum;
                rawAllCount += rawCount;
                if (!series.isEmpty()) {
                    double last = series.lastEntry().getValue();
                    long hash = latestHash(s, series.lastKey(), last, tags(s, last));
                    queries[s * KINDS + 4] = answer(hash, 1);
                    latestSum += hash;
                } else {
                    queries[s * KINDS + 4] = answer(0, 0);
                }
                for (Map.Entry<Long, Long> day : buckets.get(s).get(2).entrySet()) {
                    days[s][dayIndex(day.getKey())] = day.getValue();
                }
                dayAllSum += tailSums[2];
                dayAllCount += tailCounts[2];
                hourAllSum += tailSums[1];
                hourAllCount += tailCounts[1];
            }
            queries[RAW_ALL] = answer(rawAllSum, rawAllCount);
            int latestCount = 0;
            for (TreeMap<Long, Double> series : rows) {
                latestCount += series.isEmpty() ? 0 : 1;
            }
            queries[LATEST_ALL] = answer(latestSum, latestCount);
            queries[DAY_ALL] = answer(dayAllSum, dayAllCount);
            queries[HOUR_ALL] = answer(hourAllSum, hourAllCount);
            return new Answers(queries, days);
        }
    }

    private static int dayIndex(long dayStart) {
        return (int) Math.floorDiv(dayStart - (T0 - T0 % DAY), DAY) + 1;
    }

    // ---------------------------------------------------------------------------------------
    // The writer: the stream thread's part.

    private final class Writer implements Runnable {
        final SeriesStore store;
        final Model model;
        final Random random = new Random(options.seed());
        final long[] newest = new long[SERIES];
        volatile int commits;
        volatile int seals;
        volatile int sealedDays;

        Writer(SeriesStore store, Model model) {
            this.store = store;
            this.model = model;
            Arrays.fill(newest, T0);
        }

        @Override
        public void run() {
            try {
                long lastSeal = Long.MIN_VALUE;
                while (!enough() && failure.get() == null) {
                    // Ten readings per series, about 3 minutes apart: half an hour of stream time per commit; every
                    // tenth commit also a backlog of late readings.
                    int readings = SERIES * 10 + (commits % 10 == 9 ? SERIES * 60 : 0);
                    for (int r = 0; r < readings; r++) {
                        ingestOne(r >= SERIES * 10);
                    }
                    store.flush((table, key, value, timestamp) -> { });
                    int commit = commits + 1;
                    record(commit, model, store.streamTime().orElse(Long.MIN_VALUE));
                    for (Table table : Table.values()) {
                        store.committed(table, (long) commit, false);
                    }
                    commits = commit;
                    applied = commit;
                    long sealed = store.sealedBefore().orElse(Long.MIN_VALUE);
                    if (sealed != lastSeal) {
                        if (lastSeal != Long.MIN_VALUE && Math.floorDiv(sealed, DAY) != Math.floorDiv(lastSeal, DAY)) {
                            sealedDays++;
                        }
                        seals++;
                        lastSeal = sealed;
                    }
                    awaitReads();
                }
            } finally {
                writerDone = true;
            }
        }

        private boolean enough() {
            return (reads.sum() >= options.minReads() && seals >= options.minSeals() && sealedDays >= options.minSealedDays())
                    || dayIndex(newest[0]) >= MAX_DAYS - 2;
        }

        /** The readers read about {@code readsPerCommit} times between two commits (waits on them, not on a clock). */
        private void awaitReads() {
            long target = reads.sum() + options.readsPerCommit();
            while (reads.sum() < target && failure.get() == null) {
                LockSupport.parkNanos(20_000);
            }
        }

        private void ingestOne(boolean late) {
            int s = random.nextInt(SERIES);
            long streamTime = store.streamTime().orElse(T0);
            long millis;
            TreeMap<Long, Double> existing = model.rows.get(s);
            double value = random.nextInt(21) - 10;
            double choice = random.nextDouble();
            if (!existing.isEmpty() && choice < 0.05) {
                millis = pick(existing);
                value = existing.get(millis); // a duplicate
            } else if (!existing.isEmpty() && choice < 0.10) {
                millis = pick(existing); // a correction
            } else if (late || choice < 0.2) {
                millis = newest[s] - random.nextInt(150) * MINUTE - random.nextInt(60_000);
            } else {
                millis = newest[s] + 60_000 + random.nextInt(240_000);
            }
            if (millis < streamTime - spec.retentionMs(Table.RAW)) {
                return; // refused before the store, as the topology's ingest step refuses it
            }
            newest[s] = Math.max(newest[s], millis);
            SeriesStore.Outcome expected = model.ingest(s, millis, value);
            SeriesStore.Outcome outcome = store.ingest(RowKey.withTimestamp(prefixes[s], millis), millis,
                    new RawRow(value, tags(s, value)).toBytes(), value);
            if (outcome != expected) {
                throw new IllegalStateException("reading " + millis + " of series " + s + ": " + outcome + ", expected " + expected);
            }
        }

        private long pick(TreeMap<Long, Double> rows) {
            // One of the newest: older ones may be past the raw lifecycle.
            Long key = rows.lastKey();
            for (int i = random.nextInt(30); i > 0 && rows.lowerKey(key) != null; i--) {
                key = rows.lowerKey(key);
            }
            return key;
        }
    }

    // ---------------------------------------------------------------------------------------
    // The readers: the query server's part.

    private final class Reader implements Runnable {
        final SeriesStore store;
        final Random random;
        final boolean holds;

        Reader(SeriesStore store, Random random, boolean holds) {
            this.store = store;
            this.random = random;
            this.holds = holds;
        }

        @Override
        public void run() {
            while (!writerDone) {
                int before = applied;
                int pick = random.nextInt(100);
                long got;
                int query;
                if (pick < 8) {
                    int s = random.nextInt(SERIES);
                    int day = 1 + random.nextInt(Math.max(1, dayIndex(store.streamTime().orElse(T0))));
                    long start = (T0 - T0 % DAY) + (day - 1) * DAY;
                    byte[] bucket = store.get(Table.DAY, RowKey.withTimestamp(prefixes[s], start));
                    got = bucket == null ? 0 : bucketHash(s, 3, start, Rollup.fromBytes(bucket));
                    pointReads.increment();
                    check(before, -1 - (s * MAX_DAYS + day), got, "day bucket " + start + " of series " + s);
                } else if (pick < 14) {
                    int s = random.nextInt(SERIES);
                    byte[] latest = store.get(Table.LATEST, prefixes[s]);
                    got = latest == null ? answer(0, 0) : answer(latestOf(s, latest), 1);
                    pointReads.increment();
                    check(before, s * KINDS + 4, got, "latest of series " + s);
                } else {
                    boolean all = pick < 16;
                    int s = random.nextInt(SERIES);
                    int kind = random.nextInt(4);
                    if (all) {
                        int which = random.nextInt(4);
                        query = new int[] {RAW_ALL, LATEST_ALL, DAY_ALL, HOUR_ALL}[which];
                        Table table = new Table[] {Table.RAW, Table.LATEST, Table.DAY, Table.HOUR}[which];
                        got = range(table, null, null, random.nextBoolean(), false);
                    } else {
                        query = s * KINDS + kind;
                        byte[] lower = RowKey.withTimestamp(prefixes[s], RowKey.MAX_EPOCH_MILLIS);
                        byte[] upper = Arrays.copyOf(RowKey.withTimestamp(prefixes[s], 0), lower.length + 1);
                        got = range(KIND_TABLES[kind], lower, upper, random.nextBoolean(), holds && random.nextInt(200) == 0);
                    }
                    check(before, query, got, "query " + query);
                }
                reads.increment();
            }
        }

        /** A range read's answer; a held one waits, after its first row, until two more commits are applied. */
        private long range(Table table, byte[] lower, byte[] upper, boolean reverse, boolean hold) {
            long sum = 0;
            long count = 0;
            byte[] previous = null;
            try (KeyValueIterator<Bytes, byte[]> rows = store.range(table, lower, upper, reverse)) {
                while (rows.hasNext()) {
                    KeyValue<Bytes, byte[]> row = rows.next();
                    byte[] key = row.key.get();
                    if (previous != null && Integer.signum(Arrays.compareUnsigned(previous, key)) != (reverse ? 1 : -1)) {
                        mismatch("rows out of order in " + table + ": " + new String(previous, StandardCharsets.UTF_8) + " then "
                                + new String(key, StandardCharsets.UTF_8));
                    }
                    previous = key;
                    sum += rowHashOf(table, key, row.value);
                    count++;
                    if (hold && count == 1) {
                        heldReads.increment();
                        int until = applied + 2;
                        while (applied < until && !writerDone) {
                            LockSupport.parkNanos(20_000);
                        }
                    }
                }
            }
            return answer(sum, count);
        }

        private long rowHashOf(Table table, byte[] key, byte[] value) {
            if (table == Table.LATEST) {
                return latestOf(seriesOf.get(Bytes.wrap(key)), value);
            }
            int s = seriesOf.get(Bytes.wrap(RowKey.seriesPrefixOf(key)));
            long millis = RowKey.timestampOf(key);
            if (table == Table.RAW) {
                RawRow raw = RawRow.fromBytes(value);
                return rawHash(s, millis, raw.value(), raw.tags());
            }
            int kind = table == Table.MINUTE ? 1 : table == Table.HOUR ? 2 : 3;
            return bucketHash(s, kind, millis, Rollup.fromBytes(value));
        }

        private long latestOf(int s, byte[] value) {
            long millis = ByteBuffer.wrap(value).getLong();
            RawRow raw = RawRow.fromBytes(Arrays.copyOfRange(value, 8, value.length));
            return latestHash(s, millis, raw.value(), raw.tags());
        }

        /**
         * The answer must be the model's at a commit from the one applied before the read began to the one after the
         * last applied when it ended (applied, but perhaps not yet counted as applied).
         */
        private void check(int before, int query, long got, String what) {
            int after = Math.min(applied + 1, recorded);
            Answers[] all = answers.get();
            for (int commit = before; commit <= after; commit++) {
                Answers expected = all[commit];
                long want = query >= 0 ? expected.queries()[query]
                        : expected.days()[(-1 - query) / MAX_DAYS][(-1 - query) % MAX_DAYS];
                if (want == got) {
                    return;
                }
            }
            mismatch(what + ": the answer matches no commit from " + before + " to " + after);
        }
    }

    private void mismatch(String what) {
        mismatches.incrementAndGet();
        synchronized (firstMismatches) {
            if (firstMismatches.size() < 10) {
                firstMismatches.add(what);
            }
        }
    }

    private static void deleteRecursively(Path dir) {
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
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
