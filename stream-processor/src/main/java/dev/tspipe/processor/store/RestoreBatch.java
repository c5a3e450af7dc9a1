package dev.tspipe.processor.store;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The rows a restore has collected and not yet written (docs/storage.md, "Restore"): kept across Kafka Streams'
 * restore batches until the next commit report or until they hold {@link #MAX_BYTES}, then written in RocksDB
 * write batches of at most {@link #MAX_BATCH_BYTES}, in key order per column family, only the last write of each key
 * (and the merges after it: the chunks of a raw block, in their order, written as one merge of their values).
 *
 * <ul>
 *   <li><b>Key order.</b> RocksDB's memtable is a skip list whose insert remembers where the previous key went (a
 *       "splice"): a key just after the previous one is found in a few steps, any other key by a search from the
 *       top, a cache miss per level. Changelog records come series by series, each with its rows oldest first, that
 *       is in descending key order (reversed timestamps), so written as they come nearly every insert is a full
 *       search; in key order each one starts where the last one ended.</li>
 *   <li><b>The last write of each key.</b> Hourly and daily buckets, latest values and the current 1-minute bucket
 *       are written again by every commit that changed them; of the writes of one key in a batch only the last one
 *       counts, so the others are left out (equal keys stay in the order they came: "last" is the one that came
 *       last).</li>
 *   <li><b>Batches built here.</b> The batches are handed to RocksDB in their serialized form
 *       ({@code WriteBatch(byte[])}: one JNI call per batch instead of two per row, and no copy of each value into
 *       a Java array first), in RocksDB's own batch format (the one its write-ahead log stores:
 *       {@code db/write_batch.cc}), checked byte for byte against RocksDB's by {@code RestoreBatchTest}.</li>
 * </ul>
 *
 * <p>Thread rule: that of {@link ChangelogRestore}, which owns it: one thread at a time, the one restoring the task or
 * the one that took it over.
 */
final class RestoreBatch {

    /**
     * Bytes held (keys, values and about {@value #ROW_OVERHEAD_BYTES} bytes of bookkeeping per row) before the rows are
     * written even without a commit report: bounds the heap a restoring task uses between commits.
     */
    static final long MAX_BYTES = 4L * 1024 * 1024;
    /**
     * Rows per serialized write batch are at most this many bytes: below G1's humongous object size (half a region, at
     * least 512 KiB), so the batches are ordinary young objects, and RocksDB's copy of each stays small.
     */
    static final int MAX_BATCH_BYTES = 256 * 1024;
    private static final int INITIAL_CAPACITY = 1024;
    /** The arrays' slots for a row and the key array's header, roughly. */
    private static final int ROW_OVERHEAD_BYTES = 64;
    /** Ranges this short are sorted by insertion: fewer moves than merging. */
    private static final int INSERTION_SORT_MAX = 12;
    /** A batch starts with its sequence number and its count of records ({@link BatchBuilder}). */
    private static final int HEADER_BYTES = BatchBuilder.HEADER_BYTES;

    // One row per index, in the order they came: a put of lengths[i] bytes of sources[i] from offsets[i], or a delete
    // when sources[i] is null. heads[i] is the key's first 8 bytes as an unsigned number (zero-padded): most
    // comparisons of the sort end there, without touching the key arrays.
    private Segment[] segments = new Segment[INITIAL_CAPACITY];
    private byte[][] keys = new byte[INITIAL_CAPACITY][];
    private byte[][] sources = new byte[INITIAL_CAPACITY][];
    private int[] offsets = new int[INITIAL_CAPACITY];
    private int[] lengths = new int[INITIAL_CAPACITY];
    private long[] heads = new long[INITIAL_CAPACITY];
    /**
     * Per row: a 64-bit hash of its whole key. Rows of one key from many records meet in every merge of the sort; equal
     * heads and hashes order them by arrival without reading their key arrays (a cache miss each, most of the sort's
     * time). Two keys of equal head and hash that differ (about one pair in 2^64) may then be out of order in the
     * batch: slower to insert, still right, since what is written per key ({@link #sameKey}) compares the bytes.
     */
    private long[] hashes = new long[INITIAL_CAPACITY];
    /** Rows of {@link #order} already sorted by {@link #sorted}, before any row added since. */
    private int sortedCount;
    private boolean[] merges = new boolean[INITIAL_CAPACITY];
    /** Per row: a raw chunk's newest reading (what a restore's latest readings come from), or NONE. */
    private long[] times = new long[INITIAL_CAPACITY];
    /** Whether {@link #order} holds the rows sorted, none left out yet ({@link #sorted}). */
    private boolean sortedOrder;
    private int[] order = new int[0];
    private int[] scratch = new int[0];
    /** Per sorted position, during {@link #serialize}: the end of the run of the key's merges that starts there. */
    private int[] runEnds = new int[0];
    /** During {@link #sortRuns}: where each run ends. */
    private int[] runBounds = new int[0];
    private int size;
    private long coalesced;
    private long bytes;
    private long superseded;

