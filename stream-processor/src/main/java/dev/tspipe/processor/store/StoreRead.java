package dev.tspipe.processor.store;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.rocksdb.ReadOptions;
import org.rocksdb.Snapshot;

/**
 * One read of the store (a point read, or a range until its iterator is closed): what it reads by, and the iterators it
 * opened. A reader's read holds a {@link CommitView} from its start to its close, so every iterator and point read of it
 * sees the same applied write with that write's stream time and seal, and the segments it lists stay. The thread that
 * writes the store reads without a view ({@link #live}): no other thread writes, so what it reads is the last write.
 *
 * <p>A read that holds a view past the store's bound while a seal waits to drop a segment of it is revoked
 * ({@link CommitViews}): its iterators let go of RocksDB, and its next use fails with an
 * {@link InvalidStateStoreException} that says why (the query server answers 503 with {@code Retry-After}), never a
 * short answer.
 *
 * <p>Thread rule: the reading thread; {@link #revoke} and the store's close run with {@link Segments}' write lock held,
 * every access to RocksDB of the read with its read lock held.
 */
final class StoreRead implements AutoCloseable {

    /** The view held, or null for the writing thread's own reads. */
    final CommitView view;
    final SegmentSet segments;
    final StreamTime.Applied time;
    /** When the read began ({@link System#nanoTime}). */
    final long startedNanos;
    private final CommitViews owner;
    private final Set<SegmentIterator> iterators = ConcurrentHashMap.newKeySet();
    private final AtomicBoolean released = new AtomicBoolean();
    private volatile String revoked;

    private StoreRead(CommitView view, SegmentSet segments, StreamTime.Applied time, CommitViews owner) {
        this.view = view;
        this.segments = segments;
        this.time = time;
        this.owner = owner;
        this.startedNanos = System.nanoTime();
    }

    /** A reader's read of {@code view}, which it has retained; released at {@link #close}. */
    static StoreRead of(CommitView view, CommitViews owner) {
        return new StoreRead(view, view.segments, view.time, owner);
    }

    /** The writing thread's read of the store as it is: the live segments, stream time and seal as last applied. */
    static StoreRead live(SegmentSet segments, StreamTime time) {
        return new StoreRead(null, segments, time.applied(), null);
    }

    /** The snapshot the read's iterators read at, or null (the writing thread's read: the database as it is). */
    Snapshot snapshot() {
        return view == null ? null : view.snapshot;
    }

    /** The options of the read's point reads, or null (the writing thread's read: RocksDB's defaults). */
    ReadOptions pointReads() {
        return view == null ? null : view.pointReads;
    }

    /** Fails if the read was revoked (the store's read lock held, before each access to RocksDB). */
    void checkNotRevoked() {
        String why = revoked;
        if (why != null) {
            throw new InvalidStateStoreException(why);
        }
    }

    boolean isRevoked() {
        return revoked != null;
    }

    void opened(SegmentIterator iterator) {
        iterators.add(iterator);
    }

    void iteratorClosed(SegmentIterator iterator) {
        iterators.remove(iterator);
    }

    /**
     * The read may not go on ({@code why}: it held its view too long, or the store closes): its iterators let go of
     * RocksDB and its view is released; its next use fails. The store's write lock held.
     */
    void revoke(String why) {
        revoked = why;
        for (SegmentIterator iterator : iterators) {
            iterator.revoke();
        }
        iterators.clear();
        releaseView();
    }

    /** The read is done: what it still has open is closed, its view released. */
    @Override
    public void close() {
        for (SegmentIterator iterator : iterators) {
            iterator.close();
        }
        releaseView();
    }

    private void releaseView() {
        if (view != null && released.compareAndSet(false, true)) {
            owner.closed(this);
            view.release();
        }
    }
}
