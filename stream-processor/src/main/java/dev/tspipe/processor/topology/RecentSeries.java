package dev.tspipe.processor.topology;

import dev.tspipe.model.keys.SeriesId;

import java.util.Arrays;

/**
 * The series of recent values, found by the bytes of their device, metric and tenant as a value holds them, so that
 * the decoder's fast path does not check and encode them again for every reading: the same bytes were valid text
 * then and give the same series and the same row key prefix now; only the timestamp is new. Measured on the
 * end-to-end harness's catch-up (docs/benchmarks.md): checking the strings, making them and escaping them into the
 * row key took about a tenth of the stream thread.
 *
 * <p>Set-associative: {@value #SLOTS} slots in sets of {@value #WAYS}, a series goes to the set of its hash and, when
 * the set is full, evicts the one remembered longest ago there; so memory is bounded (a few hundred bytes per slot in
 * use) and a fleet larger than the slots is decoded as if there were no cache, only a hash slower. Direct-mapped (one
 * slot per hash), series that shared a slot evicted each other at every reading and were decoded the slow way every
 * time (birthday collisions: docs/benchmarks.md, fifth round). Not thread-safe: one per decoder, as the decoder's
 * reader is.
 */
final class RecentSeries {

    /** Slots per decoder (a power of two): a task of the default run holds about 830 series. */
    static final int SLOTS = 8192;
    /** Slots per set (a power of two): a set overflows only when more series than this share its hash bits. */
    static final int WAYS = 4;

    /**
     * A series as a value spells it: the bytes from its device's first to its metric's last (the device, the metric's
     * length, the metric, as Avro writes them) with the device's length, which says where the metric starts; the
     * tenant, null when the value has none. With what it decodes to.
     */
    record Known(byte[] names, int deviceLength, byte[] tenant, SeriesId series, byte[] prefix) {
    }

    /** Made at the first series remembered: the decoder of the repartition topic, which sees few records, often never needs it. */
    private Known[] slots;
    /** The hash of each slot's series, compared before its bytes. */
    private int[] hashes;
    /** Per set, the way its next new series takes when the set is full (round robin: the one remembered longest ago). */
    private byte[] nextWay;
    /** The bytes of the last {@link #find}, for {@link #remember}. */
    private byte[] data;
    private int deviceStart;
    private int deviceLength;
    private int metricStart;
    private int metricLength;
    private int tenantStart;
    private int tenantLength;
    private int hash;

    /**
     * The series whose device, metric and tenant are these bytes of {@code data} ({@code tenantStart} -1: no tenant),
     * or null if it is not among the recent ones. The metric follows the device in {@code data}, after its length.
     */
    Known find(byte[] data, int deviceStart, int deviceLength, int metricStart, int metricLength, int tenantStart,
               int tenantLength) {
        this.data = data;
        this.deviceStart = deviceStart;
        this.deviceLength = deviceLength;
        this.metricStart = metricStart;
        this.metricLength = metricLength;
        this.tenantStart = tenantStart;
        this.tenantLength = tenantLength;
        int namesEnd = metricStart + metricLength;
        int h = hash(data, deviceStart, namesEnd, 1);
        if (tenantStart >= 0) {
            h = hash(data, tenantStart, tenantStart + tenantLength, h * 31 + 1);
        }
        hash = h ^ (h >>> 13);
        if (slots == null) {
            return null;
        }
        int first = firstSlotOf(hash);
        for (int slot = first; slot < first + WAYS; slot++) {
            Known known = slots[slot];
            if (known == null) {
                return null;
            }
            if (hashes[slot] == hash && known.deviceLength() == deviceLength && same(known.names(), deviceStart, namesEnd)
                    && (tenantStart < 0 ? known.tenant() == null
                            : known.tenant() != null && same(known.tenant(), tenantStart, tenantStart + tenantLength))) {
                return known;
            }
        }
        return null;
    }

    /** Remembers that the bytes of the last {@link #find}, which found nothing, are {@code series} with key prefix {@code prefix}. */
    Known remember(SeriesId series, byte[] prefix) {
        Known known = new Known(Arrays.copyOfRange(data, deviceStart, metricStart + metricLength), deviceLength,
                tenantStart < 0 ? null : Arrays.copyOfRange(data, tenantStart, tenantStart + tenantLength), series, prefix);
        if (slots == null) {
            slots = new Known[SLOTS];
            hashes = new int[SLOTS];
            nextWay = new byte[SLOTS / WAYS];
        }
        int first = firstSlotOf(hash);
        int slot = first;
        while (slot < first + WAYS && slots[slot] != null) {
            slot++;
        }
        if (slot == first + WAYS) {
            int set = first / WAYS;
            slot = first + nextWay[set];
            nextWay[set] = (byte) ((nextWay[set] + 1) & (WAYS - 1));
        }
        slots[slot] = known;
        hashes[slot] = hash;
        return known;
    }

    private static int firstSlotOf(int hash) {
        return (hash & (SLOTS / WAYS - 1)) * WAYS;
    }

    /** Forgets every series (their key prefixes are of another layout). */
    void clear() {
        slots = null;
        hashes = null;
        nextWay = null;
    }

    private boolean same(byte[] known, int start, int end) {
        return Arrays.equals(known, 0, known.length, data, start, end);
    }

    private static int hash(byte[] bytes, int start, int end, int h) {
        for (int i = start; i < end; i++) {
            h = 31 * h + bytes[i];
        }
        return h;
    }
}
