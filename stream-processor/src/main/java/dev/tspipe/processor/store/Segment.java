package dev.tspipe.processor.store;

import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.CompressionType;
import org.rocksdb.FlushOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;

/**
 * One segment of one table: a RocksDB column family named {@code <store name>.<id>} holding the
 * rows whose timestamp is in {@code [id × span, (id + 1) × span)}. Dropped whole (the column family is
 * dropped) when all of its span has expired.
 *
 * <p>Thread rule: any thread that holds {@link Segments}' read lock (or the thread that writes the store, which alone
 * drops segments); the memory budget's balancing pass may flush it from any thread until it is unregistered.
 */
final class Segment implements RocksDbMemory.Memtable {

    /** Upper levels of the newest segment of a table: cheap to write. */
    static final CompressionType HOT_COMPRESSION = CompressionType.LZ4_COMPRESSION;
    /** Every level of older segments, and the bottommost level of the newest: small. */
    static final CompressionType COLD_COMPRESSION = CompressionType.ZSTD_COMPRESSION;

    final Table table;
    final long id;
    final ColumnFamilyHandle handle;
    /** The column family's id, as RocksDB's batch format names it ({@link BatchBuilder}). */
    final int columnFamilyId;
    final CompressionType compression;
    private final RocksDB db;

    Segment(Table table, long id, ColumnFamilyHandle handle, CompressionType compression, RocksDB db) {
        this.table = table;
        this.id = id;
        this.handle = handle;
        this.columnFamilyId = handle.getID();
        this.compression = compression;
        this.db = db;
    }

    static String columnFamilyName(Table table, long id) {
        return table.storeName() + "." + id;
    }

    String name() {
        return columnFamilyName(table, id);
    }

    long longProperty(String property) {
        try {
            return db.getLongProperty(handle, property);
        } catch (RocksDBException e) {
            throw new IllegalStateException("cannot read property " + property + " of segment " + name(), e);
        }
    }

    @Override
    public long activeMemtableBytes() {
        return longProperty("rocksdb.cur-size-active-mem-table");
    }

    @Override
    public void requestFlush() {
        // Never wait inside the JVM-wide balancing pass, not even for a write stall to pass.
        try (FlushOptions options = new FlushOptions().setWaitForFlush(false).setAllowWriteStall(true)) {
            db.flush(options, handle);
        } catch (RocksDBException e) {
            throw new IllegalStateException("cannot flush segment " + name(), e);
        }
    }
}
