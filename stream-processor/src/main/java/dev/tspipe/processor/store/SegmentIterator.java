package dev.tspipe.processor.store;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.PriorityQueue;
import java.util.concurrent.locks.Lock;
import java.util.function.Supplier;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.rocksdb.ReadOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksIterator;
import org.rocksdb.Slice;
import org.rocksdb.Snapshot;

/**
 * A k-way merge of one RocksDB iterator per segment of one table, in unsigned byte order
 * (forward or reverse), that skips rows expired for its read at the moment they are reached. A key lives in exactly
 * one segment (the one of its timestamp), so the merge never sees a key twice; the store opens it
 * only on the segments that overlap the range's time span. Every segment's iterator reads at the snapshot of its
 * {@link StoreRead} (the writing thread's own reads: the database as it is).
 *
 * <p>Thread rule: any reader thread; every method holds {@link Segments}' read lock. A segment is dropped only once no
 * open read lists it; a read revoked (it held its view too long, or the store closes) has its iterators let go of
 * RocksDB under the write lock ({@link #revoke}), and their next use fails.
 */
final class SegmentIterator implements KeyValueIterator<Bytes, byte[]> {

    private final StoreRead read;
    private final Lock readLock;
    private final Table table;
    /** Whether rows expired for readers are skipped (not when the raw blocks of rollups are read: {@link RollupSeal}). */
    private final boolean expire;
    private final PriorityQueue<Source> heap;
    private final List<Source> sources = new ArrayList<>();
    private KeyValue<Bytes, byte[]> next;
    private volatile boolean closed;

    /**
     * @param lower          first key (inclusive), or null for unbounded
     * @param upperExclusive first key after the range, or null for unbounded
     * @param expire         whether rows expired for readers are skipped
     */
    SegmentIterator(StoreRead read, Lock readLock, Table table, RocksDB db, List<Segment> segments, byte[] lower,
                    byte[] upperExclusive, boolean reverse, boolean expire) {
        this.read = read;
        this.readLock = readLock;
        this.table = table;
        this.expire = expire;
        Comparator<Source> order = (a, b) -> Arrays.compareUnsigned(a.key, b.key);
        this.heap = new PriorityQueue<>(Math.max(1, segments.size()), reverse ? order.reversed() : order);
        try {
            for (Segment segment : segments) {
                Source source = new Source(db, read.snapshot(), segment, lower, upperExclusive, reverse);
                sources.add(source);
                if (source.key != null) {
                    heap.add(source);
                } else {
                    source.close();
                }
            }
        } catch (RuntimeException e) {
            sources.forEach(Source::close);
            throw e;
        }
    }

    @Override
    public boolean hasNext() {
        return underReadLock(() -> {
            fill();
            return next != null;
        });
    }

    @Override
    public KeyValue<Bytes, byte[]> next() {
        return underReadLock(() -> {
            KeyValue<Bytes, byte[]> result = peek();
            next = null;
            return result;
        });
    }

    @Override
    public Bytes peekNextKey() {
        return underReadLock(() -> peek().key);
    }

    @Override
    public void close() {
        readLock.lock();
        try {
            if (!closed) {
                release();
                read.iteratorClosed(this);
            }
        } finally {
            readLock.unlock();
        }
    }

    private KeyValue<Bytes, byte[]> peek() {
        fill();
        if (next == null) {
            throw new NoSuchElementException("no more rows in store " + table.storeName());
        }
        return next;
    }

    /** Runs {@code action} on the open iterator with the store's read lock held: no segment is dropped meanwhile. */
    private <T> T underReadLock(Supplier<T> action) {
        readLock.lock();
        try {
            read.checkNotRevoked();
            checkOpen();
            return action.get();
        } finally {
            readLock.unlock();
        }
    }

    /** How many segments this iterator reads (tests: a range of one series reads only those that overlap it). */
    int segmentsRead() {
        return sources.size();
    }

    /**
     * Lets go of RocksDB because the read is revoked (the store closes, or the read held its view too long; write lock
     * held); later use fails with the read's reason, as Kafka Streams' own iterators do once their store is closed.
     */
    void revoke() {
        if (!closed) {
            release();
        }
    }

    private synchronized void release() {
        closed = true;
        next = null;
        heap.clear();
        sources.forEach(Source::close);
    }

    private synchronized void fill() {
        while (next == null && !heap.isEmpty()) {
            Source top = heap.poll();
            byte[] key = top.key;
            byte[] value = top.value;
            top.advance();
            if (top.key != null) {
                heap.add(top);
            } else {
                top.close();
            }
            if (!expire || !read.time.isExpiredKey(table, key)) {
                next = KeyValue.pair(Bytes.wrap(key), value);
            }
        }
    }

    private void checkOpen() {
        if (closed) {
            throw new InvalidStateStoreException("the iterator of store " + table.storeName() + " is closed");
        }
    }

    /** The iterator of one segment, with its current row copied out (null key: exhausted). */
    private static final class Source {
        private final byte[] lower;
        private final byte[] upperExclusive;
        private final boolean reverse;
        private final Slice lowerSlice;
        private final Slice upperSlice;
        private final ReadOptions readOptions;
        private RocksIterator iterator;
        byte[] key;
        byte[] value;

        Source(RocksDB db, Snapshot snapshot, Segment segment, byte[] lower, byte[] upperExclusive, boolean reverse) {
            this.lower = lower;
            this.upperExclusive = upperExclusive;
            this.reverse = reverse;
            this.readOptions = new ReadOptions();
            if (snapshot != null) {
                readOptions.setSnapshot(snapshot);
            }
            // The bounds let RocksDB stop at the range's end instead of reading past it; the Java checks
            // in load() make the range exact whatever RocksDB does with them.
            this.lowerSlice = lower == null ? null : new Slice(lower);
            this.upperSlice = upperExclusive == null ? null : new Slice(upperExclusive);
            if (lowerSlice != null) {
                readOptions.setIterateLowerBound(lowerSlice);
            }
            if (upperSlice != null) {
                readOptions.setIterateUpperBound(upperSlice);
            }
            this.iterator = db.newIterator(segment.handle, readOptions);
            if (reverse) {
                if (upperExclusive == null) {
                    iterator.seekToLast();
                } else {
                    iterator.seekForPrev(upperExclusive);
                    if (iterator.isValid() && Arrays.equals(iterator.key(), upperExclusive)) {
                        iterator.prev();
                    }
                }
            } else if (lower == null) {
                iterator.seekToFirst();
            } else {
                iterator.seek(lower);
            }
            load();
        }

        void advance() {
            if (reverse) {
                iterator.prev();
            } else {
                iterator.next();
            }
            load();
        }

        private void load() {
            key = null;
            value = null;
            if (!iterator.isValid()) {
                return;
            }
            byte[] candidate = iterator.key();
            if (lower != null && Arrays.compareUnsigned(candidate, lower) < 0) {
                return;
            }
            if (upperExclusive != null && Arrays.compareUnsigned(candidate, upperExclusive) >= 0) {
                return;
            }
            key = candidate;
            value = iterator.value();
        }

        void close() {
            key = null;
            value = null;
            if (iterator != null) {
                iterator.close();
                iterator = null;
                readOptions.close();
                if (lowerSlice != null) {
                    lowerSlice.close();
                }
                if (upperSlice != null) {
                    upperSlice.close();
                }
            }
        }
    }
}
