package dev.tspipe.processor.store;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.locks.Lock;
import org.apache.kafka.streams.errors.ProcessorStateException;
import org.rocksdb.Range;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.SizeApproximationFlag;
import org.rocksdb.Slice;

/**
 * What a task's tables hold, from RocksDB's estimates (its properties and indexes: no row is read but the keys of
 * {@code latest}): rows per table, statistics per segment, and each device's bytes and rows.
 *
 * <p>Thread rule: any thread; each method holds {@link Segments}' read lock.
 */
final class SizeEstimates {

    private final SeriesStoreSpec spec;
    private final SeriesDatabase database;
    private final Segments segments;

    SizeEstimates(SeriesStoreSpec spec, SeriesDatabase database, Segments segments) {
        this.spec = spec;
        this.database = database;
        this.segments = segments;
    }

    /** Sum of RocksDB's key estimates over {@code table}'s segments; may count expired rows not yet dropped. */
    long approximateRows(Table table) {
        Lock lock = segments.readLock();
        lock.lock();
        try {
            database.validateOpen();
            long total = 0;
            for (Segment segment : segments.of(table)) {
                long estimate = segment.longProperty("rocksdb.estimate-num-keys");
                if (estimate < 0 || total + estimate < 0) {
                    return Long.MAX_VALUE;
                }
                total += estimate;
            }
            return total;
        } finally {
            lock.unlock();
        }
    }

    /** Per live segment of {@code table}, oldest first: its span, estimated rows, bytes and compression. */
    List<SegmentStatistics> segmentStatistics(Table table) {
        Lock lock = segments.readLock();
        lock.lock();
        try {
            database.validateOpen();
            List<SegmentStatistics> statistics = new ArrayList<>();
            long span = spec.spanMs(table);
            for (Segment segment : segments.of(table)) {
                long start = table.timeKeyed() ? segment.id * span : Long.MIN_VALUE;
                long end = table.timeKeyed() ? start + span : Long.MAX_VALUE;
                statistics.add(new SegmentStatistics(segment.id, start, end,
                        segment.longProperty("rocksdb.estimate-num-keys"),
                        segment.longProperty("rocksdb.live-sst-files-size"),
                        segment.longProperty("rocksdb.cur-size-all-mem-tables"),
                        segment.compression, Segment.COLD_COMPRESSION));
            }
            return statistics;
        } finally {
            lock.unlock();
        }
    }

    /**
     * The devices of the store (those with a latest reading, in row-key order) with RocksDB's estimates of what each
     * holds in {@code table}'s live segments. In the memtables, RocksDB's count and size of the entries of the
     * device's key range ({@code GetApproximateMemTableStats}); in the files, the approximate size of the range
     * ({@code GetApproximateSizes}) and as rows those bytes at the files' bytes per row. A read of the indexes, not of
     * the rows: estimates, good to rank devices and to find one far above the others.
     */
    List<SeriesStore.DeviceVolume> deviceVolumes(Table table) {
        Lock lock = segments.readLock();
        lock.lock();
        try {
            database.validateOpen();
            List<byte[]> devices = devicePrefixes();
            long[] bytes = new long[devices.size()];
            double[] rows = new double[devices.size()];
            if (!devices.isEmpty()) {
                for (Segment segment : segments.of(table)) {
                    addEstimates(segment, devices, bytes, rows);
                }
            }
            List<SeriesStore.DeviceVolume> volumes = new ArrayList<>(devices.size());
            for (int i = 0; i < devices.size(); i++) {
                volumes.add(new SeriesStore.DeviceVolume(devices.get(i), bytes[i], Math.round(rows[i])));
            }
            return volumes;
        } catch (RocksDBException e) {
            throw new ProcessorStateException("cannot estimate the devices' sizes in the series store in " + database.dir(), e);
        } finally {
            lock.unlock();
        }
    }

    /** The distinct device prefixes of the latest table's keys, in key order (its keys are series prefixes). */
    private List<byte[]> devicePrefixes() {
        List<byte[]> devices = new ArrayList<>();
        byte[] last = null;
        for (Segment segment : segments.of(Table.LATEST)) {
            try (RocksIterator keys = database.rocksDb().newIterator(segment.handle)) {
                for (keys.seekToFirst(); keys.isValid(); keys.next()) {
                    byte[] key = keys.key();
                    int length = KeyspaceActivity.devicePrefixLength(key, false);
                    if (length > 0 && (last == null || !Arrays.equals(last, 0, last.length, key, 0, length))) {
                        last = Arrays.copyOf(key, length);
                        devices.add(last);
                    }
                }
            }
        }
        return devices;
    }

    /** Adds each device's estimated bytes and rows in {@code segment} to {@code bytes} and {@code rows}. */
    private void addEstimates(Segment segment, List<byte[]> devicePrefixes, long[] bytes, double[] rows)
            throws RocksDBException {
        RocksDB db = database.rocksDb();
        long memtableRows = Math.max(0, segment.longProperty("rocksdb.num-entries-active-mem-table"))
                + Math.max(0, segment.longProperty("rocksdb.num-entries-imm-mem-tables"));
        long fileRows = Math.max(0, segment.longProperty("rocksdb.estimate-num-keys") - memtableRows);
        long fileBytes = Math.max(0, segment.longProperty("rocksdb.live-sst-files-size"));
        double rowsPerFileByte = fileBytes == 0 ? 0 : (double) fileRows / fileBytes;
        List<Slice> slices = new ArrayList<>(2 * devicePrefixes.size());
        try {
            List<Range> ranges = new ArrayList<>(devicePrefixes.size());
            for (byte[] prefix : devicePrefixes) {
                // Every key of the device starts with the prefix, which ends with the delimiter: the range ends at the
                // prefix with its last byte one higher.
                byte[] end = prefix.clone();
                end[end.length - 1]++;
                Slice from = new Slice(prefix);
                slices.add(from);
                Slice to = new Slice(end);
                slices.add(to);
                ranges.add(new Range(from, to));
            }
            long[] inFiles = fileBytes == 0 ? new long[ranges.size()]
                    : db.getApproximateSizes(segment.handle, ranges, SizeApproximationFlag.INCLUDE_FILES);
            for (int i = 0; i < ranges.size(); i++) {
                RocksDB.CountAndSize inMemory = memtableRows == 0 ? null
                        : db.getApproximateMemTableStats(segment.handle, ranges.get(i));
                bytes[i] += inFiles[i] + (inMemory == null ? 0 : inMemory.size);
                rows[i] += inFiles[i] * rowsPerFileByte + (inMemory == null ? 0 : inMemory.count);
            }
        } finally {
            slices.forEach(Slice::close);
        }
    }
}
