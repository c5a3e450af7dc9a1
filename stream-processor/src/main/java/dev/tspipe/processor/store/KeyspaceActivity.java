package dev.tspipe.processor.store;

import dev.tspipe.model.keys.RowKey;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;

/**
 * What one Kafka partition's keys went through, per device and per wall-clock minute: rows and bytes written and
 * read (the counters behind the key-space heatmap, docs/query-api.md "Key-space heatmap", Bigtable's Key
 * Visualizer). A device is the start of its row keys up to and including its own segment (salt and tenant
 * included), so sorting devices by those bytes is sorting them in row-key order, and a range of devices is a
 * range of the key space.
 *
 * <p>In memory only, the last {@value #MINUTES} minutes: a task that moves to another instance starts its
 * counts again there. The hot path (a write of the stream thread) is one hash lookup and two plain additions: the
 * task's one stream thread is the only writer of the write counters, which it publishes with opaque stores;
 * readers (the HTTP threads, any number) add to the read counters atomically; a snapshot reads while both go on.
 */
public final class KeyspaceActivity {

    /** How many minutes are kept, the current one included. */
    public static final int MINUTES = 60;
    public static final long MINUTE_MS = 60_000;

    /** The counters of a device in a minute. */
    public enum Counter { WRITE_ROWS, WRITE_BYTES, READ_ROWS, READ_BYTES }

    private static final int COUNTERS = Counter.values().length;

    /** The counts of one minute, by device prefix: per device, every {@link Counter}. */
    private record Minute(long index, ConcurrentHashMap<Prefix, long[]> devices) {
    }

    /** A device prefix: the first {@code length} bytes of {@code bytes} (a key looked up), or all of them (a key kept). */
    private static final class Prefix {
        final byte[] bytes;
        final int length;
        final int hash;

        Prefix(byte[] bytes, int length) {
            this.bytes = bytes;
            this.length = length;
            int h = 1;
            for (int i = 0; i < length; i++) {
                h = 31 * h + bytes[i];
            }
            this.hash = h;
        }

        @Override
        public int hashCode() {
            return hash;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Prefix other && Arrays.equals(bytes, 0, length, other.bytes, 0, other.length);
        }
    }

    private static final VarHandle COUNTS = MethodHandles.arrayElementVarHandle(long[].class);

    private final ConcurrentSkipListMap<Long, Minute> minutes = new ConcurrentSkipListMap<>();
    private volatile Minute current;

    /** A reading's raw row of {@code rowBytes} (key and value) written at wall-clock time {@code nowMs}. */
    public void written(byte[] rowKey, int rowBytes, long nowMs) {
        add(rowKey, devicePrefixLength(rowKey, true), Counter.WRITE_ROWS, 1, rowBytes, nowMs);
    }

    /** {@code rows} raw rows of {@code rowBytes} in all (keys and values) of the series of {@code seriesPrefix}, at once. */
    public void writtenInSeries(byte[] seriesPrefix, long rows, long rowBytes, long nowMs) {
        add(seriesPrefix, devicePrefixLength(seriesPrefix, false), Counter.WRITE_ROWS, rows, rowBytes, nowMs);
    }

    /** A row of a table read: its key, whether the key ends with a timestamp, its bytes (key and value). */
    public void read(byte[] key, boolean timeKeyed, int rowBytes, long nowMs) {
        add(key, devicePrefixLength(key, timeKeyed), Counter.READ_ROWS, 1, rowBytes, nowMs);
    }

