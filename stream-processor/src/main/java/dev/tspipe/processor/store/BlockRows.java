package dev.tspipe.processor.store;

import dev.tspipe.model.blocks.BlockReader;
import dev.tspipe.model.keys.RowKey;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.state.KeyValueIterator;

import java.util.Arrays;
import java.util.NoSuchElementException;

/**
 * The rows of a raw table stored as blocks (docs/storage.md, "Blocks"): one row per reading, keyed by its row key
 * {@code device#metric#reversedTs}, its value as {@code RawRow} writes it, in unsigned key order (newest first
 * within a series) or its reverse, within {@code [lower, upperExclusive)} and without readings older than the
 * cutoff. So every reader of the raw table reads the rows it read before blocks.
 *
 * <p>Which blocks hold the rows of a range: a block's key is its series prefix and its start, so it is the largest
 * key any of its readings can have, and the smallest is the key of its last millisecond ({@link #smallestKeyOf}).
 * The blocks whose keys are in the range hold every reading in it but the readings of at most one more block, the
 * first block at or after the upper bound, when that block's smallest key is below the bound (the bound falls
 * inside its time span; blocks of one series cover disjoint spans, and series prefixes are prefix-free):
 * {@link #of} finds it.
 *
 * <p>Thread rule: one thread at a time, like any iterator of a store; closing closes the blocks' iterator.
 */
final class BlockRows implements KeyValueIterator<Bytes, byte[]> {

    private final KeyValueIterator<Bytes, byte[]> blocks;
    private KeyValue<Bytes, byte[]> straddling;
    private final byte[] lower;
    private final byte[] upperExclusive;
    private final boolean reverse;
    private final long cutoff;
    private final BlockReader reader = new BlockReader();
    private final long spanMillis;
    private byte[] prefix;
    /** The current block's prefix followed by a reading's reversed timestamp: the key compared with the bounds. */
    private byte[] probeKey;
    /** Whether every reading of the current block is in the range's keys (then no key is compared). */
    private boolean wholeBlockInRange;
    private int index;
    private int end;
    /** The reading {@link #advance} stopped at, or -1. */
    private int current = -1;
    private KeyValue<Bytes, byte[]> next;

    /** Ranges of stored blocks, as the store's segments give them. */
    interface BlockSource {
        /** The blocks with keys in {@code [lower, upperExclusive)} (null: unbounded), in key order or its reverse. */
        KeyValueIterator<Bytes, byte[]> range(byte[] lower, byte[] upperExclusive, boolean reverse);
    }

    /** The rows of the readings in {@code [lower, upperExclusive)} of the blocks of {@code source}, at or after {@code cutoff}. */
    static BlockRows of(BlockSource source, byte[] lower, byte[] upperExclusive, boolean reverse, long spanMillis, long cutoff) {
        return of(source, source, lower, upperExclusive, reverse, spanMillis, cutoff);
    }

    /**
     * As {@link #of(BlockSource, byte[], byte[], boolean, long, long)}, the block past the range found by {@code probe}:
     * asked for the blocks from the upper bound on (upper bound null, forward), it may answer only those up to the
     * block whose span holds the bound, if it knows which (the others are never the block looked for).
     */
    static BlockRows of(BlockSource source, BlockSource probe, byte[] lower, byte[] upperExclusive, boolean reverse,
                        long spanMillis, long cutoff) {
        KeyValue<Bytes, byte[]> straddling = null;
        if (upperExclusive != null && (lower == null || Arrays.compareUnsigned(lower, upperExclusive) < 0)) {
            try (KeyValueIterator<Bytes, byte[]> after = probe.range(upperExclusive, null, false)) {
                if (after.hasNext()) {
                    KeyValue<Bytes, byte[]> block = after.next();
                    if (Arrays.compareUnsigned(smallestKeyOf(block.key.get(), spanMillis), upperExclusive) < 0) {
                        straddling = block;
                    }
                }
            }
        }
        return new BlockRows(source.range(lower, upperExclusive, reverse), straddling, lower, upperExclusive, reverse, spanMillis, cutoff);
    }

    /**
     * @param blocks       the blocks with keys in {@code [lower, upperExclusive)}, in the order of {@code reverse}
     * @param straddling   the first block at or after {@code upperExclusive} if its readings may be below it, or null
     * @param spanMillis   the span of a block
     * @param cutoff       readings before this time are expired: not returned
     */
    private BlockRows(KeyValueIterator<Bytes, byte[]> blocks, KeyValue<Bytes, byte[]> straddling, byte[] lower, byte[] upperExclusive,
              boolean reverse, long spanMillis, long cutoff) {
        this.blocks = blocks;
        this.straddling = straddling;
        this.lower = lower;
        this.upperExclusive = upperExclusive;
        this.reverse = reverse;
        this.spanMillis = spanMillis;
        this.cutoff = cutoff;
    }