    /** Puts {@code length} bytes of {@code source} from {@code offset} (not copied: the array must not change) under {@code key}. */
    void put(Segment segment, byte[] key, byte[] source, int offset, int length) {
        add(segment, key, source, offset, length, false);
    }

    /**
     * A chunk of a raw block ({@code length} bytes of {@code source} from {@code offset}, not copied): merged into
     * {@code key}, appended to the block, or put in place of the block when {@code whole}; its newest reading is at
     * {@code newestMillis} ({@link #newestMillis}; {@link StreamTime#NONE}: not known). A merge replaces nothing, so it
     * is never left out, and the writes of its key before it neither.
     */
    void chunk(Segment segment, byte[] key, byte[] source, int offset, int length, long newestMillis, boolean whole) {
        add(segment, key, source, offset, length, !whole);
        times[size - 1] = newestMillis;
    }

    void delete(Segment segment, byte[] key) {
        add(segment, key, null, 0, 0, false);
    }

    private void add(Segment segment, byte[] key, byte[] source, int offset, int length, boolean merge) {
        if (size == segments.length) {
            int capacity = size * 2;
            segments = Arrays.copyOf(segments, capacity);
            keys = Arrays.copyOf(keys, capacity);
            sources = Arrays.copyOf(sources, capacity);
            offsets = Arrays.copyOf(offsets, capacity);
            lengths = Arrays.copyOf(lengths, capacity);
            heads = Arrays.copyOf(heads, capacity);
            hashes = Arrays.copyOf(hashes, capacity);
            merges = Arrays.copyOf(merges, capacity);
            times = Arrays.copyOf(times, capacity);
        }
        sortedOrder = false;
        merges[size] = merge;
        times[size] = StreamTime.NONE;
        segments[size] = segment;
        keys[size] = key;
        sources[size] = source;
        offsets[size] = offset;
        lengths[size] = length;
        long head = 0;
        for (int i = 0; i < 8; i++) {
            head = head << 8 | (i < key.length ? key[i] & 0xFF : 0);
        }
        heads[size] = head;
        hashes[size] = KeyHash.of(key, key.length);
        size++;
        bytes += key.length + length + ROW_OVERHEAD_BYTES;
    }

    boolean isEmpty() {
        return size == 0;
    }

    /** Empty, and its arrays as small as when new: nothing for the stream thread to do. */
    boolean isIdle() {
        return size == 0 && segments.length == INITIAL_CAPACITY;
    }

    boolean isFull() {
        return bytes >= MAX_BYTES;
    }

    /** Rows collected (superseded ones included). */
    int size() {
        return size;
    }

    /** Rows left out so far because a later row of the same key came in the same batch (all batches of this object). */
    long superseded() {
        return superseded;
    }

