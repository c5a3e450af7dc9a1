package dev.tspipe.processor.store;

import java.io.File;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.EnumMap;
import java.util.Map;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.apache.kafka.streams.errors.ProcessorStateException;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.ColumnFamilyOptions;
import org.rocksdb.CompressionType;
import org.rocksdb.DBOptions;
import org.rocksdb.FlushOptions;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.StringAppendOperator;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The RocksDB database of one task's series store, as Kafka Streams' {@code RocksDBStore} keeps its own: the options
 * (hot and cold segments, the meta column family), opening it with the column families it holds, the meta keys in its
 * {@code default} column family, writes, the memtable flush before a clean close, and the close. Whether the store is
 * open, and whether a write failed (then it takes no more writes: its task closes and restores from the changelogs).
 *
 * <table>
 *   <caption>Meta keys (the {@code default} column family)</caption>
 *   <tr><th>key</th><th>value</th></tr>
 *   <tr><td>{@code stream-time}</td><td>stream time of the last applied write, 8-byte big-endian long</td></tr>
 *   <tr><td>{@code sealed-through}</td><td>the time before which the raw readings are sealed into the rollup tables
 *       ({@link RollupSeal}), 8-byte big-endian long; absent: nothing sealed yet</td></tr>
 *   <tr><td>{@code format-version}</td><td>{@value #FORMAT_VERSION}, 4-byte big-endian int: the format of the data;
 *       absent in stores of storage engine v2, which are refused</td></tr>
 *   <tr><td>{@code changelog-offset.<store>}</td><td>the changelog offset of the table's store that the data covers,
 *       8-byte big-endian long; absent: unknown</td></tr>
 * </table>
 *
 * <p>Thread rule: any thread, holding {@link Segments}' read lock for a read or a write (so that no column family is
 * dropped and the database is not closed meanwhile); column families are created and dropped by {@link Segments}
 * under its write lock, and the database is closed under it. {@link #hasFailed()} is the writing thread's.
 */
final class SeriesDatabase {

    private static final Logger LOG = LoggerFactory.getLogger(SeriesDatabase.class);

    static {
        // Options objects load the native library themselves; the merge operator does not.
        RocksDB.loadLibrary();
    }
    private static final byte[] STREAM_TIME_KEY = "stream-time".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] SEALED_KEY = "sealed-through".getBytes(StandardCharsets.US_ASCII);
    private static final String OFFSET_KEY_PREFIX = "changelog-offset.";
    private static final byte[] FORMAT_KEY = "format-version".getBytes(StandardCharsets.US_ASCII);
    /**
     * The format of the data this code writes and reads: 4, storage engine v3 (raw readings in blocks, rollups computed
     * from them until sealed). Format 3 stored every bucket at every commit; stores of engine v2 have no format key.
     * Never renumbered; a store of another format is refused, not misread.
     */
    static final int FORMAT_VERSION = 6;

    private final File dir;
    private final DBOptions dbOptions;
    private final ColumnFamilyOptions hotOptions;
    private final ColumnFamilyOptions coldOptions;
    private final ColumnFamilyOptions metaOptions;
    /** The raw table's blocks take chunks by merge: appended (docs/storage.md, "Blocks"); other tables never merge. */
    private final StringAppendOperator appendChunks = new StringAppendOperator("");
    private final WriteOptions writeOptions;
    private final RocksDB db;
    private final List<ColumnFamilyHandle> metaHandles = new ArrayList<>();
    private final ColumnFamilyHandle meta;
    /** The segments the database held when it was opened. */
    private final List<Segment> opened = new ArrayList<>();
    private final long storedStreamTime;
    private final long storedSeal;
    private volatile boolean open;
    private boolean failed;

    private SeriesDatabase(File dir) {
        this.dir = dir;
        if (!dir.isDirectory() && !dir.mkdirs()) {
            throw new ProcessorStateException("cannot create the directory " + dir + " of the series store");
        }
        BlockBasedTableConfig tableConfig = RocksDbMemory.tableConfig();
        dbOptions = RocksDbMemory.dbOptions();
        hotOptions = RocksDbMemory.columnFamilyOptions(tableConfig, Segment.HOT_COMPRESSION, Segment.COLD_COMPRESSION);
        coldOptions = RocksDbMemory.columnFamilyOptions(tableConfig, Segment.COLD_COMPRESSION, Segment.COLD_COMPRESSION);
        hotOptions.setMergeOperator(appendChunks);
        coldOptions.setMergeOperator(appendChunks);
        metaOptions = RocksDbMemory.columnFamilyOptions(tableConfig, CompressionType.NO_COMPRESSION, CompressionType.NO_COMPRESSION);
        // RocksDB's write-ahead log (not synced: one sequential write per commit) makes every applied batch, with
        // the changelog offsets it covers, survive a crash of the process: a restart replays only what the store
        // had not applied (docs/storage.md, "Crashes").
        writeOptions = new WriteOptions().setDisableWAL(false).setSync(false);
        try {
            db = openDatabase();
        } catch (RocksDBException | RuntimeException e) {
            closeOptions();
            throw new ProcessorStateException("cannot open the series store in " + dir + ": " + e.getMessage()
                    + "; delete the directory to rebuild it from the changelogs", e);
        }
        meta = metaHandles.get(0);
        open = true;
        try {
            checkFormat();
            storedStreamTime = readTime(STREAM_TIME_KEY);
            storedSeal = readTime(SEALED_KEY);
        } catch (RuntimeException e) {
            opened.forEach(segment -> segment.handle.close());
            close();
            throw e;
        }
    }

    /** Opens (or creates) the database in {@code dir}, with the column families it holds. */
    static SeriesDatabase open(File dir) {
        return new SeriesDatabase(dir);
    }

    private RocksDB openDatabase() throws RocksDBException {
        List<byte[]> names;
        if (new File(dir, "CURRENT").isFile()) {
            try (Options options = new Options()) {
                names = RocksDB.listColumnFamilies(options, dir.getAbsolutePath());
            }
        } else {
            names = List.of(RocksDB.DEFAULT_COLUMN_FAMILY);
        }
        List<ColumnFamilyDescriptor> descriptors = new ArrayList<>();
        List<Table> tables = new ArrayList<>();
        List<Long> ids = new ArrayList<>();
        Map<Table, Long> newest = new EnumMap<>(Table.class);
        for (byte[] name : names) {
            String text = new String(name, StandardCharsets.UTF_8);
            int dot = text.lastIndexOf('.');
            Table table = dot < 0 ? null : Table.ofStoreName(text.substring(0, dot));
            if (table != null) {
                newest.merge(table, Long.parseLong(text.substring(dot + 1)), Math::max);
            }
        }
        for (byte[] name : names) {
            String text = new String(name, StandardCharsets.UTF_8);
            int dot = text.lastIndexOf('.');
            Table table = dot < 0 ? null : Table.ofStoreName(text.substring(0, dot));
            if (Arrays.equals(name, RocksDB.DEFAULT_COLUMN_FAMILY)) {
                descriptors.add(0, new ColumnFamilyDescriptor(name, metaOptions));
                tables.add(0, null);
                ids.add(0, -1L);
            } else if (table != null) {
                long id = Long.parseLong(text.substring(dot + 1));
                descriptors.add(new ColumnFamilyDescriptor(name, id == newest.get(table) ? hotOptions : coldOptions));
                tables.add(table);
                ids.add(id);
            } else {
                throw new ProcessorStateException("unknown column family '" + text + "' in the series store in " + dir);
            }
        }
        List<ColumnFamilyHandle> handles = new ArrayList<>();
        RocksDB database = RocksDB.open(dbOptions, dir.getAbsolutePath(), descriptors, handles);
        metaHandles.add(handles.get(0));
        for (int i = 1; i < handles.size(); i++) {
            Table table = tables.get(i);
            long id = ids.get(i);
            CompressionType compression = id == newest.get(table) ? Segment.HOT_COMPRESSION : Segment.COLD_COMPRESSION;
            opened.add(new Segment(table, id, handles.get(i), compression, database));
        }
        return database;
    }

    File dir() {
        return dir;
    }

    /** The handle reads of the segments go through (RocksDB's reads are thread-safe; the segments' read lock held). */
    RocksDB rocksDb() {
        return db;
    }

    /** The segments the database held when it was opened, in no particular order. */
    List<Segment> openedSegments() {
        return opened;
    }

    /** Stream time as the last applied write stored it, or {@link StreamTime#NONE}. */
    long storedStreamTime() {
        return storedStreamTime;
    }

    /** The seal ({@link StreamTime#sealed}) of the last applied write, or {@link StreamTime#NONE}. */
    long storedSeal() {
        return storedSeal;
    }

    // ---------------------------------------------------------------------------------------
    // Column families (Segments, under its write lock)

    /** A new column family for segment {@code id} of {@code table}: hot (LZ4 above the bottommost level) or cold. */
    Segment createSegment(Table table, long id, boolean hot) throws RocksDBException {
        ColumnFamilyHandle handle = db.createColumnFamily(new ColumnFamilyDescriptor(
                Segment.columnFamilyName(table, id).getBytes(StandardCharsets.UTF_8), hot ? hotOptions : coldOptions));
        return new Segment(table, id, handle, hot ? Segment.HOT_COMPRESSION : Segment.COLD_COMPRESSION, db);
    }

    /** Drops the column family of {@code segment} and closes its handle. */
    void drop(Segment segment) throws RocksDBException {
        db.dropColumnFamily(segment.handle);
        segment.handle.close();
    }

    // ---------------------------------------------------------------------------------------
    // Writes and meta keys

    /** Writes {@code batch} (the segments' read lock held). */
    void write(WriteBatch batch) throws RocksDBException {
        validateOpen();
        db.write(writeOptions, batch);
    }

    /** Stream time and the seal, as a write makes them ({@link StreamTime#current}, {@link StreamTime#sealed}). */
    void putTime(BatchBuilder batch, StreamTime time) {
        batch.put(meta.getID(), STREAM_TIME_KEY, longBytes(time.current()));
        if (time.sealed() != StreamTime.NONE) {
            batch.put(meta.getID(), SEALED_KEY, longBytes(time.sealed()));
        }
    }

    void putTime(WriteBatch batch, StreamTime time) throws RocksDBException {
        batch.put(meta, STREAM_TIME_KEY, longBytes(time.current()));
        if (time.sealed() != StreamTime.NONE) {
            batch.put(meta, SEALED_KEY, longBytes(time.sealed()));
        }
    }

    /** Puts each table's changelog offset into {@code batch}, in table order; a null offset (unknown) is deleted. */
    void putOffsets(WriteBatch batch, Map<Table, Long> offsets) throws RocksDBException {
        for (Map.Entry<Table, Long> entry : offsets.entrySet()) {
            byte[] key = offsetKey(entry.getKey());
            if (entry.getValue() == null) {
                batch.delete(meta, key);
            } else {
                batch.put(meta, key, longBytes(entry.getValue()));
            }
        }
    }

    /** The changelog offset of {@code table} that the stored data covers, or null (the segments' read lock held). */
    Long committedOffset(Table table) {
        byte[] value = getMeta(offsetKey(table));
        return value == null ? null : ByteBuffer.wrap(value).getLong();
    }

    /**
     * Refuses a store of another format than {@link #FORMAT_VERSION} with a message that names it; marks a new
     * store with it.
     */
    private void checkFormat() {
        byte[] stored = getMeta(FORMAT_KEY);
        if (stored == null && opened.isEmpty() && getMeta(STREAM_TIME_KEY) == null) {
            try {
                db.put(meta, writeOptions, FORMAT_KEY, ByteBuffer.allocate(4).putInt(FORMAT_VERSION).array());
            } catch (RocksDBException e) {
                throw new ProcessorStateException("cannot write to the series store in " + dir, e);
            }
            return;
        }
        String found = stored == null ? "2 (storage engine v2, before blocks)"
                : stored.length == 4 ? String.valueOf(ByteBuffer.wrap(stored).getInt()) : "unreadable (" + stored.length + " bytes)";
        if (stored == null || stored.length != 4 || ByteBuffer.wrap(stored).getInt() != FORMAT_VERSION) {
            throw new ProcessorStateException("the series store in " + dir + " has format version " + found + "; this tspipe "
                    + "reads and writes version " + FORMAT_VERSION + ". Its changelogs are of that format too: reset the "
                    + "application (kafka-streams-application-reset) and delete the state directory to rebuild the tables "
                    + "from the readings topic (docs/storage.md, \"Upgrading\")");
        }
    }

    private long readTime(byte[] key) {
        byte[] value = getMeta(key);
        return value == null ? StreamTime.NONE : ByteBuffer.wrap(value).getLong();
    }

    private byte[] getMeta(byte[] key) {
        validateOpen();
        try {
            return db.get(meta, key);
        } catch (RocksDBException e) {
            throw new ProcessorStateException("cannot read from the series store in " + dir, e);
        }
    }

    private static byte[] offsetKey(Table table) {
        return (OFFSET_KEY_PREFIX + table.storeName()).getBytes(StandardCharsets.US_ASCII);
    }

    private static byte[] longBytes(long value) {
        return ByteBuffer.allocate(8).putLong(value).array();
    }

    // ---------------------------------------------------------------------------------------
    // State and lifecycle

    boolean isOpen() {
        return open;
    }

    void validateOpen() {
        if (!open) {
            throw new InvalidStateStoreException("the series store in " + dir + " is not open");
        }
    }

    /** Open, and no write failed: the store takes writes. */
    void validateUsable() {
        validateOpen();
        if (failed) {
            throw new ProcessorStateException("the series store in " + dir + " failed to write earlier and takes no more "
                    + "writes; its task closes and restores it from the changelogs");
        }
    }

    boolean hasFailed() {
        return failed;
    }

    /** A write failed: no more writes. */
    void markFailed() {
        failed = true;
    }

    /** {@link #markFailed()}, and the exception that says so. */
    ProcessorStateException failed(String message, Exception cause) {
        failed = true;
        return new ProcessorStateException(message, cause);
    }

    /** No reads or writes from now on ({@link Segments}' write lock held): the first step of closing. */
    void markClosed() {
        open = false;
    }

    /**
     * Flushes the memtables of the meta column family and of {@code segments}, so that the write-ahead log files can
     * go: what the state directory holds after a clean close is the tables' SST files (a crash leaves the log, which
     * the next open replays).
     */
    void flushMemtables(List<Segment> segments) {
        List<ColumnFamilyHandle> handles = new ArrayList<>(metaHandles);
        segments.forEach(segment -> handles.add(segment.handle));
        try (FlushOptions options = new FlushOptions().setWaitForFlush(true)) {
            db.flush(options, handles);
        } catch (RocksDBException e) {
            LOG.warn("Could not flush the series store in {} before closing it; its write-ahead log keeps the data: {}", dir, e.toString());
        }
    }

    /** Closes the database ({@link Segments}' write lock held, the segments' handles closed already). */
    void close() {
        open = false;
        metaHandles.forEach(ColumnFamilyHandle::close);
        db.close();
        closeOptions();
    }

    private void closeOptions() {
        writeOptions.close();
        hotOptions.close();
        coldOptions.close();
        metaOptions.close();
        appendChunks.close();
        dbOptions.close();
    }
}