    /** The smallest row key a reading of the block with key {@code blockKey} can have: that of its last millisecond. */
    static byte[] smallestKeyOf(byte[] blockKey, long spanMillis) {
        byte[] key = blockKey.clone();
        long last = Math.min(RowKey.MAX_EPOCH_MILLIS, RowKey.timestampOf(blockKey) + spanMillis - 1);
        RowKey.writeTimestamp(last, key, key.length - RowKey.TIMESTAMP_DIGITS);
        return key;
    }

    /** The start of the block that holds a reading at {@code epochMillis}. */
    static long blockStart(long epochMillis, long spanMillis) {
        return epochMillis - Math.floorMod(epochMillis, spanMillis);
    }

    @Override
    public boolean hasNext() {
        if (next == null && advance()) {
            next = KeyValue.pair(Bytes.wrap(RowKey.withTimestamp(prefix, reader.timestamp(current))), reader.rawRow(current));
        }
        return next != null;
    }

    /**
     * Moves to the next reading in the range without making its row (what computed buckets read: {@link BlockBuckets});
     * false at the end. Then {@link #seriesPrefix}, {@link #timestamp} and {@link #value} describe it. Not mixed with
     * {@link #next}: a row made by {@link #hasNext} and not taken is skipped.
     */
    boolean advance() {
        next = null;
        while (true) {
            while (index != end) {
                int i = reverse ? index++ : --index;
                if (inRange(i)) {
                    current = i;
                    return true;
                }
            }
            KeyValue<Bytes, byte[]> block = nextBlock();
            if (block == null) {
                current = -1;
                return false;
            }
            byte[] key = block.key.get();
            prefix = Arrays.copyOf(key, RowKey.seriesPrefixLength(key));
            probeKey = key.clone();
            wholeBlockInRange = (lower == null || Arrays.compareUnsigned(smallestKeyOf(key, spanMillis), lower) >= 0)
                    && (upperExclusive == null || Arrays.compareUnsigned(key, upperExclusive) < 0);
            reader.read(block.value, RowKey.timestampOf(key));
            // Forward: newest first, so from the end of the block's readings (oldest first) down.
            index = reverse ? 0 : reader.size();
            end = reverse ? reader.size() : 0;
        }
    }

    /** The series prefix of the reading {@link #advance} moved to; one array per block, not to be changed. */
    byte[] seriesPrefix() {
        return prefix;
    }

    long timestamp() {
        return reader.timestamp(current);
    }

    double value() {
        return reader.value(current);
    }

    @Override
    public KeyValue<Bytes, byte[]> next() {
        if (!hasNext()) {
            throw new NoSuchElementException();
        }
        KeyValue<Bytes, byte[]> row = next;
        next = null;
        return row;
    }

    @Override
    public Bytes peekNextKey() {
        if (!hasNext()) {
            throw new NoSuchElementException();
        }
        return next.key;
    }

    @Override
    public void close() {
        blocks.close();
    }

    /** How many segments the blocks are read from (tests: a range of one series reads only those that overlap it). */
    int segmentsRead() {
        return blocks instanceof SegmentIterator segmentIterator ? segmentIterator.segmentsRead() : -1;
    }

    /** Whether the reading at {@code i} of the current block is in the range and not expired. */
    private boolean inRange(int i) {
        long timestamp = reader.timestamp(i);
        if (timestamp < cutoff) {
            return false;
        }
        if (wholeBlockInRange) {
            return true;
        }
        RowKey.writeTimestamp(timestamp, probeKey, prefix.length);
        return (lower == null || Arrays.compareUnsigned(probeKey, lower) >= 0)
                && (upperExclusive == null || Arrays.compareUnsigned(probeKey, upperExclusive) < 0);
    }

    /** Forward: the blocks of the range, then the straddling one; reverse: the straddling one first. */
    private KeyValue<Bytes, byte[]> nextBlock() {
        if (reverse && straddling != null) {
            KeyValue<Bytes, byte[]> block = straddling;
            straddling = null;
            return block;
        }
        if (blocks.hasNext()) {
            return blocks.next();
        }
        if (!reverse && straddling != null) {
            KeyValue<Bytes, byte[]> block = straddling;
            straddling = null;
            return block;
        }
        return null;
    }
}
