package dev.tspipe.processor.store;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Iterator;
import java.util.List;
import java.util.NavigableMap;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import org.apache.kafka.streams.errors.ProcessorStateException;
import org.rocksdb.RocksDBException;
import org.rocksdb.WriteBatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The segments of a task's five tables, as Kafka Streams' {@code AbstractSegments} keeps a segmented store's: per
 * table, its segments by id; the segment of a write (created when it is the first row of its span); the drop of the
 * segments whose whole span has expired ({@code DropColumnFamily}, nothing deleted row by row); and the lock that
 * keeps a column family alive while it is read or written.
 *
 * <p>An expired segment leaves the live set at once (no write or new read goes to it), but its column family is
 * dropped only when no view that reads still hold lists it ({@link CommitViews}): a read that began before the seal
 * reads the rows of the hours it sealed from the raw blocks, and must find them all.
 *
 * <p>Thread rule: the maps change only under the write lock, and only on the thread that writes the store (the stream
 * thread, or the thread restoring the task: never both at once). That thread looks segments up without the lock (no
 * other thread changes them); any other thread reads only copies of them ({@link SegmentSet}), and the database only
 * under the read lock. The store closes under the write lock.
 */
final class Segments {

    private static final Logger LOG = LoggerFactory.getLogger(Segments.class);

    private final SeriesStoreSpec spec;
    private final SeriesDatabase database;
    private final SegmentSet live;
    /** The segments left out of the live set, with the newest view that lists them, oldest first: dropped once free. */
    private final List<Retired> retired = new ArrayList<>();
    /** Per table, the segment the last write went to (writes come in runs of one segment; the writing thread's). */
    private final Segment[] lastWritten = new Segment[Table.values().length];
    private final ReentrantReadWriteLock lock = new ReentrantReadWriteLock();
    /** The segments created since {@link #markCreated}: what a failed flush or restore batch drops again. */
    private final List<Segment> createdSinceMark = new ArrayList<>();

    /** The segments {@code database} held when it was opened, registered with the memory budget's flushing. */
    Segments(SeriesStoreSpec spec, SeriesDatabase database) {
        this.spec = spec;
        this.database = database;
        this.live = SegmentSet.live(spec);
        for (Segment segment : database.openedSegments()) {
            live.ofTable(segment.table).put(segment.id, segment);
        }
        for (Segment segment : all()) {
            RocksDbMemory.register(segment);
        }
    }

    Lock readLock() {
        return lock.readLock();
    }

    Lock writeLock() {
        return lock.writeLock();
    }

    /** The live segments (the writing thread; any other thread under the read lock, or a copy: {@link SegmentSet#copy}). */
    SegmentSet live() {
        return live;
    }

    /** The segment of a row of {@code table} at {@code epochMillis}, or null (the writing thread, or the read lock held). */
    Segment get(Table table, long epochMillis) {
        return live.get(table, epochMillis);
    }

    /** The live segments of {@code table}, oldest first (a view: the writing thread, or the read lock held). */
    Collection<Segment> of(Table table) {
        return live.of(table);
    }

    /** The live segments of {@code table} that hold rows of {@code [fromMillis, toMillis]} (a view, as {@link #of}). */
    Collection<Segment> overlapping(Table table, long fromMillis, long toMillis) {
        return live.overlapping(table, fromMillis, toMillis);
    }

    /** The live segments of {@code table}, oldest first, copied under the read lock (tests). */
    List<Segment> copyOf(Table table) {
        lock.readLock().lock();
        try {
            return new ArrayList<>(live.of(table));
        } finally {
            lock.readLock().unlock();
        }
    }

    /** The segments expired and not dropped yet, because a read may still need them (tests). */
    int retiredCount() {
        return retired.size();
    }

    /** Every live segment (the writing thread, or a lock held). */
    List<Segment> all() {
        List<Segment> all = new ArrayList<>();
        for (Table table : Table.values()) {
            all.addAll(live.of(table));
        }
        return all;
    }

    /**
     * The segment that a row of {@code table} at {@code epochMillis} goes to, created if it is the first of its span: hot
     * when it is the newest of its table. The writing thread only.
     */
    Segment forWrite(Table table, long epochMillis) throws RocksDBException {
        long id = spec.segmentOf(table, epochMillis);
        Segment last = lastWritten[table.ordinal()];
        if (last != null && last.id == id) {
            return last;
        }
        NavigableMap<Long, Segment> ofTable = live.ofTable(table);
        Segment segment = ofTable.get(id);
        if (segment != null) {
            lastWritten[table.ordinal()] = segment;
            return segment;
        }
        lock.writeLock().lock();
        try {
            database.validateOpen();
            segment = ofTable.get(id);
            if (segment == null) {
                segment = database.createSegment(table, id, ofTable.isEmpty() || id > ofTable.lastKey());
                ofTable.put(id, segment);
                createdSinceMark.add(segment);
                RocksDbMemory.register(segment);
            }
            lastWritten[table.ordinal()] = segment;
            return segment;
        } finally {
            lock.writeLock().unlock();
        }
    }

    /** Writes {@code batch} under the read lock: none of the segments it writes to is dropped meanwhile. */
    void write(WriteBatch batch) throws RocksDBException {
        lock.readLock().lock();
        try {
            database.write(batch);
        } finally {
            lock.readLock().unlock();
        }
    }

