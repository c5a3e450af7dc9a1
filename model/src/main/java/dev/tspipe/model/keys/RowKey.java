package dev.tspipe.model.keys;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.security.DigestException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.Objects;

/**
 * The row key of one reading, and the one place that defines the byte format of every key in
 * tspipe's stores: raw rows and rollups (whose timestamp is the bucket start) alike.
 *
 * <h2>Layout</h2>
 *
 * <table>
 *   <caption>Row key, in order</caption>
 *   <tr><th>part</th><th>bytes</th><th>present</th></tr>
 *   <tr><td>salt</td><td>4 lower-case hex chars: the first 2 bytes of MD5 over the key's
 *       distribution segments as written ({@code device} or {@code tenant#device}), then {@code #}</td>
 *       <td>salted layouts only</td></tr>
 *   <tr><td>tenant</td><td>escaped segment, then {@code #}</td><td>multi-tenant layouts only</td></tr>
 *   <tr><td>device</td><td>escaped segment (non-empty), then {@code #}</td><td>always</td></tr>
 *   <tr><td>metric</td><td>escaped segment (non-empty), then {@code #}</td><td>always</td></tr>
 *   <tr><td>reversed timestamp</td><td>19 ASCII digits of {@code 9223372036854775807 - epochMillis}</td><td>always</td></tr>
 * </table>
 *
 * <p><b>Segment escaping.</b> A segment is the UTF-8 form of its text, where bytes
 * {@code 0x24..0x7E} except {@code %} stand as themselves and every other byte is written as
 * {@code %XX} (two upper-case hex digits). Every byte inside a segment is therefore above the
 * delimiter {@code #} (0x23), which gives the three properties the stores rely on:
 * <ul>
 *   <li>a segment that is a prefix of another sorts first: {@code a100#} &lt; {@code a1001#},
 *       because {@code #} sorts below every byte that can follow inside a segment;</li>
 *   <li>a prefix scan of {@code dev-1#} can never return a row of {@code dev-10};</li>
 *   <li>the delimiter never occurs inside a segment, so keys split back into their parts exactly.</li>
 * </ul>
 * Escaping is canonical: a byte that may stand as itself is never escaped, and hex digits are
 * upper case, so each key has exactly one encoding and equal parts give equal bytes.
 *
 * <p><b>Timestamps</b> run from 0 to {@value #MAX_EPOCH_MILLIS} (9999-12-31T23:59:59.999Z) and are
 * stored reversed and zero-padded to a fixed width, so that text order is numeric order and a
 * forward scan returns the newest row first (Bigtable's reverse timestamps).
 *
 * <h2>Worked examples</h2>
 *
 * <table>
 *   <caption>Examples (single-tenant unless noted)</caption>
 *   <tr><th>parts</th><th>key</th></tr>
 *   <tr><td>sensor-1, temp, 1700000000000</td><td>{@code sensor-1#temp#9223370336854775807}</td></tr>
 *   <tr><td>sensor-1, temp, 0</td><td>{@code sensor-1#temp#9223372036854775807}</td></tr>
 *   <tr><td>sensor-1, temp, 253402300799999</td><td>{@code sensor-1#temp#9223118634553975808}</td></tr>
 *   <tr><td>Café, a b, 0</td><td>{@code Caf%C3%A9#a%20b#9223372036854775807}</td></tr>
 *   <tr><td>x#y, 100%, 0</td><td>{@code x%23y#100%25#9223372036854775807}</td></tr>
 *   <tr><td>tenant acme: d, m, 0</td><td>{@code acme#d#m#9223372036854775807}</td></tr>
 * </table>
 *
 * <p>Keys are at most {@value #MAX_KEY_BYTES} bytes (Azure Table storage's limit); device and
 * metric are non-empty. Parts that break a rule are refused with {@link InvalidKeyException};
 * bytes that are not a key of the layout are refused with {@link MalformedKeyException}, which
 * names the offset.
 *
 * @param series      the series of the reading (or rollup)
 * @param epochMillis the reading's timestamp, or the rollup bucket's start
 */