    /**
     * The rows as serialized RocksDB write batches ({@code new WriteBatch(bytes)}), in key order per column family, the
     * last write of each key only: one batch, or several of at most {@code maxBatchBytes} each (but a row larger than
     * that alone), consecutive in that order.
     */
    List<byte[]> serialize(int maxBatchBytes) {
        sorted();
        // The loop below marks the rows it leaves out in the order: it is sorted again from the start next time.
        sortedOrder = false;
        sortedCount = 0;
        // The batches' bounds: the rows of batch b are order[batchEnds[b - 1], batchEnds[b]) (left-out rows are -1).
        List<Integer> batchEnds = new ArrayList<>();
        List<Integer> batchLengths = new ArrayList<>();
        List<Integer> batchCounts = new ArrayList<>();
        if (runEnds.length < size) {
            runEnds = new int[order.length];
        }
        long length = HEADER_BYTES;
        int count = 0;
        for (int k = 0; k < size; k++) {
            int i = order[k];
            // Merges of one key in a row (a raw block's chunks) are written as one merge of their values, one after
            // the other: what RocksDB's string-append operator makes of them anyway, for one memtable insert.
            int end = k + 1;
            long values = sources[i] == null ? -1 : lengths[i];
            if (merges[i]) {
                while (end < size && merges[order[end]] && sameKey(i, order[end])) {
                    values += lengths[order[end++]];
                }
            }
            runEnds[k] = end;
            if (end < size && sameKey(i, order[end]) && !merges[order[end]]) {
                // Left out: the next write of the key (it came later: ties are in arrival order) replaces it; a
                // merge adds to what is before it, which stays.
                for (int left = k; left < end; left++) {
                    order[left] = -1;
                }
                superseded += end - k;
                k = end - 1;
                continue;
            }
            long row = BatchBuilder.encodedLength(segments[i].columnFamilyId, keys[i].length, (int) Math.min(values, Integer.MAX_VALUE));
            if (count > 0 && length + row > maxBatchBytes) {
                batchEnds.add(k);
                batchLengths.add((int) length);
                batchCounts.add(count);
                length = HEADER_BYTES;
                count = 0;
            }
            length += row;
            count++;
            if (length > Integer.MAX_VALUE - 16) {
                throw new IllegalStateException("a restored row of " + row + " bytes is too large for one write batch");
            }
            k = end - 1;
        }
        if (count > 0) {
            batchEnds.add(size);
            batchLengths.add((int) length);
            batchCounts.add(count);
        }
        List<byte[]> batches = new ArrayList<>(batchEnds.size());
        int k = 0;
        for (int b = 0; b < batchEnds.size(); b++) {
            BatchBuilder out = new BatchBuilder(batchLengths.get(b));
            for (; k < batchEnds.get(b); k++) {
                int row = order[k];
                if (row < 0) {
                    continue;
                }
                if (sources[row] == null) {
                    out.delete(segments[row].columnFamilyId, keys[row]);
                } else if (merges[row] && runEnds[k] > k + 1) {
                    byte[] joined = join(k, runEnds[k]);
                    out.merge(segments[row].columnFamilyId, keys[row], joined, 0, joined.length);
                    coalesced += runEnds[k] - k - 1;
                    k = runEnds[k] - 1;
                } else if (merges[row]) {
                    out.merge(segments[row].columnFamilyId, keys[row], sources[row], offsets[row], lengths[row]);
                } else {
                    out.put(segments[row].columnFamilyId, keys[row], sources[row], offsets[row], lengths[row]);
                }
            }
            if (out.count() != batchCounts.get(b)) {
                throw new IllegalStateException("a restore batch of " + out.count() + " rows, " + batchCounts.get(b) + " expected");
            }
            batches.add(out.toBytes());
        }
        return batches;
    }

    /** The values of the merges {@code order[from, to)}, one after the other. */
    private byte[] join(int from, int to) {
        int total = 0;
        for (int k = from; k < to; k++) {
            total += lengths[order[k]];
        }
        byte[] joined = new byte[total];
        int at = 0;
        for (int k = from; k < to; k++) {
            int row = order[k];
            System.arraycopy(sources[row], offsets[row], joined, at, lengths[row]);
            at += lengths[row];
        }
        return joined;
    }

    /** Merges written as part of an earlier merge of the same key (all batches of this object). */
    long coalesced() {
        return coalesced;
    }

    /** The rows as one serialized RocksDB write batch (see {@link #serialize(int)}). */
    byte[] serialize() {
        List<byte[]> batches = serialize(Integer.MAX_VALUE);
        return batches.isEmpty() ? new byte[HEADER_BYTES] : batches.get(0);
    }

    /** The bytes of row {@code i} in a serialized batch: its type, column family, key and value. */
    private long encodedLength(int i) {
        return BatchBuilder.encodedLength(segments[i].columnFamilyId, keys[i].length, sources[i] == null ? -1 : lengths[i]);
    }

    /** Row a before row b: by column family, key (unsigned bytes), then arrival, so that equal keys keep their order. */
    private int compare(int a, int b) {
        if (segments[a] != segments[b]) {
            return Integer.compare(segments[a].columnFamilyId, segments[b].columnFamilyId);
        }
        int byHead = Long.compareUnsigned(heads[a], heads[b]);
        if (byHead != 0) {
            return byHead;
        }
        if (hashes[a] == hashes[b]) {
            return Integer.compare(a, b);
        }
        int byKey = Arrays.compareUnsigned(keys[a], keys[b]);
        return byKey != 0 ? byKey : Integer.compare(a, b);
    }

    /** Whether rows {@code a} and {@code b} write the same key of the same column family. */
    boolean sameKey(int a, int b) {
        return segments[a] == segments[b] && heads[a] == heads[b] && Arrays.equals(keys[a], keys[b]);
    }

