package dev.tspipe.processor.store;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.Consumer;
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
 * <p>Thread rule: the maps change only under the write lock, and only on the thread that writes the store (the stream
 * thread, or the thread restoring the task: never both at once). That thread looks segments up without the lock (no
 * other thread changes them); any other thread reads them, and the database, only under the read lock. The store
 * closes under the write lock.
 */
final class Segments {

    private static final Logger LOG = LoggerFactory.getLogger(Segments.class);

    private final SeriesStoreSpec spec;
    private final SeriesDatabase database;
    private final Map<Table, TreeMap<Long, Segment>> byTable = new EnumMap<>(Table.class);
    /** Per table, the segment the last write went to (writes come in runs of one segment; the writing thread's). */
    private final Segment[] lastWritten = new Segment[Table.values().length];
    private final ReentrantReadWriteLock lock = new ReentrantReadWriteLock();
    /** The segments created since {@link #markCreated}: what a failed flush or restore batch drops again. */
    private final List<Segment> createdSinceMark = new ArrayList<>();

    /** The segments {@code database} held when it was opened, registered with the memory budget's flushing. */
    Segments(SeriesStoreSpec spec, SeriesDatabase database) {
        this.spec = spec;
        this.database = database;
        for (Table table : Table.values()) {
            byTable.put(table, new TreeMap<>());
        }
        for (Segment segment : database.openedSegments()) {
            byTable.get(segment.table).put(segment.id, segment);
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

    /** The segment of a row of {@code table} at {@code epochMillis}, or null (the writing thread, or the read lock held). */
    Segment get(Table table, long epochMillis) {
        return byTable.get(table).get(spec.segmentOf(table, epochMillis));
    }

    /** The live segments of {@code table}, oldest first (a view: the writing thread, or the read lock held). */
    Collection<Segment> of(Table table) {
        return byTable.get(table).values();
    }

    /** The live segments of {@code table} that hold rows of {@code [fromMillis, toMillis]} (a view, as {@link #of}). */
    Collection<Segment> overlapping(Table table, long fromMillis, long toMillis) {
        return byTable.get(table).subMap(spec.segmentOf(table, fromMillis), true, spec.segmentOf(table, toMillis), true).values();
    }

    /** The live segments of {@code table}, oldest first, copied under the read lock (tests). */
    List<Segment> copyOf(Table table) {
        lock.readLock().lock();
        try {
            return new ArrayList<>(byTable.get(table).values());
        } finally {
            lock.readLock().unlock();
        }
    }

    /** Every live segment (the writing thread, or a lock held). */
    List<Segment> all() {
        List<Segment> all = new ArrayList<>();
        byTable.values().forEach(ofTable -> all.addAll(ofTable.values()));
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
        TreeMap<Long, Segment> ofTable = byTable.get(table);
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
     * Drops every segment whose whole span is before {@code streamTime - retention} of its table (a raw segment: before
     * the seal, {@link RollupSeal}), under the write lock; {@code beforeDrop} lets go of what reads a segment first (its
     * iterators). The writing thread only.
     */
    void dropExpired(StreamTime time, Consumer<Segment> beforeDrop) {
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
            TreeMap<Long, Segment> ofTable = byTable.get(table);
            if (ofTable.isEmpty() || ofTable.firstKey() >= firstLive) {
                continue;
            }
            lock.writeLock().lock();
            try {
                for (Segment segment : new ArrayList<>(ofTable.headMap(firstLive, false).values())) {
                    drop(segment, beforeDrop);
                    LOG.info("Dropped expired segment {} of the series store in {} (stream time {})", segment.name(),
                            database.dir(), streamTime);
                }
            } catch (RocksDBException e) {
                throw new ProcessorStateException("cannot drop an expired segment of the series store in " + database.dir(), e);
            } finally {
                lock.writeLock().unlock();
            }
        }
    }

    /** From now on, the segments created are noted, to be dropped by {@link #dropCreatedSinceMark}. The writing thread. */
    void markCreated() {
        createdSinceMark.clear();
    }

    /**
     * Drops the segments created since {@link #markCreated}, empty: what created them (a flush, a restore batch) failed
     * before any row reached them. {@code beforeDrop} as for {@link #dropExpired}. The writing thread only.
     */
    void dropCreatedSinceMark(Consumer<Segment> beforeDrop) {
        if (createdSinceMark.isEmpty()) {
            return;
        }
        lock.writeLock().lock();
        try {
            for (Segment segment : createdSinceMark) {
                drop(segment, beforeDrop);
            }
        } catch (RocksDBException e) {
            throw new ProcessorStateException("cannot drop a segment of the series store in " + database.dir(), e);
        } finally {
            createdSinceMark.clear();
            lock.writeLock().unlock();
        }
    }

    /** Drops {@code segment}'s column family and forgets it, after {@code beforeDrop}; the write lock held. */
    private void drop(Segment segment, Consumer<Segment> beforeDrop) throws RocksDBException {
        beforeDrop.accept(segment);
        RocksDbMemory.unregister(segment);
        database.drop(segment);
        byTable.get(segment.table).remove(segment.id);
        if (lastWritten[segment.table.ordinal()] == segment) {
            lastWritten[segment.table.ordinal()] = null;
        }
    }

    /** Lets go of every segment (the store closes, the write lock held): unregistered, handles closed. */
    void close() {
        for (Segment segment : all()) {
            RocksDbMemory.unregister(segment);
            segment.handle.close();
        }
        byTable.values().forEach(Map::clear);
        Arrays.fill(lastWritten, null);
    }
}