public record RowKey(SeriesId series, long epochMillis) {

    /** Separates segments; below every byte allowed inside a segment. */
    public static final byte DELIMITER = '#';
    public static final int MAX_KEY_BYTES = 1024;
    public static final long MIN_EPOCH_MILLIS = 0L;
    /** 9999-12-31T23:59:59.999Z. */
    public static final long MAX_EPOCH_MILLIS = 253_402_300_799_999L;
    public static final int TIMESTAMP_DIGITS = 19;
    public static final int SALT_CHARS = 4;

    private static final byte ESCAPE = '%';
    private static final byte[] UPPER_HEX = "0123456789ABCDEF".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] LOWER_HEX = "0123456789abcdef".getBytes(StandardCharsets.US_ASCII);
    private static final ThreadLocal<SaltScratch> SALT_SCRATCH = ThreadLocal.withInitial(SaltScratch::new);
    /** "00", "01", ... "99" as ASCII, two bytes each. */
    private static final byte[] DIGIT_PAIRS = new byte[200];

    static {
        for (int i = 0; i < 100; i++) {
            DIGIT_PAIRS[2 * i] = (byte) ('0' + i / 10);
            DIGIT_PAIRS[2 * i + 1] = (byte) ('0' + i % 10);
        }
    }

    public RowKey {
        Objects.requireNonNull(series, "series");
    }

    public static RowKey of(SeriesId series, long epochMillis) {
        return new RowKey(series, epochMillis);
    }

    // ---------------------------------------------------------------------------------------
    // Encoding

    /** The key's bytes in the given layout; see {@link #encode}. */
    public byte[] toBytes(KeyLayout layout) {
        return encode(layout, series, epochMillis);
    }

    /**
     * Encodes a reading's key. Allocates the result array only (and, when salted, uses a per-thread
     * digest and its 16-byte scratch buffer): the length is computed from the chars first, then the
     * bytes are written in place.
     */
    public static byte[] encode(KeyLayout layout, SeriesId series, long epochMillis) {
        requireTimestamp(epochMillis);
        byte[] key = new byte[prefixLength(layout, series, 3) + TIMESTAMP_DIGITS];
        int pos = writePrefix(layout, series, 3, key);
        writeReversedTimestamp(epochMillis, key, pos);
        return key;
    }

    /**
     * The key of {@code epochMillis} in the series whose prefix (from {@link #seriesPrefix}) is given:
     * the fast way to the rollup keys and the series key of a reading whose row key is known.
     */
    public static byte[] withTimestamp(byte[] seriesPrefix, long epochMillis) {
        requireTimestamp(epochMillis);
        byte[] key = Arrays.copyOf(seriesPrefix, seriesPrefix.length + TIMESTAMP_DIGITS);
        writeReversedTimestamp(epochMillis, key, seriesPrefix.length);
        return key;
    }

    /** Writes the {@value #TIMESTAMP_DIGITS} digits of a key's reversed timestamp at {@code out[at]} (what {@link #withTimestamp} appends). */
    public static void writeTimestamp(long epochMillis, byte[] out, int at) {
        requireTimestamp(epochMillis);
        writeReversedTimestamp(epochMillis, out, at);
    }

    /** The series prefix of an encoded row key: the key without its reversed timestamp. */
    public static byte[] seriesPrefixOf(byte[] rowKey) {
        return Arrays.copyOf(rowKey, seriesPrefixLength(rowKey));
    }

    /** The length of an encoded row key's series prefix (the key without its reversed timestamp). */
    public static int seriesPrefixLength(byte[] rowKey) {
        if (rowKey.length <= TIMESTAMP_DIGITS) {
            throw new MalformedKeyException(rowKey.length, "a row key is longer than its " + TIMESTAMP_DIGITS + "-digit timestamp");
        }
        return rowKey.length - TIMESTAMP_DIGITS;
    }

    /** Encodes a rollup bucket's key: the same layout, with the bucket's start as timestamp. */
    public static byte[] encodeRollup(KeyLayout layout, SeriesId series, long bucketStartMillis) {
        return encode(layout, series, bucketStartMillis);
    }

    // Segments written before the timestamp: 1 = up to the device, 2 = up to the metric... counted
    // after the optional salt and tenant. `depth` 2 stops after the device, 3 after the metric.
    private static int prefixLength(KeyLayout layout, SeriesId series, int depth) {
        checkTenancy(layout, series);
        int length = 0;
        if (layout.salted()) {
            length += SALT_CHARS + 1;
        }
        if (layout.multiTenant()) {
            length += escapedLength(series.tenant(), "tenant") + 1;
        }
        length += escapedLength(series.device(), "device") + 1;
        if (depth == 3) {
            length += escapedLength(series.metric(), "metric") + 1;
        }
        if (length + (depth == 3 ? TIMESTAMP_DIGITS : 0) > MAX_KEY_BYTES) {
            throw new InvalidKeyException(InvalidKeyException.Reason.KEY_TOO_LONG, "the row key would be "
                    + (length + TIMESTAMP_DIGITS) + " bytes, over the limit of " + MAX_KEY_BYTES
                    + "; shorten the device, metric or tenant");
        }
        return length;
    }

    private static int writePrefix(KeyLayout layout, SeriesId series, int depth, byte[] key) {
        int pos = layout.salted() ? SALT_CHARS + 1 : 0;
        int distributionStart = pos;
        if (layout.multiTenant()) {
            pos = writeSegment(series.tenant(), key, pos);
            key[pos++] = DELIMITER;
        }
        pos = writeSegment(series.device(), key, pos);
        int distributionEnd = pos;
        key[pos++] = DELIMITER;
        if (depth == 3) {
            pos = writeSegment(series.metric(), key, pos);
            key[pos++] = DELIMITER;
        }
        if (layout.salted()) {
            writeSalt(key, distributionStart, distributionEnd, key, 0);
            key[SALT_CHARS] = DELIMITER;
        }
        return pos;
    }

    private static void checkTenancy(KeyLayout layout, SeriesId series) {
        if (layout.multiTenant() && series.tenant() == null) {
            throw new InvalidKeyException(InvalidKeyException.Reason.INVALID_FIELD,
                    "tenant is missing: this deployment is multi-tenant, so every reading needs a tenant");
        }
        if (!layout.multiTenant() && series.tenant() != null) {
            throw new InvalidKeyException(InvalidKeyException.Reason.INVALID_FIELD, "tenant '" + series.tenant()
                    + "' given, but this deployment is single-tenant; enable multi-tenancy to store tenants");
        }
    }

    /** Whether a byte of a segment's UTF-8 form is written as itself; every other byte is written {@code %XX}. */
    public static boolean standsAsItself(int b) {
        return b >= 0x24 && b <= 0x7E && b != ESCAPE;
    }

    /** Bytes of a segment once escaped, computed from the chars without encoding them. */
    private static int escapedLength(String text, String field) {
        if (text.isEmpty()) {
            throw new InvalidKeyException(InvalidKeyException.Reason.INVALID_FIELD, field + " is empty");
        }
        int length = 0;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c < 0x80) {
                length += standsAsItself(c) ? 1 : 3;
            } else if (c < 0x800) {
                length += 6;
            } else if (Character.isHighSurrogate(c) && i + 1 < text.length() && Character.isLowSurrogate(text.charAt(i + 1))) {
                length += 12;
                i++;
            } else if (Character.isSurrogate(c)) {
                throw new InvalidKeyException(InvalidKeyException.Reason.INVALID_FIELD,
                        field + " has an unpaired surrogate at index " + i + ": it is not valid Unicode text");
            } else {
                length += 9;
            }
        }
        return length;
    }

    /** Writes the UTF-8 form of {@code text}, escaped; the text was validated by {@link #escapedLength}. */
    private static int writeSegment(String text, byte[] out, int pos) {
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c < 0x80) {
                if (standsAsItself(c)) {
                    out[pos++] = (byte) c;
                } else {
                    pos = writeEscaped(c, out, pos);
                }
            } else if (c < 0x800) {
                pos = writeEscaped(0xC0 | (c >> 6), out, pos);
                pos = writeEscaped(0x80 | (c & 0x3F), out, pos);
            } else if (Character.isHighSurrogate(c)) {
                int codePoint = Character.toCodePoint(c, text.charAt(++i));
                pos = writeEscaped(0xF0 | (codePoint >> 18), out, pos);
                pos = writeEscaped(0x80 | ((codePoint >> 12) & 0x3F), out, pos);
                pos = writeEscaped(0x80 | ((codePoint >> 6) & 0x3F), out, pos);
                pos = writeEscaped(0x80 | (codePoint & 0x3F), out, pos);
            } else {
                pos = writeEscaped(0xE0 | (c >> 12), out, pos);
                pos = writeEscaped(0x80 | ((c >> 6) & 0x3F), out, pos);
                pos = writeEscaped(0x80 | (c & 0x3F), out, pos);
            }
        }
        return pos;
    }

    private static int writeEscaped(int b, byte[] out, int pos) {
        out[pos] = ESCAPE;
        out[pos + 1] = UPPER_HEX[(b >> 4) & 0xF];
        out[pos + 2] = UPPER_HEX[b & 0xF];
        return pos + 3;
    }

    /**
     * The 19 digits of {@code Long.MAX_VALUE - epochMillis}: two long divisions split them into 3 + 8 + 8 digits, and
     * each 8 are written two at a time with int arithmetic, not one long division per digit, because a row key is
     * written about three times per reading (the profile: docs/benchmarks-history.md, "Storage engine v2, fifth
     * round").
     */
    private static void writeReversedTimestamp(long epochMillis, byte[] out, int pos) {
        long reversed = Long.MAX_VALUE - epochMillis;
        long high = reversed / 100_000_000L;
        writeEightDigits((int) (reversed - high * 100_000_000L), out, pos + 11);
        int top = (int) (high / 100_000_000L);
        writeEightDigits((int) (high - top * 100_000_000L), out, pos + 3);
        int hundreds = top / 100;
        out[pos] = (byte) ('0' + hundreds);
        writeTwoDigits(top - hundreds * 100, out, pos + 1);
    }

    /** {@code value} (0 to 99,999,999) as eight digits at {@code out[at]}. */
    private static void writeEightDigits(int value, byte[] out, int at) {
        for (int i = 6; i >= 0; i -= 2) {
            int rest = value / 100;
            writeTwoDigits(value - rest * 100, out, at + i);
            value = rest;
        }
    }

    private static void writeTwoDigits(int value, byte[] out, int at) {
        out[at] = DIGIT_PAIRS[2 * value];
        out[at + 1] = DIGIT_PAIRS[2 * value + 1];
    }

    private static void requireTimestamp(long epochMillis) {
        if (epochMillis < MIN_EPOCH_MILLIS || epochMillis > MAX_EPOCH_MILLIS) {
            throw new InvalidKeyException(InvalidKeyException.Reason.INVALID_TIMESTAMP, "timestamp " + epochMillis
                    + " ms is outside the valid range 0 (1970-01-01T00:00:00Z) to " + MAX_EPOCH_MILLIS
                    + " (9999-12-31T23:59:59.999Z)");
        }
    }

    /** MD5 of {@code source[from, to)}; its first two bytes as four lower-case hex chars at {@code out[at]}. */
    private static void writeSalt(byte[] source, int from, int to, byte[] out, int at) {
        SaltScratch scratch = SALT_SCRATCH.get();
        scratch.md5.update(source, from, to - from);
        try {
            scratch.md5.digest(scratch.digest, 0, scratch.digest.length);
        } catch (DigestException e) {
            throw new IllegalStateException("MD5 digest buffer too small", e);
        }
        out[at] = LOWER_HEX[(scratch.digest[0] >> 4) & 0xF];
        out[at + 1] = LOWER_HEX[scratch.digest[0] & 0xF];
        out[at + 2] = LOWER_HEX[(scratch.digest[1] >> 4) & 0xF];
        out[at + 3] = LOWER_HEX[scratch.digest[1] & 0xF];
    }

    /** The per-thread scratch of salting: one digest and its output buffer. */
    private static final class SaltScratch {
        final MessageDigest md5;
        final byte[] digest = new byte[16];

        SaltScratch() {
            try {
                md5 = MessageDigest.getInstance("MD5");
            } catch (NoSuchAlgorithmException e) {
                throw new IllegalStateException("every Java runtime has MD5", e);
            }
        }
    }

    // ---------------------------------------------------------------------------------------
    // Decoding

    /** Decodes a key of the given layout; fails with the offset of the first byte that is wrong. */
    public static RowKey fromBytes(byte[] key, KeyLayout layout) {
        Objects.requireNonNull(key, "key");
        if (key.length == 0) {
            throw new MalformedKeyException(0, "the key is empty");
        }
        if (key.length > MAX_KEY_BYTES) {
            throw new MalformedKeyException(MAX_KEY_BYTES, "the key is " + key.length + " bytes, over the limit of " + MAX_KEY_BYTES);
        }
        int pos = 0;
        if (layout.salted()) {
            pos = checkSaltShape(key);
        }
        String tenant = null;
        int distributionStart = pos;
        if (layout.multiTenant()) {
            int end = segmentEnd(key, pos, "tenant");
            tenant = decodeSegment(key, pos, end);
            pos = end + 1;
        }
        int deviceEnd = segmentEnd(key, pos, "device");
        String device = decodeSegment(key, pos, deviceEnd);
        pos = deviceEnd + 1;
        int metricEnd = segmentEnd(key, pos, "metric");
        String metric = decodeSegment(key, pos, metricEnd);
        pos = metricEnd + 1;
        long epochMillis = decodeReversedTimestamp(key, pos);
        if (layout.salted()) {
            checkSalt(key, distributionStart, deviceEnd);
        }
        return new RowKey(new SeriesId(tenant, device, metric), epochMillis);
    }

    /**
     * The timestamp of a raw-row or rollup key, read from its last {@value #TIMESTAMP_DIGITS} bytes
     * without decoding the rest: what time-segmented stores need for every key they touch.
     */
    public static long timestampOf(byte[] key) {
        if (key.length < TIMESTAMP_DIGITS) {
            throw new MalformedKeyException(key.length, "the key is " + key.length + " bytes; a row key ends with the "
                    + TIMESTAMP_DIGITS + "-digit reversed timestamp");
        }
        return decodeReversedTimestamp(key, key.length - TIMESTAMP_DIGITS);
    }

    private static int checkSaltShape(byte[] key) {
        for (int i = 0; i < SALT_CHARS; i++) {
            if (i >= key.length || Arrays.binarySearch(LOWER_HEX, key[i]) < 0) {
                throw new MalformedKeyException(Math.min(i, key.length), "expected " + SALT_CHARS
                        + " lower-case hex characters of salt at the start of a salted key");
            }
        }
        if (key.length <= SALT_CHARS || key[SALT_CHARS] != DELIMITER) {
            throw new MalformedKeyException(SALT_CHARS, "expected '#' after the salt");
        }
        return SALT_CHARS + 1;
    }

    private static void checkSalt(byte[] key, int distributionStart, int distributionEnd) {
        byte[] expected = new byte[SALT_CHARS];
        writeSalt(key, distributionStart, distributionEnd, expected, 0);
        if (!Arrays.equals(key, 0, SALT_CHARS, expected, 0, SALT_CHARS)) {
            throw new MalformedKeyException(0, "salt '" + new String(key, 0, SALT_CHARS, StandardCharsets.US_ASCII)
                    + "' does not match the key's device (expected '" + new String(expected, StandardCharsets.US_ASCII) + "')");
        }
    }

    /** Validates a segment starting at {@code start}; returns the offset of its closing delimiter. */
    private static int segmentEnd(byte[] key, int start, String part) {
        int pos = start;
        while (pos < key.length) {
            int b = key[pos] & 0xFF;
            if (b == DELIMITER) {
                if (pos == start) {
                    throw new MalformedKeyException(pos, "the " + part + " segment is empty");
                }
                return pos;
            }
            if (b == ESCAPE) {
                int decoded = escapedByte(key, pos);
                if (standsAsItself(decoded)) {
                    throw new MalformedKeyException(pos, String.format("'%%%02X' escapes '%c', which must stand as "
                            + "itself: escaping is canonical", decoded, (char) decoded));
                }
                pos += 3;
            } else if (standsAsItself(b)) {
                pos++;
            } else {
                throw new MalformedKeyException(pos, String.format("byte 0x%02X may not appear unescaped in the %s "
                        + "segment (allowed: 0x24-0x7E except '%%')", b, part));
            }
        }
        throw new MalformedKeyException(key.length, "the key ends inside the " + part + " segment; expected '#' and more segments");
    }

    private static int escapedByte(byte[] key, int pos) {
        if (pos + 2 >= key.length) {
            throw new MalformedKeyException(pos, "'%' must be followed by two hex digits, but the key ends");
        }
        int high = hexValue(key[pos + 1]);
        int low = hexValue(key[pos + 2]);
        if (high < 0 || low < 0) {
            throw new MalformedKeyException(high < 0 ? pos + 1 : pos + 2,
                    "'%' must be followed by two upper-case hex digits (0-9, A-F)");
        }
        return (high << 4) | low;
    }

    private static int hexValue(byte b) {
        if (b >= '0' && b <= '9') {
            return b - '0';
        }
        if (b >= 'A' && b <= 'F') {
            return b - 'A' + 10;
        }
        return -1;
    }

    private static String decodeSegment(byte[] key, int start, int end) {
        int escapes = 0;
        for (int i = start; i < end; i++) {
            if (key[i] == ESCAPE) {
                escapes++;
            }
        }
        if (escapes == 0) {
            // Every byte is printable ASCII: the fast path, one allocation.
            return new String(key, start, end - start, StandardCharsets.ISO_8859_1);
        }
        byte[] utf8 = new byte[end - start - 2 * escapes];
        int n = 0;
        for (int i = start; i < end; i++) {
            if (key[i] == ESCAPE) {
                utf8[n++] = (byte) escapedByte(key, i);
                i += 2;
            } else {
                utf8[n++] = key[i];
            }
        }
        try {
            return StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(utf8))
                    .toString();
        } catch (CharacterCodingException e) {
            throw new MalformedKeyException(start, "the segment's escaped bytes are not valid UTF-8");
        }
    }

    private static long decodeReversedTimestamp(byte[] key, int start) {
        int digits = key.length - start;
        if (digits < TIMESTAMP_DIGITS) {
            for (int i = start; i < key.length; i++) {
                requireDigit(key, i);
            }
            throw new MalformedKeyException(key.length, "the reversed timestamp has " + digits + " digits; expected "
                    + TIMESTAMP_DIGITS);
        }
        long reversed = 0;
        for (int i = start; i < start + TIMESTAMP_DIGITS; i++) {
            int digit = requireDigit(key, i);
            if (reversed > (Long.MAX_VALUE - digit) / 10) {
                throw new MalformedKeyException(start, "the reversed timestamp is larger than 9223372036854775807");
            }
            reversed = reversed * 10 + digit;
        }
        if (digits > TIMESTAMP_DIGITS) {
            throw new MalformedKeyException(start + TIMESTAMP_DIGITS, "unexpected bytes after the "
                    + TIMESTAMP_DIGITS + "-digit reversed timestamp (a segment too many?)");
        }
        long epochMillis = Long.MAX_VALUE - reversed;
        if (epochMillis > MAX_EPOCH_MILLIS) {
            throw new MalformedKeyException(start, "the reversed timestamp stands for " + epochMillis
                    + " ms, after 9999-12-31T23:59:59.999Z");
        }
        return epochMillis;
    }

    private static int requireDigit(byte[] key, int pos) {
        int b = key[pos];
        if (b < '0' || b > '9') {
            throw new MalformedKeyException(pos, String.format("expected a digit of the reversed timestamp, found 0x%02X", b & 0xFF));
        }
        return b - '0';
    }

    // ---------------------------------------------------------------------------------------
    // Scan ranges

    /** Every row of one series, newest first in forward order. */
    public static KeyRange seriesRange(KeyLayout layout, SeriesId series) {
        return prefixRange(seriesPrefix(layout, series));
    }

    /**
     * The rows of a series with {@code fromMillis <= timestamp < toMillis}. Bounds outside the valid
     * timestamps are clamped to them; {@code from >= to} gives an empty range.
     */
    public static KeyRange seriesRange(KeyLayout layout, SeriesId series, long fromMillis, long toMillis) {
        long from = Math.max(fromMillis, MIN_EPOCH_MILLIS);
        long to = Math.min(toMillis, MAX_EPOCH_MILLIS + 1);
        byte[] prefix = seriesPrefix(layout, series);
        if (from >= to) {
            return new KeyRange(prefix, prefix);
        }
        // Reversed timestamps: the newest included instant (to - 1) has the smallest key.
        byte[] lowest = Arrays.copyOf(prefix, prefix.length + TIMESTAMP_DIGITS);
        writeReversedTimestamp(to - 1, lowest, prefix.length);
        // The oldest included key, followed by 0x00: every key of the series has the same length,
        // so nothing of the series lies between that key and this bound.
        byte[] afterHighest = Arrays.copyOf(prefix, prefix.length + TIMESTAMP_DIGITS + 1);
        writeReversedTimestamp(from, afterHighest, prefix.length);
        return new KeyRange(lowest, afterHighest);
    }

    /** Every row of one device, all metrics. */
    public static KeyRange deviceRange(KeyLayout layout, String tenant, String device) {
        SeriesId anyMetric = new SeriesId(tenant, device, "-");
        byte[] prefix = new byte[prefixLength(layout, anyMetric, 2)];
        writePrefix(layout, anyMetric, 2, prefix);
        return prefixRange(prefix);
    }

    /** Every row of one tenant. Not available with salted keys: salting spreads a tenant over the whole key space. */
    public static KeyRange tenantRange(KeyLayout layout, String tenant) {
        if (!layout.multiTenant()) {
            throw new IllegalArgumentException("tenant ranges need a multi-tenant layout");
        }
        if (layout.salted()) {
            throw new UnsupportedOperationException("salted keys spread a tenant over all " + (1 << 16)
                    + " salt prefixes; a tenant is not one range (the price of salting)");
        }
        byte[] prefix = new byte[escapedLength(tenant, "tenant") + 1];
        int end = writeSegment(tenant, prefix, 0);
        prefix[end] = DELIMITER;
        return prefixRange(prefix);
    }

    /** The bytes that start every key of a series: everything up to the reversed timestamp. */
    public static byte[] seriesPrefix(KeyLayout layout, SeriesId series) {
        byte[] prefix = new byte[prefixLength(layout, series, 3)];
        writePrefix(layout, series, 3, prefix);
        return prefix;
    }

    private static KeyRange prefixRange(byte[] prefix) {
        // Every prefix ends with the delimiter 0x23; 0x24 is the smallest byte above it.
        byte[] end = prefix.clone();
        end[end.length - 1] = DELIMITER + 1;
        return new KeyRange(prefix, end);
    }
}
