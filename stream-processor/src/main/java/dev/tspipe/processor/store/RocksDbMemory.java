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
import org.rocksdb.Filter;
import org.rocksdb.LRUCache;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.WriteBufferManager;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one memory budget of every RocksDB instance in the JVM: tspipe's segments and Kafka Streams'
 * built-in stores (through {@link TspipeRocksDbConfigSetter}) share one block cache, one write
 * buffer manager charged to that cache, and one bloom filter policy.
 *
 * <p>Without it, every RocksDB instance allocates its own 50 MiB block cache and up to 3 x 16 MiB
 * of memtables, and a node with many tasks (each with a few stores of several segments) grows
 * without bound. With it, block cache, index and filter blocks and memtables together stay under
 * the budget (memtables are charged to the cache, so they compete with cached blocks instead of
 * adding to them).
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
 *       all memtables together (the hard limit); when reached, a write flushes the memtable of the
 *       instance it writes to (see below for why tspipe flushes the largest ones before that)</td></tr>
 *   <tr><td>bloom filter</td><td>10 bits per key (about 1% false positives)</td><td>a point read
 *       ({@code get}) skips SST files that cannot hold the key</td></tr>
 *   <tr><td>block size</td><td>{@value #BLOCK_SIZE_BYTES} bytes</td><td>rows are small; larger blocks
 *       compress better and keep the index small</td></tr>
 *   <tr><td>memtable</td><td>{@value #MEMTABLE_BYTES} bytes, at most {@value #MAX_MEMTABLES}</td>
 *       <td>per RocksDB instance, within the write buffer manager's total</td></tr>
 * </table>
 *
 * <h2>Memtables: the largest are flushed first</h2>
 * The write buffer manager alone flushes badly with many small instances: once its total is reached, every
 * write flushes the memtable <em>of the instance written to</em>, however small; with 12 tasks x 5 stores the
 * end-to-end benchmark measured thousands of flushes of 3 to 850 rows (a flush storm that kept the stream
 * thread waiting in {@code put}). So tspipe's segments register here, and {@link #balanceMemtables()} (called
 * by the stores every few thousand writes, at most every {@value #BALANCE_INTERVAL_MS} ms) flushes the largest
 * active memtables once together they pass a quarter of the budget, until they are under an eighth. The write
 * buffer manager (half the budget) stays as the hard limit behind it and is not reached in normal operation.
 * Kafka Streams' own stores (only {@code latest} in tspipe) get small memtables
 * ({@value #BUILT_IN_MEMTABLE_BYTES} bytes) instead.
 *
 * <p>The budget is set once, before the first store opens: {@link #configure(long)} (the app reads
 * it from its configuration). Default {@value #DEFAULT_BUDGET_BYTES} bytes (256 MiB). The shared
 * objects live as long as the JVM and are never closed: closing them while one RocksDB instance still
 * uses them would crash the process.
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
    /** Memtable size of Kafka Streams' built-in stores, which {@link #balanceMemtables()} does not see. */
    static final long BUILT_IN_MEMTABLE_BYTES = 2L * 1024 * 1024;
    static final long BALANCE_INTERVAL_MS = 200;
    private static final Object SEGMENTS_LOCK = new Object();
    private static final Set<Segment> SEGMENTS = new LinkedHashSet<>();
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

    /**
     * Applies the shared cache, write buffer manager and bloom filter to {@code options}, using
     * {@code tableConfig} (which the caller then keeps, e.g. Kafka Streams' table config whose cache it
     * reads back).
     */
    static void apply(Options options, BlockBasedTableConfig tableConfig) {
        Shared memory = shared();
        tableConfig.setBlockCache(memory.cache);
        tableConfig.setCacheIndexAndFilterBlocks(true);
        tableConfig.setCacheIndexAndFilterBlocksWithHighPriority(true);
        tableConfig.setPinTopLevelIndexAndFilter(true);
        tableConfig.setFilterPolicy(memory.bloomFilter);
        tableConfig.setBlockSize(BLOCK_SIZE_BYTES);
        options.setWriteBufferManager(memory.writeBufferManager);
        options.setWriteBufferSize(MEMTABLE_BYTES);
        options.setArenaBlockSize(ARENA_BLOCK_BYTES);
        options.setMaxWriteBufferNumber(MAX_MEMTABLES);
        options.setMaxLogFileSize(INFO_LOG_FILE_BYTES);
        options.setKeepLogFileNum(2);
        options.setTableFormatConfig(tableConfig);
    }

    /** Options of Kafka Streams' built-in RocksDB stores: {@link #apply} with smaller memtables. */
    static void applyToBuiltIn(Options options, BlockBasedTableConfig tableConfig) {
        apply(options, tableConfig);
        options.setWriteBufferSize(BUILT_IN_MEMTABLE_BYTES);
    }

    static void register(Segment segment) {
        synchronized (SEGMENTS_LOCK) {
            SEGMENTS.add(segment);
        }
    }

    /** Returns once no balancing pass uses {@code segment} any more; the caller may then close it. */
    static void unregister(Segment segment) {
        synchronized (SEGMENTS_LOCK) {
            SEGMENTS.remove(segment);
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
        synchronized (SEGMENTS_LOCK) {
            long now = System.nanoTime();
            if (now - lastBalanceNanos < BALANCE_INTERVAL_MS * 1_000_000) {
                return 0;
            }
            lastBalanceNanos = now;
            return flushLargest(SEGMENTS, budgetBytes / 4, budgetBytes / 8);
        }
    }

    /**
     * The balancing pass itself: if the active memtables of {@code open} hold more than {@code triggerBytes},
     * flushes the largest until the others hold at most {@code targetBytes}. The caller holds
     * {@code SEGMENTS_LOCK} or owns the segments (tests).
     */
    static int flushLargest(Collection<Segment> open, long triggerBytes, long targetBytes) {
        List<Sized> sized = new ArrayList<>(open.size());
        long total = 0;
        for (Segment segment : open) {
            long bytes = segment.activeMemtableBytes();
            sized.add(new Sized(segment, bytes));
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
                entry.segment().requestFlush();
            } catch (RuntimeException e) {
                // Another task's segment: its own next write reports the problem to its task.
                LOG.warn("Could not flush a memtable to stay within the RocksDB memory budget: {}", e.toString());
                continue;
            }
            total -= entry.bytes();
            flushed++;
        }
        return flushed;
    }

    private record Sized(Segment segment, long bytes) {
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
