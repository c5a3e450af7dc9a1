package dev.tspipe.model.keys;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * A half-open range of keys {@code [from, toExclusive)} in unsigned byte order, the order of
 * RocksDB's default comparator and of Kafka Streams' {@code Bytes}. A forward scan of the range
 * returns the newest row of a series first; a reverse scan the oldest first.
 */
public final class KeyRange {

    private final byte[] from;
    private final byte[] toExclusive;

    KeyRange(byte[] from, byte[] toExclusive) {
        this.from = from;
        this.toExclusive = toExclusive;
    }

    /** The first key in the range (inclusive). */
    public byte[] from() {
        return from.clone();
    }

    /** The first key after the range (exclusive). */
    public byte[] toExclusive() {
        return toExclusive.clone();
    }

    public boolean isEmpty() {
        return Arrays.compareUnsigned(from, toExclusive) >= 0;
    }

    public boolean contains(byte[] key) {
        return Arrays.compareUnsigned(key, from) >= 0 && Arrays.compareUnsigned(key, toExclusive) < 0;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof KeyRange other && Arrays.equals(from, other.from) && Arrays.equals(toExclusive, other.toExclusive);
    }

    @Override
    public int hashCode() {
        return 31 * Arrays.hashCode(from) + Arrays.hashCode(toExclusive);
    }

    @Override
    public String toString() {
        return "[" + printable(from) + ", " + printable(toExclusive) + ")";
    }

    private static String printable(byte[] key) {
        StringBuilder out = new StringBuilder();
        for (byte b : key) {
            int u = b & 0xFF;
            if (u >= 0x20 && u < 0x7F) {
                out.append((char) u);
            } else {
                out.append(String.format("\\x%02X", u));
            }
        }
        return new String(out.toString().getBytes(StandardCharsets.US_ASCII), StandardCharsets.US_ASCII);
    }
}