    /**
     * Takes out of the live set every segment whose whole span is before {@code streamTime - retention} of its table (a
     * raw segment: before the seal, {@link RollupSeal}), under the write lock: writes and reads that begin from now on
     * go without it. Its column family is dropped by {@link #dropRetired} once the views up to {@code newestView} (the
     * ones that list it) are released. The writing thread only.
     */
    void retireExpired(StreamTime time, long newestView) {
        long streamTime = time.current();
        if (streamTime == StreamTime.NONE) {
            return;
        }
        for (Table table : Table.values()) {
            if (!table.timeKeyed() || (table == Table.RAW && time.sealed() == StreamTime.NONE)) {
                continue;
            }
            // A segment's span [id * span, (id + 1) * span) is all expired when its end is at or before the
            // expiry limit, that is when id < floor(limit / span).
            long limit = table == Table.RAW ? time.sealed() : streamTime - spec.retentionMs(table);
            long firstLive = Math.floorDiv(limit, spec.spanMs(table));
            NavigableMap<Long, Segment> ofTable = live.ofTable(table);
            if (ofTable.isEmpty() || ofTable.firstKey() >= firstLive) {
                continue;
            }
            lock.writeLock().lock();
            try {
                for (Segment segment : new ArrayList<>(ofTable.headMap(firstLive, false).values())) {
                    forget(segment);
                    retired.add(new Retired(segment, newestView, System.nanoTime()));
                    LOG.debug("Expired segment {} of the series store in {} (stream time {}): dropped once no read "
                            + "needs it", segment.name(), database.dir(), streamTime);
                }
            } finally {
                lock.writeLock().unlock();
            }
        }
    }

    /**
     * Drops the column families of the expired segments that no referenced view lists any more. One that a read has
     * held longer than the bound of {@code views} is dropped all the same: that read is revoked (its next use fails
     * with a reason, never a short answer). The writing thread only.
     */
    void dropRetired(CommitViews views) {
        if (retired.isEmpty()) {
            return;
        }
        lock.writeLock().lock();
        try {
            database.validateOpen();
            long oldest = views.oldestReferenced();
            for (Iterator<Retired> each = retired.iterator(); each.hasNext(); ) {
                Retired expired = each.next();
                if (expired.newestView >= oldest) {
                    if (views.revokeHeldLongerThanBound(expired.newestView, expired.segment.name()) == 0) {
                        continue;
                    }
                    oldest = views.oldestReferenced();
                    if (expired.newestView >= oldest) {
                        continue;
                    }
                }
                dropColumnFamily(expired.segment);
                each.remove();
                LOG.info("Dropped expired segment {} of the series store in {} ({} ms after it expired)",
                        expired.segment.name(), database.dir(), (System.nanoTime() - expired.retiredNanos) / 1_000_000);
            }
        } catch (RocksDBException e) {
            throw new ProcessorStateException("cannot drop an expired segment of the series store in " + database.dir(), e);
        } finally {
            lock.writeLock().unlock();
        }
    }

    /** A segment out of the live set, listed by the views up to {@code newestView}. */
    private record Retired(Segment segment, long newestView, long retiredNanos) {
    }

    /** From now on, the segments created are noted, to be dropped by {@link #dropCreatedSinceMark}. The writing thread. */
    void markCreated() {
        createdSinceMark.clear();
    }

    /**
     * Drops the segments created since {@link #markCreated}, empty: what created them (a flush, a restore batch) failed
     * before any row reached them, and no view lists them (views are published after a write). The writing thread only.
     */
    void dropCreatedSinceMark() {
        if (createdSinceMark.isEmpty()) {
            return;
        }
        lock.writeLock().lock();
        try {
            for (Segment segment : createdSinceMark) {
                forget(segment);
                dropColumnFamily(segment);
            }
        } catch (RocksDBException e) {
            throw new ProcessorStateException("cannot drop a segment of the series store in " + database.dir(), e);
        } finally {
            createdSinceMark.clear();
            lock.writeLock().unlock();
        }
    }

    /** Takes {@code segment} out of the live set; the write lock held. */
    private void forget(Segment segment) {
        live.ofTable(segment.table).remove(segment.id);
        if (lastWritten[segment.table.ordinal()] == segment) {
            lastWritten[segment.table.ordinal()] = null;
        }
    }

    /** Drops {@code segment}'s column family (out of the live set, and no read lists it); the write lock held. */
    private void dropColumnFamily(Segment segment) throws RocksDBException {
        RocksDbMemory.unregister(segment);
        database.drop(segment);
    }

    /**
     * Lets go of every segment (the store closes, the write lock held, no read open): unregistered, handles closed. An
     * expired segment not dropped yet is dropped at the next open, which finds it expired again.
     */
    void close() {
        List<Segment> all = all();
        retired.forEach(expired -> all.add(expired.segment));
        for (Segment segment : all) {
            RocksDbMemory.unregister(segment);
            segment.handle.close();
        }
        for (Table table : Table.values()) {
            live.ofTable(table).clear();
        }
        retired.clear();
        Arrays.fill(lastWritten, null);
    }
}
