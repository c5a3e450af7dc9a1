package dev.tspipe.processor.store;

import java.util.concurrent.atomic.AtomicInteger;
import org.rocksdb.ReadOptions;
import org.rocksdb.Snapshot;

/**
 * The store as one applied write left it (a commit's batches, or a restore's), which every read that starts before the
 * next one sees whole (docs/storage.md, "What a read sees"): a RocksDB snapshot of the task's database, whose column
 * families are the tables' segments, so one snapshot covers every iterator and point read of a query; the segments
 * that existed then; and the stream time and seal that write stored, by which the read expires rows and splits a
 * rollup into stored and computed buckets.
 *
 * <p>Reference counted: {@link CommitViews} holds one reference while the view is the newest, each open read one more;
 * the last release frees the snapshot. A segment that a seal drops stays until no view that lists it is referenced.
 *
 * <p>Thread rule: created by the thread that writes the store; retained and released by any thread.
 */
final class CommitView {

    /** Which write this is, counting from the store's open: views are published in this order. */
    final long id;
    final StreamTime.Applied time;
    final SegmentSet segments;
    /** The RocksDB snapshot of this write (taken right after it, before any later write). */
    final Snapshot snapshot;
    /** Options of point reads at {@link #snapshot}, shared by this view's reads (RocksDB only reads them). */
    final ReadOptions pointReads;
    private final CommitViews owner;
    private final AtomicInteger references = new AtomicInteger(1);

    CommitView(long id, StreamTime.Applied time, SegmentSet segments, Snapshot snapshot, CommitViews owner) {
        this.id = id;
        this.time = time;
        this.segments = segments;
        this.snapshot = snapshot;
        this.pointReads = new ReadOptions().setSnapshot(snapshot);
        this.owner = owner;
    }

    /** One more reference, unless the last one was released already (then the view is gone: take the newer one). */
    boolean retain() {
        while (true) {
            int count = references.get();
            if (count == 0) {
                return false;
            }
            if (references.compareAndSet(count, count + 1)) {
                return true;
            }
        }
    }

    /** Releases a reference; the last one frees the snapshot. */
    void release() {
        int left = references.decrementAndGet();
        if (left == 0) {
            owner.free(this);
        } else if (left < 0) {
            throw new IllegalStateException("commit view " + id + " released more often than retained");
        }
    }

    /** Whether any reference is held: an open read, or the store because it is the newest view. */
    boolean isReferenced() {
        return references.get() > 0;
    }
}
