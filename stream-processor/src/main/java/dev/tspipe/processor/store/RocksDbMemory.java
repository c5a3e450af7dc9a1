package dev.tspipe.processor.store;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.BloomFilter;
import org.rocksdb.Cache;
import org.rocksdb.ColumnFamilyOptions;
import org.rocksdb.CompressionType;
import org.rocksdb.DBOptions;
import org.rocksdb.Filter;
import org.rocksdb.InfoLogLevel;
import org.rocksdb.LRUCache;
import org.rocksdb.RocksDB;
import org.rocksdb.WriteBufferManager;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one memory budget of every RocksDB database in the JVM (one {@link SeriesStore} per task): one
 * block cache, one write buffer manager charged to that cache, and one bloom filter policy.
 *
 * <p>Without it, every column family would get its own block cache and up to 3 x 16 MiB of memtables, and
 * a node with many tasks (each with dozens of segments) would grow without bound. With it, block
 * cache, index and filter blocks and memtables together stay under the budget (memtables are charged to
 * the cache, so they compete with cached blocks instead of adding to them).
 *
 * <h2>Knobs</h2>
 * <table>
 *   <caption>Derived from the budget</caption>
 *   <tr><th>knob</th><th>value</th><th>why</th></tr>
 *   <tr><td>block cache (LRU)</td><td>the budget</td><td>one pool for data, index and filter blocks
 *       and (through the write buffer manager) memtables</td></tr>
 *   <tr><td>high-priority pool</td><td>10% of the cache</td><td>index and filter blocks are cached
 *       with high priority, so scans of data blocks do not evict them</td></tr>
 *   <tr><td>write buffer manager</td><td>half of the budget, charged to the cache; 64 KiB arena blocks</td><td>bounds
 *       all memtables together (the hard limit)</td></tr>
 *   <tr><td>bloom filter</td><td>10 bits per key (about 1% false positives), on every level</td><td>a point read
 *       ({@code get}) skips SST files that cannot hold the key; duplicate checks mostly miss</td></tr>
 *   <tr><td>block size</td><td>{@value #BLOCK_SIZE_BYTES} bytes</td><td>rows are small; larger blocks
 *       compress better and keep the index small</td></tr>
 *   <tr><td>memtable</td><td>{@value #MEMTABLE_BYTES} bytes, at most {@value #MAX_MEMTABLES}</td>
 *       <td>per column family, within the write buffer manager's total</td></tr>
 * </table>
 *
 * <h2>Memtables: the largest are flushed first</h2>
 * The write buffer manager alone flushes badly with many column families: once its total is reached, a
 * write flushes a memtable however small (the end-to-end benchmark once measured thousands of flushes of 3 to
 * 850 rows, a flush storm that kept the stream thread waiting). So every segment registers here, and
 * {@link #balanceMemtables()} (called after each flush of a series store, at most every
 * {@value #BALANCE_INTERVAL_MS} ms) flushes the largest active memtables once together they pass a quarter of
 * the budget, until they are under an eighth. The write buffer manager (half the budget) stays as the hard limit
 * behind it and is not reached in normal operation.
 *
 * <p>The budget is set once, before the first store opens: {@link #configure(long)} (the app reads
 * it from its configuration). Default {@value #DEFAULT_BUDGET_BYTES} bytes (256 MiB). The shared
 * objects live as long as the JVM and are never closed: closing them while one database still uses them
 * would crash the process.
 */
public final class RocksDbMemory {

    private static final Logger LOG = LoggerFactory.getLogger(RocksDbMemory.class);

    public static final long DEFAULT_BUDGET_BYTES = 256L * 1024 * 1024;
    /** Smallest budget accepted: below it RocksDB thrashes. */
    public static final long MIN_BUDGET_BYTES = 16L * 1024 * 1024;
    static final long BLOCK_SIZE_BYTES = 16 * 1024;
    static final long MEMTABLE_BYTES = 8L * 1024 * 1024;
    /**
     * Memtables allocate their arena in blocks (by default write_buffer_size / 8 = 1 MiB here), and the
     * write buffer manager counts the blocks, not the data. With 10+ RocksDB instances per task an
     * instance with a few rows must not reserve a megabyte: that kept the manager over its limit and made
     * every put flush a tiny memtable (a flush storm measured by the end-to-end benchmark).
     */
    static final long ARENA_BLOCK_BYTES = 64L * 1024;
    static final long INFO_LOG_FILE_BYTES = 1024L * 1024;
    static final int MAX_MEMTABLES = 3;
    static final long MAX_TOTAL_WAL_BYTES = 64L * 1024 * 1024;
    static final long BALANCE_INTERVAL_MS = 200;
    private static final Object MEMTABLES_LOCK = new Object();
    private static final Set<Memtable> MEMTABLES = new LinkedHashSet<>();
    private static long lastBalanceNanos = System.nanoTime();
    private static final double HIGH_PRIORITY_POOL_RATIO = 0.1;
    private static final double BLOOM_BITS_PER_KEY = 10;

    private static long budgetBytes = DEFAULT_BUDGET_BYTES;
    private static Shared shared;

    private RocksDbMemory() {
    }

    /**
     * Sets the budget of the whole JVM. Call once at startup, before any store opens; calling it again
     * with the same value is harmless, with another value (or after the shared cache exists with another
     * size) fails.
     *
     * @throws IllegalArgumentException if {@code bytes} is below {@link #MIN_BUDGET_BYTES}
     * @throws IllegalStateException    if stores already use a different budget
     */
    public static synchronized void configure(long bytes) {
        if (bytes < MIN_BUDGET_BYTES) {
            throw new IllegalArgumentException("RocksDB memory budget " + bytes + " bytes is below the minimum of "
                    + MIN_BUDGET_BYTES + " bytes (16 MiB)");
        }
        if (shared != null && bytes != budgetBytes) {
            throw new IllegalStateException("the RocksDB memory budget is already " + budgetBytes
                    + " bytes and in use; set it once, at startup, before any store opens");
        }
        budgetBytes = bytes;
    }

    /** The budget in bytes. */
    public static synchronized long budgetBytes() {
        return budgetBytes;
    }

    /** The block cache shared by every RocksDB instance. */
    public static Cache blockCache() {
        return shared().cache;
    }

    /** The write buffer manager shared by every RocksDB instance, charged to {@link #blockCache()}. */
    public static WriteBufferManager writeBufferManager() {
        return shared().writeBufferManager;
    }

    /** The bloom filter policy shared by every RocksDB instance. */
    public static Filter bloomFilter() {
        return shared().bloomFilter;
    }

    /** The table config of a series store's column families: the shared cache and bloom filter. */
    static BlockBasedTableConfig tableConfig() {
        Shared memory = shared();
        BlockBasedTableConfig tableConfig = new BlockBasedTableConfig();
        tableConfig.setBlockCache(memory.cache);
        tableConfig.setCacheIndexAndFilterBlocks(true);
        tableConfig.setCacheIndexAndFilterBlocksWithHighPriority(true);
        tableConfig.setPinTopLevelIndexAndFilter(true);
        tableConfig.setFilterPolicy(memory.bloomFilter);
        tableConfig.setBlockSize(BLOCK_SIZE_BYTES);
        return tableConfig;
    }

    /** Options of one column family of a series store: memtables within the budget, the given compression above the bottommost level. */
    static ColumnFamilyOptions columnFamilyOptions(BlockBasedTableConfig tableConfig, CompressionType compression,
                                                   CompressionType bottommost) {
        return new ColumnFamilyOptions()
                .setTableFormatConfig(tableConfig)
                .setWriteBufferSize(MEMTABLE_BYTES)
                .setArenaBlockSize(ARENA_BLOCK_BYTES)
                .setMaxWriteBufferNumber(MAX_MEMTABLES)
                .setCompressionType(compression)
                .setBottommostCompressionType(bottommost)
                // Duplicate checks and bucket reads mostly miss: keep the bloom filter on the last level too.
                .setOptimizeFiltersForHits(false);
    }

    /** Options of a series store's database: the shared write buffer manager, small info logs. */
    static DBOptions dbOptions() {
        return new DBOptions()
                .setCreateIfMissing(true)
                .setCreateMissingColumnFamilies(true)
                .setWriteBufferManager(shared().writeBufferManager)
                // Warnings and errors only (Kafka Streams' own stores log errors only): at the default level every
                // flush, compaction and a statistics dump every 10 minutes go to each task's info log, files beside
                // the data that count as state on disk.
                .setInfoLogLevel(InfoLogLevel.WARN_LEVEL)
                .setMaxLogFileSize(INFO_LOG_FILE_BYTES)
                .setKeepLogFileNum(2)
                .setMaxBackgroundJobs(2)
                // The write-ahead log is kept until every column family with data in it has flushed: past this
                // size RocksDB flushes the column families that hold the oldest log files.
                .setMaxTotalWalSize(MAX_TOTAL_WAL_BYTES);
    }

    /** A memtable that {@link #balanceMemtables()} may flush: one column family of a series store. */
    interface Memtable {
        /** Bytes in the active (mutable) memtable. */
        long activeMemtableBytes();

        /** Asks RocksDB to flush the memtable in the background; returns at once. */
        void requestFlush();
    }

    static void register(Memtable memtable) {
        synchronized (MEMTABLES_LOCK) {
            MEMTABLES.add(memtable);
        }
    }

    /** Returns once no balancing pass uses {@code memtable} any more; the caller may then close it. */
    static void unregister(Memtable memtable) {
        synchronized (MEMTABLES_LOCK) {
            MEMTABLES.remove(memtable);
        }
    }

    /**
     * If the active memtables of all open segments together hold more than a quarter of the budget, asks
     * RocksDB to flush the largest (without waiting) until the rest hold at most an eighth. Cheap when there
     * is nothing to do; runs at most once per {@value #BALANCE_INTERVAL_MS} ms, whichever thread calls it.
     *
     * @return the number of memtables sent to flush
     */
    static int balanceMemtables() {
        synchronized (MEMTABLES_LOCK) {
            long now = System.nanoTime();
            if (now - lastBalanceNanos < BALANCE_INTERVAL_MS * 1_000_000) {
                return 0;
            }
            lastBalanceNanos = now;
            return flushLargest(MEMTABLES, budgetBytes / 4, budgetBytes / 8);
        }
    }

    /**
     * The balancing pass itself: if the active memtables of {@code open} hold more than {@code triggerBytes},
     * flushes the largest until the others hold at most {@code targetBytes}. The caller holds
     * {@code MEMTABLES_LOCK} or owns the segments (tests).
     */
    static int flushLargest(Collection<? extends Memtable> open, long triggerBytes, long targetBytes) {
        List<Sized> sized = new ArrayList<>(open.size());
        long total = 0;
        for (Memtable memtable : open) {
            long bytes = memtable.activeMemtableBytes();
            sized.add(new Sized(memtable, bytes));
            total += bytes;
        }
        if (total <= triggerBytes) {
            return 0;
        }
        sized.sort(Comparator.comparingLong(Sized::bytes).reversed());
        int flushed = 0;
        for (Sized entry : sized) {
            if (total <= targetBytes) {
                break;
            }
            try {
                entry.memtable().requestFlush();
            } catch (RuntimeException e) {
                // Another task's Kafka partition: its own next write reports the problem to its task.
                LOG.warn("Could not flush a memtable to stay within the RocksDB memory budget: {}", e.toString());
                continue;
            }
            total -= entry.bytes();
            flushed++;
        }
        return flushed;
    }

    private record Sized(Memtable memtable, long bytes) {
    }

    private static synchronized Shared shared() {
        if (shared == null) {
            RocksDB.loadLibrary();
            shared = new Shared(budgetBytes);
        }
        return shared;
    }

    private static final class Shared {
        final Cache cache;
        final WriteBufferManager writeBufferManager;
        final Filter bloomFilter;

        Shared(long budget) {
            cache = new LRUCache(budget, -1, false, HIGH_PRIORITY_POOL_RATIO);
            writeBufferManager = new WriteBufferManager(budget / 2, cache);
            bloomFilter = new BloomFilter(BLOOM_BITS_PER_KEY);
        }
    }
}
