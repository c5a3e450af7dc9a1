package dev.tspipe.processor.store;

import java.util.Arrays;
import java.util.NoSuchElementException;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.state.KeyValueIterator;

/**
 * The rows of a rollup table as readers see them (docs/storage.md, "Rollups from blocks"): the buckets its segments
 * store, which are those that began before the seal ({@link RollupSeal}), merged in key order (or its reverse) with
 * the buckets computed from the raw blocks' readings since the seal ({@link BlockBuckets}). A bucket in both (one that
 * straddles the seal) is the computed one, which went on from the stored counters. A stored bucket that does not begin
 * before the seal the read started with is kept: a seal applied while the read opens its iterators may have dropped
 * the raw blocks it was computed from (reads hold no snapshot: a read that races a seal of a bucket that straddles it
 * may count the readings of that hour twice, once).
 *
 * <p>Thread rule: one thread at a time, like any iterator of a store; closing closes both.
 */
final class RollupRows implements KeyValueIterator<Bytes, byte[]> {

    private final KeyValueIterator<Bytes, byte[]> stored;
    private final KeyValueIterator<Bytes, byte[]> computed;
    private final boolean reverse;
    private KeyValue<Bytes, byte[]> nextStored;
    private KeyValue<Bytes, byte[]> nextComputed;

    RollupRows(KeyValueIterator<Bytes, byte[]> stored, KeyValueIterator<Bytes, byte[]> computed, boolean reverse) {
        this.stored = stored;
        this.computed = computed;
        this.reverse = reverse;
    }

    @Override
    public boolean hasNext() {
        fill();
        return nextStored != null || nextComputed != null;
    }

    @Override
    public KeyValue<Bytes, byte[]> next() {
        fill();
        if (nextStored == null && nextComputed == null) {
            throw new NoSuchElementException();
        }
        int order = nextStored == null ? 1 : nextComputed == null ? -1 : compare(nextStored.key, nextComputed.key);
        KeyValue<Bytes, byte[]> row;
        if (order < 0) {
            row = nextStored;
            nextStored = null;
        } else {
            row = nextComputed;
            nextComputed = null;
            if (order == 0) {
                nextStored = null;
            }
        }
        return row;
    }

    @Override
    public Bytes peekNextKey() {
        fill();
        if (nextStored == null && nextComputed == null) {
            throw new NoSuchElementException();
        }
        if (nextStored == null) {
            return nextComputed.key;
        }
        if (nextComputed == null) {
            return nextStored.key;
        }
        return compare(nextStored.key, nextComputed.key) < 0 ? nextStored.key : nextComputed.key;
    }

    @Override
    public void close() {
        try {
            stored.close();
        } finally {
            computed.close();
        }
    }

    private void fill() {
        if (nextStored == null && stored.hasNext()) {
            nextStored = stored.next();
        }
        if (nextComputed == null && computed.hasNext()) {
            nextComputed = computed.next();
        }
    }

    /** Negative when {@code a} comes first in the iteration's order. */
    private int compare(Bytes a, Bytes b) {
        int order = Arrays.compareUnsigned(a.get(), b.get());
        return reverse ? -order : order;
    }
}
