package dev.tspipe.app.logs;

import ch.qos.logback.classic.encoder.JsonEncoder;
import ch.qos.logback.classic.spi.ILoggingEvent;

import java.nio.charset.StandardCharsets;

/**
 * logback's JSON encoder, one object per line, with the controls it leaves raw escaped as well: it writes C0 controls as
 * {@code \}{@code u00NN} but DEL, the C1 controls (U+0080..U+009F; U+009B starts a terminal escape sequence like ESC [)
 * and U+2028/U+2029 as they are. Outside strings JSON has none of these characters, so each is escaped where it stands.
 */
public final class EscapedJsonEncoder extends JsonEncoder {

    @Override
    public byte[] encode(ILoggingEvent event) {
        byte[] json = super.encode(event);
        String text = new String(json, StandardCharsets.UTF_8);
        StringBuilder out = null;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            boolean raw = c == 0x7f || (c >= 0x80 && c <= 0x9f) || c == '\u2028' || c == '\u2029';
            if (raw && out == null) {
                out = new StringBuilder(text.length() + 16).append(text, 0, i);
            }
            if (raw) {
                out.append(String.format("\\u%04x", (int) c));
            } else if (out != null) {
                out.append(c);
            }
        }
        return out == null ? json : out.toString().getBytes(StandardCharsets.UTF_8);
    }
}
