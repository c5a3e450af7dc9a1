package dev.tspipe.bench;

import dev.tspipe.ingest.ReadingGenerator;
import dev.tspipe.model.blocks.BlockReader;
import dev.tspipe.model.blocks.ChunkWriter;
import dev.tspipe.model.rows.RawRow;
import dev.tspipe.schemas.Reading;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Bytes per reading of the block format (docs/storage.md, "Blocks") on the end-to-end harness's default input
 * (2,000,000 readings of 2,000 devices x 5 metrics over 3 hours), in several shapes of input and cuts into chunks:
 * what the format itself costs, before RocksDB (keys, its block compression) and before Kafka (record overhead, lz4).
 *
 * <pre>java -cp bench/target/benchmarks.jar dev.tspipe.bench.BlockDensity [readings] [block minutes] [commits]</pre>
 *
 * Per shape: the bytes of every block written as one chunk; of the blocks cut into one chunk per commit (the
 * readings of each of {@code commits} equal slices of the input: what the changelog and the open blocks hold); and
 * {@code RawRow}'s bytes of the same readings (storage engine v2's raw-row values) for comparison. Then the time to
 * encode (readings already decoded, one tag set per series) and to read the one-chunk blocks, per reading (one
 * thread, the best of five rounds after two; a rough figure, not JMH).
 */
public final class BlockDensity {

    private static final long DEVICES = 2_000;
    private static final int METRICS = 5;
    private static final Duration SPAN = Duration.ofHours(3);

    private BlockDensity() {
    }

    public static void main(String[] args) {
        int readings = args.length > 0 ? Integer.parseInt(args[0]) : 2_000_000;
        long blockMillis = Duration.ofMinutes(args.length > 1 ? Long.parseLong(args[1]) : 60).toMillis();
        int commits = args.length > 2 ? Integer.parseInt(args[2]) : 13;
        Instant start = Instant.parse("2026-12-01T00:00:00Z");
        double rate = readings / (double) SPAN.toSeconds();
        ReadingGenerator.Options independent = ReadingGenerator.Options.of((int) DEVICES, METRICS, rate, start);
        System.out.printf(Locale.ROOT, "%,d readings, %d devices x %d metrics over %s, blocks of %d min, %d commits%n",
                readings, DEVICES, METRICS, SPAN, blockMillis / 60_000, commits);
        System.out.printf("%-44s %10s %10s %10s %8s %9s %9s%n", "input", "one chunk", "per commit", "RawRow", "blocks", "encode", "read");
        measure("independent readings (the harness today)", independent, readings, blockMillis, commits);
        for (long jitter : new long[] {0, 10, 100, 1_000}) {
            measure("device reports, jitter up to " + jitter + " ms", independent.withReports(Duration.ofMillis(jitter)), readings, blockMillis, commits);
        }
        measure("device reports, 100 ms, 1% out of order", independent.withReports(Duration.ofMillis(100)).withOutOfOrder(0.01), readings,
                blockMillis, commits);
    }

    private static void measure(String name, ReadingGenerator.Options options, int count, long blockMillis, int commits) {
        ReadingGenerator generator = new ReadingGenerator(options);
        Map<String, List<Reading>> blocks = new HashMap<>();
        Map<String, Integer> chunksOf = new HashMap<>();
        long perCommit = 0;
        long rawRows = 0;
        long sliceLength = (count + commits - 1) / commits;
        ChunkWriter writer = new ChunkWriter();
        List<Reading> all = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            all.add(generator.next());
        }
        for (int slice = 0; slice * sliceLength < count; slice++) {
            Map<String, List<Reading>> sliceBlocks = new HashMap<>();
            for (int i = (int) (slice * sliceLength); i < Math.min(count, (slice + 1) * sliceLength); i++) {
                Reading r = all.get(i);
                String block = r.getDeviceId() + "#" + r.getMetric() + "#" + blockStart(r, blockMillis);
                sliceBlocks.computeIfAbsent(block, b -> new ArrayList<>()).add(r);
                blocks.computeIfAbsent(block, b -> new ArrayList<>()).add(r);
                rawRows += new RawRow(r.getValue(), r.getTags()).toBytes().length;
            }
            for (Map.Entry<String, List<Reading>> block : sliceBlocks.entrySet()) {
                perCommit += encode(writer, block.getValue(), blockMillis).length;
                chunksOf.merge(block.getKey(), 1, Integer::sum);
            }
        }
        List<byte[]> encoded = new ArrayList<>();
        long oneChunk = 0;
        for (List<Reading> block : blocks.values()) {
            byte[] chunk = encode(writer, block, blockMillis);
            encoded.add(chunk);
            oneChunk += chunk.length;
        }
        List<long[]> times = new ArrayList<>();
        List<double[]> values = new ArrayList<>();
        List<byte[]> tags = new ArrayList<>();
        for (List<Reading> block : blocks.values()) {
            times.add(block.stream().mapToLong(r -> r.getTimestamp().toEpochMilli()).toArray());
            values.add(block.stream().mapToDouble(Reading::getValue).toArray());
            byte[] row = new RawRow(0, block.get(0).getTags()).toBytes();
            tags.add(Arrays.copyOfRange(row, 8, row.length));
        }
        double encodeNanos = time(() -> {
            for (int b = 0; b < times.size(); b++) {
                long[] t = times.get(b);
                double[] v = values.get(b);
                writer.start(t[0] - Math.floorMod(t[0], blockMillis));
                for (int i = 0; i < t.length; i++) {
                    writer.add(t[i], v[i], tags.get(b));
                }
                writer.toChunk();
            }
        }, count);
        BlockReader reader = new BlockReader();
        long[] starts = blocks.values().stream().mapToLong(b -> blockStart(b.get(0), blockMillis)).toArray();
        double readNanos = time(() -> {
            for (int b = 0; b < starts.length; b++) {
                reader.read(encoded.get(b), starts[b]);
            }
        }, count);
        System.out.printf(Locale.ROOT, "%-44s %10.2f %10.2f %10.2f %8d %6.1f ns %6.1f ns%n", name, oneChunk / (double) count,
                perCommit / (double) count, rawRows / (double) count, blocks.size(), encodeNanos, readNanos);
    }

    private static byte[] encode(ChunkWriter writer, List<Reading> block, long blockMillis) {
        writer.start(blockStart(block.get(0), blockMillis));
        for (Reading r : block) {
            byte[] row = new RawRow(r.getValue(), r.getTags()).toBytes();
            writer.add(r.getTimestamp().toEpochMilli(), r.getValue(), row, 8, row.length - 8);
        }
        return writer.toChunk();
    }

    private static long blockStart(Reading r, long blockMillis) {
        long t = r.getTimestamp().toEpochMilli();
        return t - Math.floorMod(t, blockMillis);
    }

    /** Nanoseconds per reading of the best of five runs after two warm-ups. */
    private static double time(Runnable work, int readings) {
        long best = Long.MAX_VALUE;
        for (int round = 0; round < 7; round++) {
            long begin = System.nanoTime();
            work.run();
            long elapsed = System.nanoTime() - begin;
            if (round >= 2) {
                best = Math.min(best, elapsed);
            }
        }
        return best / (double) readings;
    }

}