    private void add(byte[] key, int prefixLength, Counter rows, long count, long bytes, long nowMs) {
        if (prefixLength <= 0) {
            return;
        }
        Minute minute = minute(Math.floorDiv(nowMs, MINUTE_MS));
        if (minute == null) {
            return;
        }
        long[] counts = minute.devices.get(new Prefix(key, prefixLength));
        if (counts == null) {
            counts = minute.devices.computeIfAbsent(new Prefix(Arrays.copyOf(key, prefixLength), prefixLength),
                    k -> new long[COUNTERS]);
        }
        int at = rows.ordinal();
        if (rows == Counter.WRITE_ROWS) {
            // One writer: plain arithmetic, published for snapshots by opaque stores (no locked instruction).
            COUNTS.setOpaque(counts, at, (long) COUNTS.getOpaque(counts, at) + count);
            COUNTS.setOpaque(counts, at + 1, (long) COUNTS.getOpaque(counts, at + 1) + bytes);
        } else {
            COUNTS.getAndAdd(counts, at, count);
            COUNTS.getAndAdd(counts, at + 1, bytes);
        }
    }

    /** The minute {@code index}, created if it is new; null when it is older than the minutes kept. */
    private Minute minute(long index) {
        Minute minute = current;
        if (minute != null && minute.index == index) {
            return minute;
        }
        minute = minutes.get(index);
        if (minute != null) {
            return minute;
        }
        synchronized (this) {
            Long newest = minutes.isEmpty() ? null : minutes.lastKey();
            if (newest != null && index <= newest - MINUTES) {
                return null;
            }
            minute = minutes.computeIfAbsent(index, i -> new Minute(i, new ConcurrentHashMap<>()));
            if (newest == null || index > newest) {
                current = minute;
                minutes.headMap(index - MINUTES, true).clear();
            }
            return minute;
        }
    }

    /**
     * The length of the device prefix of a key: up to and including the delimiter after the device segment, which
     * is the one before the metric segment (a segment never holds the delimiter); 0 for a key without one.
     */
    static int devicePrefixLength(byte[] key, boolean timeKeyed) {
        int seriesEnd = timeKeyed ? key.length - RowKey.TIMESTAMP_DIGITS : key.length;
        // The series prefix ends with the delimiter after the metric; the device's delimiter is the one before it.
        for (int i = seriesEnd - 2; i >= 0; i--) {
            if (key[i] == RowKey.DELIMITER) {
                return i + 1;
            }
        }
        return 0;
    }

    /** The counts of {@code [fromMs, toMs)}, whole minutes, by device in row-key order. */
    public Window window(long fromMs, long toMs) {
        long first = Math.floorDiv(fromMs, MINUTE_MS);
        long end = Math.max(first, Math.floorDiv(toMs + MINUTE_MS - 1, MINUTE_MS));
        int width = (int) Math.min(end - first, MINUTES);
        long start = end - width;
        TreeMap<byte[], long[]> devices = new TreeMap<>(Arrays::compareUnsigned);
        for (Minute minute : minutes.subMap(start, true, end, false).values()) {
            int column = (int) (minute.index - start);
            for (Map.Entry<Prefix, long[]> device : minute.devices.entrySet()) {
                long[] counts = devices.computeIfAbsent(device.getKey().bytes, k -> new long[width * COUNTERS]);
                for (int c = 0; c < COUNTERS; c++) {
                    counts[column * COUNTERS + c] = (long) COUNTS.getOpaque(device.getValue(), c);
                }
            }
        }
        List<DeviceCounts> inOrder = new ArrayList<>(devices.size());
        devices.forEach((prefix, counts) -> inOrder.add(new DeviceCounts(prefix, counts)));
        return new Window(start * MINUTE_MS, width, inOrder);
    }

    /**
     * Whole minutes of activity.
     *
     * @param startMs the first minute's start
     * @param minutes how many minutes
     * @param devices every device counted in them, in row-key order
     */
    public record Window(long startMs, int minutes, List<DeviceCounts> devices) {
    }

    /** A device's counts: its key prefix, and per minute of the window every {@link Counter}. */
    public record DeviceCounts(byte[] devicePrefix, long[] counts) {

        public long count(int minute, Counter counter) {
            return counts[minute * COUNTERS + counter.ordinal()];
        }
    }

    /** Minutes currently kept (tests). */
    NavigableMap<Long, ?> minutes() {
        return minutes;
    }
}
