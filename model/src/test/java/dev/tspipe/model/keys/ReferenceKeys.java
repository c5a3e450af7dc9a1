package dev.tspipe.model.keys;

import java.io.ByteArrayOutputStream;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * A deliberately plain, slow second implementation of the row-key format of docs/design.md §4, written
 * from the text of the design and not from RowKey's code; tests compare the two.
 */
final class ReferenceKeys {

    private ReferenceKeys() {
    }

    static byte[] escape(String segment) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte b : segment.getBytes(StandardCharsets.UTF_8)) {
            int u = b & 0xFF;
            if (u >= 0x24 && u <= 0x7E && u != '%') {
                out.write(u);
            } else {
                out.writeBytes(String.format("%%%02X", u).getBytes(StandardCharsets.US_ASCII));
            }
        }
        return out.toByteArray();
    }

    static byte[] key(KeyLayout layout, SeriesId series, long epochMillis) {
        ByteArrayOutputStream distribution = new ByteArrayOutputStream();
        if (layout.multiTenant()) {
            distribution.writeBytes(escape(series.tenant()));
            distribution.write('#');
        }
        distribution.writeBytes(escape(series.device()));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        if (layout.salted()) {
            out.writeBytes(HexFormat.of().formatHex(md5(distribution.toByteArray())).substring(0, 4)
                    .getBytes(StandardCharsets.US_ASCII));
            out.write('#');
        }
        out.writeBytes(distribution.toByteArray());
        out.write('#');
        out.writeBytes(escape(series.metric()));
        out.write('#');
        String reversed = BigInteger.valueOf(Long.MAX_VALUE).subtract(BigInteger.valueOf(epochMillis)).toString();
        out.writeBytes(("0".repeat(19 - reversed.length()) + reversed).getBytes(StandardCharsets.US_ASCII));
        return out.toByteArray();
    }

    private static byte[] md5(byte[] input) {
        try {
            return MessageDigest.getInstance("MD5").digest(input);
        } catch (NoSuchAlgorithmException e) {
            throw new AssertionError(e);
        }
    }
}