    /**
     * Sorts {@code order[first, size)} by {@link #compare} (a primitive index array: no boxing, no comparator objects), a
     * natural merge sort: the runs already in order are found and merged pairwise. The raw changelog's records each
     * hold one commit's chunks in key order, so a batch of them is a few long runs (a merge level per doubling of the
     * commits, not of the rows); runs shorter than {@value #INSERTION_SORT_MAX} rows (the rows of a rollup group, newest
     * key last) are made that long by insertion sort first.
     */
    private void sortRuns(int first, int size) {
        int rows = size - first;
        if (runBounds.length < rows / INSERTION_SORT_MAX + 2) {
            runBounds = new int[rows / INSERTION_SORT_MAX + 2];
        }
        int runs = 0;
        for (int start = first; start < size; ) {
            int end = start + 1;
            while (end < size && compare(order[end - 1], order[end]) < 0) {
                end++;
            }
            if (end - start < INSERTION_SORT_MAX) {
                end = Math.min(size, start + INSERTION_SORT_MAX);
                insertionSort(start, end);
            }
            runBounds[runs++] = end;
            start = end;
        }
        while (runs > 1) {
            int merged = 0;
            int from = first;
            for (int r = 0; r < runs; r += 2) {
                int middle = runBounds[r];
                int to = r + 1 < runs ? runBounds[r + 1] : middle;
                merge(from, middle, to);
                runBounds[merged++] = to;
                from = to;
            }
            runs = merged;
        }
    }

    private void insertionSort(int from, int to) {
        for (int i = from + 1; i < to; i++) {
            int row = order[i];
            int j = i - 1;
            while (j >= from && compare(order[j], row) > 0) {
                order[j + 1] = order[j];
                j--;
            }
            order[j + 1] = row;
        }
    }

    /** Merges the sorted {@code order[from, middle)} and {@code order[middle, to)}. */
    private void merge(int from, int middle, int to) {
        if (middle <= from || middle >= to || compare(order[middle - 1], order[middle]) <= 0) {
            return;
        }
        System.arraycopy(order, from, scratch, from, to - from);
        int left = from;
        int right = middle;
        for (int k = from; k < to; k++) {
            if (right >= to || left < middle && compare(scratch[left], scratch[right]) <= 0) {
                order[k] = scratch[left++];
            } else {
                order[k] = scratch[right++];
            }
        }
    }

    /**
     * Sorts the rows (key order per column family, equal keys in the order they came) for {@link #sortedRow}, until the
     * next row is added or the rows are serialized. Returns how many rows there are.
     */
    int sorted() {
        if (!sortedOrder) {
            if (order.length < size) {
                order = Arrays.copyOf(order, segments.length);
                scratch = new int[segments.length];
            }
            // Rows added since the last sort (the latest readings a restore found in the sorted rows) are sorted on
            // their own and merged in: the rows before them are not sorted again.
            for (int i = sortedCount; i < size; i++) {
                order[i] = i;
            }
            sortRuns(sortedCount, size);
            merge(0, sortedCount, size);
            sortedOrder = true;
            sortedCount = size;
        }
        return size;
    }

    /** The row at {@code position} of the sorted order ({@link #sorted}): an index for the accessors below. */
    int sortedRow(int position) {
        return order[position];
    }

    Segment segmentOf(int row) {
        return segments[row];
    }

    byte[] keyOf(int row) {
        return keys[row];
    }

    byte[] sourceOf(int row) {
        return sources[row];
    }

    int offsetOf(int row) {
        return offsets[row];
    }

    int lengthOf(int row) {
        return lengths[row];
    }

    /** A raw chunk's newest reading ({@link #chunk}), or NONE for any other row. */
    long newestMillis(int row) {
        return times[row];
    }

    /** Forgets the rows collected after the first {@code keep}: those of a restore batch that failed half-way. */
    void truncate(int keep) {
        for (int i = keep; i < size; i++) {
            bytes -= keys[i].length + lengths[i] + ROW_OVERHEAD_BYTES;
            segments[i] = null;
            keys[i] = null;
            sources[i] = null;
        }
        size = Math.min(size, keep);
        sortedOrder = false;
        sortedCount = 0;
    }

    void clear() {
        truncate(0);
        bytes = 0;
    }

    /** Clears and gives back the arrays grown for a large restore (the stream thread writes: the restore is over). */
    void release() {
        clear();
        if (segments.length > INITIAL_CAPACITY) {
            segments = new Segment[INITIAL_CAPACITY];
            keys = new byte[INITIAL_CAPACITY][];
            sources = new byte[INITIAL_CAPACITY][];
            offsets = new int[INITIAL_CAPACITY];
            lengths = new int[INITIAL_CAPACITY];
            heads = new long[INITIAL_CAPACITY];
            hashes = new long[INITIAL_CAPACITY];
            merges = new boolean[INITIAL_CAPACITY];
            times = new long[INITIAL_CAPACITY];
            order = new int[0];
            scratch = new int[0];
            runEnds = new int[0];
            runBounds = new int[0];
        }
    }
}
