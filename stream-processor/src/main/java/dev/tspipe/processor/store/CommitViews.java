package dev.tspipe.processor.store;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.Lock;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The views of the store that reads see ({@link CommitView}): after every write that reached the database (a commit's
 * batches, a restore's) the writing thread publishes a new one, and a read that begins takes the newest. Keeps the
 * views still referenced, oldest first, and the open reads, so that {@link Segments} drops a segment that a seal made
 * droppable only once no referenced view lists it ({@link #oldestReferenced}), and revokes the reads that hold such a
 * view longer than the bound ({@link #revokeHeldLongerThanBound}).
 *
 * <p>Thread rule: {@link #publish}, {@link #oldestReferenced} and {@link #revokeHeldLongerThanBound}, the thread that
 * writes the store (the last with {@link Segments}' write lock held); {@link #open} and the release of a view, any
 * thread; {@link #closeAll}, with the write lock held.
 */
final class CommitViews {

    private static final Logger LOG = LoggerFactory.getLogger(CommitViews.class);

    private final SeriesDatabase database;
    private final Lock readLock;
    private final long maxHoldNanos;
    private final Duration maxHold;
    private volatile CommitView newest;
    /** The views published and not freed, oldest first. Guarded by itself. */
    private final Deque<CommitView> unfreed = new ArrayDeque<>();
    private final Set<StoreRead> open = ConcurrentHashMap.newKeySet();
    private long nextId;

    /**
     * @param maxHold how long a read may keep a segment that a seal dropped: a read that holds its view longer is revoked
     *                when such a drop waits for it
     */
    CommitViews(SeriesDatabase database, Lock readLock, Duration maxHold) {
        this.database = database;
        this.readLock = readLock;
        this.maxHold = maxHold;
        this.maxHoldNanos = maxHold.toNanos();
    }

    /**
     * A write reached the database: from now on reads see it, with {@code time} and {@code segments} (the live ones,
     * copied). The writing thread, right after the write and before any other.
     */
    void publish(StreamTime.Applied time, SegmentSet segments) {
        readLock.lock();
        try {
            database.validateOpen();
            CommitView view = new CommitView(nextId++, time, segments.copy(), database.rocksDb().getSnapshot(), this);
            CommitView before = newest;
            synchronized (unfreed) {
                unfreed.addLast(view);
            }
            newest = view;
            if (before != null) {
                before.release();
            }
        } finally {
            readLock.unlock();
        }
    }

    /** The id of the newest view (the one a read that begins now sees), or -1 before the first. */
    long newestId() {
        CommitView view = newest;
        return view == null ? -1 : view.id;
    }

    /** A read of the newest view, to be closed; fails when the store is closed. */
    StoreRead open() {
        while (true) {
            CommitView view = newest;
            if (view == null) {
                throw new InvalidStateStoreException("the series store in " + database.dir() + " is not open");
            }
            if (view.retain()) {
                StoreRead read = StoreRead.of(view, this);
                open.add(read);
                return read;
            }
            // Released by the writer in between, once a newer one was published (or the store closed): look again.
            database.validateOpen();
        }
    }

    /** A read closed, or was revoked: it holds no view. */
    void closed(StoreRead read) {
        open.remove(read);
    }

    /** The id of the oldest view that a read (or the store, the newest) still references, or Long.MAX_VALUE if none. */
    long oldestReferenced() {
        synchronized (unfreed) {
            for (CommitView view : unfreed) {
                if (view.isReferenced()) {
                    return view.id;
                }
            }
        }
        return Long.MAX_VALUE;
    }

    /**
     * Revokes the reads of the views up to {@code lastId} that began longer ago than the bound; a segment they list waits
     * to be dropped. The writing thread, {@link Segments}' write lock held.
     *
     * @return how many reads were revoked
     */
    int revokeHeldLongerThanBound(long lastId, String segmentName) {
        long now = System.nanoTime();
        int revoked = 0;
        for (StoreRead read : open) {
            if (read.view.id <= lastId && now - read.startedNanos > maxHoldNanos) {
                read.revoke("a read of the series store in " + database.dir() + " was open longer than "
                        + maxHold.toMillis() + " ms while segment " + segmentName + ", which a seal dropped, waited for it; "
                        + "retry the read");
                revoked++;
            }
        }
        if (revoked > 0) {
            LOG.warn("Revoked {} read(s) of the series store in {} that held segment {} longer than {} ms after a seal "
                    + "dropped it (unclosed iterators?)", revoked, database.dir(), segmentName, maxHold.toMillis());
        }
        return revoked;
    }

    /**
     * The last reference to {@code view} was released: its snapshot goes (unless the store's close freed it). Any thread;
     * takes the read lock (the writer may hold the write lock already), so the database is not closed meanwhile: it
     * closes after {@link #closeAll}, which empties {@link #unfreed}.
     */
    void free(CommitView view) {
        readLock.lock();
        try {
            synchronized (unfreed) {
                if (!unfreed.remove(view)) {
                    return;
                }
            }
            view.pointReads.close();
            database.rocksDb().releaseSnapshot(view.snapshot);
        } finally {
            readLock.unlock();
        }
    }

    /** Reads open now (tests). */
    int openReads() {
        return open.size();
    }

    /** Views not freed yet (tests: a closed read frees its view once a newer one is published). */
    int unfreedViews() {
        synchronized (unfreed) {
            return unfreed.size();
        }
    }

    /**
     * The store closes ({@link Segments}' write lock held, the database still open): every open read is revoked, its
     * next use fails as Kafka Streams' iterators do once their store is closed; every snapshot is released.
     */
    void closeAll() {
        for (StoreRead read : open) {
            read.revoke("the series store in " + database.dir() + " is closed");
        }
        open.clear();
        newest = null;
        synchronized (unfreed) {
            for (CommitView view : unfreed) {
                view.pointReads.close();
                database.rocksDb().releaseSnapshot(view.snapshot);
            }
            unfreed.clear();
        }
    }
}
