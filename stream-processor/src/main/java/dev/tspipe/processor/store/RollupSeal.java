package dev.tspipe.processor.store;

import dev.tspipe.model.blocks.BlockReader;
import dev.tspipe.model.keys.RowKey;
import dev.tspipe.model.rows.RollupCounters;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.rocksdb.RocksDBException;

/**
 * The seal of raw readings into the rollup tables (docs/storage.md, "Rollups from blocks"). While a bucket's
 * readings are in raw blocks, its counters are computed from them when read ({@link BlockBuckets}) and nothing is
 * written for it; when stream time has expired a raw block (its end is before {@code streamTime - raw lifecycle}),
 * the readings of every block up to there are folded into the buckets of each resolution, oldest first, and those
 * buckets are written to their tables and changelogs once. The raw blocks go when their segment is all sealed.
 *
 * <p>A flush seals, before its own rows, up to the start of the oldest block that the applied stream time has not
 * expired: every reading the flush buffered is newer than that (the ingest refuses readings older than the raw
 * lifecycle), so the blocks hold everything to seal, and only when no earlier flush waits to be applied (the seal
 * reads the database). A bucket that began before the previous seal (a day, sealed an hour at a time) goes on from
 * its stored counters. The seal is stored with the flush's batch (meta {@code sealed-through}) and sent to the
 * {@code latest} changelog under {@link #CHANGELOG_KEY}, so that a restore knows which raw blocks it may skip; so is
 * the latest reading of each series whose readings are all sealed (the only latest records the store sends).
 *
 * <p>Thread rule: the stream thread, within a flush.
 */
final class RollupSeal {

    /** The key of the seal's record in the {@code latest} changelog: no series prefix begins with a 0x00 byte. */
    static final byte[] CHANGELOG_KEY = "\0sealed-through".getBytes(StandardCharsets.US_ASCII);
    private static final RollupStep[] STEPS = RollupStep.values();

    private final SeriesStoreSpec spec;
    private final StreamTime time;
    private final SegmentReads reads;
    private final BlockReader block = new BlockReader();
    private final RollupCounters counters = new RollupCounters();
    private final RowArena arena = new RowArena();
    private final TimedRows buckets = new TimedRows();
    /** The readings of the series being sealed: its blocks' one after the other, newest block first. */
    private long[] times = new long[1024];
    private double[] values = new double[1024];
    private int count;
    /** Where each of the series' blocks begins in {@link #times}. */
    private int[] blockStarts = new int[32];
    private int blocks;

    RollupSeal(SeriesStoreSpec spec, StreamTime time, SegmentReads reads) {
        this.spec = spec;
        this.time = time;
        this.reads = reads;
    }

    /** The seal the applied stream time allows: the start of the oldest raw block it has not all expired, or NONE. */
    long target() {
        long applied = time.visibleCurrent();
        if (applied == StreamTime.NONE) {
            return StreamTime.NONE;
        }
        long span = spec.rawBlockMs();
        return Math.floorDiv(applied - spec.retentionMs(Table.RAW), span) * span;
    }

    /** Seals the readings from the current seal up to {@link #target()} into {@code commit}, if there are any to seal. */
    void seal(PreparedCommit commit, SeriesStore.Changelog changelog) throws RocksDBException {
        long from = time.sealed();
        long to = target();
        if (to == StreamTime.NONE || (from != StreamTime.NONE && to <= from)) {
            return;
        }
        byte[] series = null;
        try (KeyValueIterator<Bytes, byte[]> stored = reads.rawBlocks(from, to)) {
            while (stored.hasNext()) {
                KeyValue<Bytes, byte[]> next = stored.next();
                byte[] key = next.key.get();
                long start = Table.RAW.timeOf(key);
                if (start >= to || (from != StreamTime.NONE && start < from)) {
                    continue;
                }
                int prefixLength = RowKey.seriesPrefixLength(key);
                if (series == null || series.length != prefixLength || !Arrays.equals(series, 0, prefixLength, key, 0, prefixLength)) {
                    if (series != null) {
                        writeSeries(commit, changelog, series, from, to);
                    }
                    series = Arrays.copyOf(key, prefixLength);
                    count = 0;
                    blocks = 0;
                }
                addBlock(next.value, start);
            }
            if (series != null) {
                writeSeries(commit, changelog, series, from, to);
            } else if (from == StreamTime.NONE) {
                // Nothing was ever sealed, and there is nothing to seal yet.
                return;
            }
        }
        time.seal(to);
        changelog.send(Table.LATEST, CHANGELOG_KEY, ByteBuffer.allocate(8).putLong(to).array(), to);
    }

    private void addBlock(byte[] value, long start) {
        block.read(value, start);
        if (blocks == blockStarts.length) {
            blockStarts = Arrays.copyOf(blockStarts, blocks * 2);
        }
        blockStarts[blocks++] = count;
        if (count + block.size() > times.length) {
            int size = Math.max(times.length * 2, count + block.size());
            times = Arrays.copyOf(times, size);
            values = Arrays.copyOf(values, size);
        }
        for (int i = 0; i < block.size(); i++) {
            times[count] = block.timestamp(i);
            values[count] = block.value(i);
            count++;
        }
    }

    /**
     * The buckets of one series' readings, of each resolution, into their tables; and the series' latest reading into
     * the {@code latest} changelog if the seal takes all its readings (a restore takes the others' from the raw chunks,
     * which it skips once sealed: docs/storage.md, "Changelogs").
     */
    private void writeSeries(PreparedCommit commit, SeriesStore.Changelog changelog, byte[] prefix, long from, long to)
            throws RocksDBException {
        byte[] latest = reads.storedGet(Table.LATEST, prefix);
        if (latest != null) {
            long millis = ByteBuffer.wrap(latest).getLong();
            if (millis < to) {
                changelog.send(Table.LATEST, prefix, latest, millis);
            }
        }
        for (RollupStep step : STEPS) {
            Table table = Table.of(step);
            buckets.clear();
            arena.clear();
            long bucket = StreamTime.NONE;
            // Oldest first: the blocks came newest first, each block's readings oldest first.
            for (int b = blocks - 1; b >= 0; b--) {
                int end = b == blocks - 1 ? count : blockStarts[b + 1];
                for (int i = blockStarts[b]; i < end; i++) {
                    long start = step.bucketStart(times[i]);
                    if (start != bucket) {
                        if (bucket != StreamTime.NONE) {
                            park(bucket);
                        }
                        bucket = start;
                        counters.setOrClear(from != StreamTime.NONE && start < from
                                ? reads.storedGet(table, RowKey.withTimestamp(prefix, start)) : null);
                    }
                    counters.include(values[i], times[i]);
                }
            }
            if (bucket != StreamTime.NONE) {
                park(bucket);
            }
            commit.rows(table, prefix, buckets, arena.bytes());
        }
    }

    private void park(long bucket) {
        int length = counters.encodedSize();
        int offset = arena.reserve(length);
        counters.encodeInto(arena.bytes(), offset);
        buckets.put(bucket, offset, length);
    }
}
