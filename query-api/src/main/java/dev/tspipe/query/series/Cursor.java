package dev.tspipe.query.series;

import dev.tspipe.query.error.ApiException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;

/**
 * An opaque page token that resumes a query right after the last row returned.
 *
 * <table>
 *   <caption>Bytes (base64url without padding: 19 characters)</caption>
 *   <tr><th>offset</th><th>length</th><th>content</th></tr>
 *   <tr><td>0</td><td>1</td><td>version, {@value #VERSION}</td></tr>
 *   <tr><td>1</td><td>1</td><td>order: 0 = desc, 1 = asc</td></tr>
 *   <tr><td>2</td><td>8</td><td>timestamp of the last row returned (epoch ms, big-endian)</td></tr>
 *   <tr><td>10</td><td>4</td><td>check: first 4 bytes of SHA-256 over the query hash (kind, tenant, device,
 *       metric, from, to), the order and the timestamp</td></tr>
 * </table>
 *
 * The check ties a cursor to its query and detects alteration: used with another series, step,
 * window or order, or with a changed byte, it is refused.
 * Rows are unique by timestamp within a series, so the last timestamp is a complete position.
 *
 * @param order         the order of the pages
 * @param lastTimestamp the timestamp of the last row of the previous page
 * @param queryHash     identifies the query the cursor belongs to
 */
public record Cursor(Order order, long lastTimestamp, int queryHash) {

    static final byte VERSION = 1;
    private static final int LENGTH = 14;

    public String encode() {
        ByteBuffer bytes = ByteBuffer.allocate(LENGTH).put(VERSION).put((byte) order.ordinal())
                .putLong(lastTimestamp).putInt(check(queryHash, order, lastTimestamp));
        return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes.array());
    }

    /** Decodes a cursor and checks it belongs to the query described by {@code order} and {@code queryHash}. */
    public static Cursor decode(String token, Order order, int queryHash) {
        byte[] bytes;
        try {
            bytes = Base64.getUrlDecoder().decode(token);
        } catch (IllegalArgumentException e) {
            throw notACursor();
        }
        if (bytes.length != LENGTH || bytes[0] != VERSION || (bytes[1] != 0 && bytes[1] != 1)) {
            throw notACursor();
        }
        ByteBuffer buffer = ByteBuffer.wrap(bytes, 2, LENGTH - 2);
        Cursor cursor = new Cursor(Order.values()[bytes[1]], buffer.getLong(), queryHash);
        int check = buffer.getInt();
        if (cursor.order != order) {
            throw ApiException.badParameter("cursor", "the cursor was issued for order=" + cursor.order.label()
                    + "; repeat the query with that order, or drop the cursor to start again");
        }
        if (check != check(queryHash, cursor.order, cursor.lastTimestamp) || cursor.lastTimestamp < 0) {
            throw ApiException.badParameter("cursor", "the cursor belongs to another query (series, step, from or to differ) "
                    + "or was altered; repeat the query that returned it, or drop the cursor to start again");
        }
        return cursor;
    }

    /** The hash of a query's identity: what a cursor must be used with. */
    public static int queryHash(String kind, String tenant, String device, String metric, TimeWindow window) {
        String identity = String.join("\u0000", kind, String.valueOf(tenant), device, metric,
                Long.toString(window.from()), Long.toString(window.to()));
        return sha256Prefix(identity.getBytes(StandardCharsets.UTF_8));
    }

    private static int check(int queryHash, Order order, long lastTimestamp) {
        return sha256Prefix(ByteBuffer.allocate(13).putInt(queryHash).put((byte) order.ordinal()).putLong(lastTimestamp).array());
    }

    private static int sha256Prefix(byte[] bytes) {
        try {
            return ByteBuffer.wrap(MessageDigest.getInstance("SHA-256").digest(bytes)).getInt();
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java runtime has SHA-256", e);
        }
    }

    private static ApiException notACursor() {
        return ApiException.badParameter("cursor", "not a cursor of this API; pass the nextCursor of the previous page unchanged");
    }
}
