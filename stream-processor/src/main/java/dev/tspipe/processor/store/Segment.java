package dev.tspipe.processor.store;

import java.io.File;
import org.apache.kafka.streams.errors.ProcessorStateException;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.CompressionType;
import org.rocksdb.FlushOptions;
import org.rocksdb.Options;
import org.rocksdb.ReadOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.WriteOptions;

/** One time segment: a RocksDB instance in {@code <state dir>/<store>/<segment id>}. Not thread-safe; the store locks. */
final class Segment implements AutoCloseable {

    /** Upper levels of the newest segment: cheap to write. */
    static final CompressionType HOT_COMPRESSION = CompressionType.LZ4_COMPRESSION;
    /** Every level of older segments, and the bottommost level of the newest: small. */
    static final CompressionType COLD_COMPRESSION = CompressionType.ZSTD_COMPRESSION;

    final long id;
    final File dir;
    private final String storeName;
    private final Options options;
    private final WriteOptions writeOptions;
    private final RocksDB db;
    private final CompressionType compression;

    private Segment(String storeName, long id, File dir, Options options, WriteOptions writeOptions, RocksDB db,
                    CompressionType compression) {
        this.storeName = storeName;
        this.id = id;
        this.dir = dir;
        this.options = options;
        this.writeOptions = writeOptions;
        this.db = db;
        this.compression = compression;
    }

    static Segment open(String storeName, long id, File dir, boolean hot) {
        CompressionType compression = hot ? HOT_COMPRESSION : COLD_COMPRESSION;
        Options options = new Options()
                .setCreateIfMissing(true)
                .setCompressionType(compression)
                .setBottommostCompressionType(COLD_COMPRESSION)
                .setKeepLogFileNum(2);
        RocksDbMemory.apply(options, new BlockBasedTableConfig());
        // The changelog is the write-ahead log, as for Kafka Streams' own RocksDB stores; commit() flushes.
        WriteOptions writeOptions = new WriteOptions().setDisableWAL(true);
        if (!dir.isDirectory() && !dir.mkdirs()) {
            options.close();
            writeOptions.close();
            throw new ProcessorStateException("cannot create the directory " + dir + " of segment " + id
                    + " of store " + storeName);
        }
        try {
            Segment segment = new Segment(storeName, id, dir, options, writeOptions,
                    RocksDB.open(options, dir.getAbsolutePath()), compression);
            RocksDbMemory.register(segment);
            return segment;
        } catch (RocksDBException e) {
            options.close();
            writeOptions.close();
            throw new ProcessorStateException("cannot open segment " + id + " of store " + storeName + " in " + dir, e);
        }
    }

    byte[] get(byte[] key) {
        try {
            return db.get(key);
        } catch (RocksDBException e) {
            throw failure("read from", e);
        }
    }

    void put(byte[] key, byte[] value) {
        try {
            db.put(writeOptions, key, value);
        } catch (RocksDBException e) {
            throw failure("write to", e);
        }
    }

    void delete(byte[] key) {
        try {
            db.delete(writeOptions, key);
        } catch (RocksDBException e) {
            throw failure("delete from", e);
        }
    }

    RocksIterator newIterator(ReadOptions readOptions) {
        return db.newIterator(readOptions);
    }

    void flush() {
        try (FlushOptions flushOptions = new FlushOptions().setWaitForFlush(true)) {
            db.flush(flushOptions);
        } catch (RocksDBException e) {
            throw failure("flush", e);
        }
    }

    /** Bytes in the active (mutable) memtable. */
    long activeMemtableBytes() {
        return longProperty("rocksdb.cur-size-active-mem-table");
    }

    /** Asks RocksDB to flush the memtable in the background; returns at once. */
    void requestFlush() {
        try (FlushOptions flushOptions = new FlushOptions().setWaitForFlush(false)) {
            db.flush(flushOptions);
        } catch (RocksDBException e) {
            throw failure("flush", e);
        }
    }

    long longProperty(String property) {
        try {
            return db.getLongProperty(property);
        } catch (RocksDBException e) {
            throw failure("read property " + property + " of", e);
        }
    }

    /** The compression of every level but the bottommost. */
    CompressionType compression() {
        return compression;
    }

    CompressionType bottommostCompression() {
        return COLD_COMPRESSION;
    }

    @Override
    public void close() {
        RocksDbMemory.unregister(this);
        db.close();
        writeOptions.close();
        options.close();
    }

    private ProcessorStateException failure(String action, RocksDBException e) {
        return new ProcessorStateException("cannot " + action + " segment " + id + " of store " + storeName + " in " + dir, e);
    }
}
