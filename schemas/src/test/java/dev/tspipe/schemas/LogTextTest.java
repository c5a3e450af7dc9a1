package dev.tspipe.schemas;

import org.junit.jupiter.api.Test;

import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;

class LogTextTest {

    @Test
    void escapesEachKindOfControlCharacter() {
        assertThat(LogText.escape("device-\u001b[31m-red")).isEqualTo("device-\\x1b[31m-red");
        assertThat(LogText.escape("a\r\nFAKE LINE")).isEqualTo("a\\r\\nFAKE LINE");
        assertThat(LogText.escape("tab\there")).isEqualTo("tab\\there");
        assertThat(LogText.escape("nul\u0000del\u007f")).isEqualTo("nul\\x00del\\x7f");
        assertThat(LogText.escape("csi\u009b2J nel\u0085")).isEqualTo("csi\\u009b2J nel\\u0085");
        assertThat(LogText.escape("ls\u2028ps\u2029")).isEqualTo("ls\\u2028ps\\u2029");
        assertThat(LogText.escape("back\\slash")).isEqualTo("back\\\\slash");
        assertThat(LogText.escape(null)).isEqualTo("null");
    }

    @Test
    void escapingControlsOnlyKeepsBackslashesSoEscapedTextReadsTheSame() {
        String escaped = LogText.escape("a\\b\u001b\r\n");
        assertThat(LogText.escapeControls(escaped)).isSameAs(escaped);
        assertThat(LogText.escapeControls("a\\b\u001b\r\n")).isEqualTo("a\\b\\x1b\\r\\n");
    }

    @Test
    void keepsPrintableTextAsItIs() {
        for (String plain : new String[] {"", "device-00001", "pump#7/temp.c", "Grüße 温度 😀", "a b\u00a0c", "\u00ff"}) {
            assertThat(LogText.escape(plain)).isSameAs(plain);
            assertThat(LogText.isPlain(plain)).isTrue();
        }
    }

    /** Random strings rich in controls: the escaped text has none, and unescaping it gives the original back. */
    @Test
    void escapedTextHasNoControlsAndReadsBackToTheOriginal() {
        long seed = Long.getLong("tspipe.seed", System.nanoTime());
        System.out.println("LogTextTest seed: " + seed);
        SplittableRandom random = new SplittableRandom(seed);
        char[] pool = {'a', 'Z', '0', ' ', '\\', 'x', 'u', '\r', '\n', '\t', '\u001b', '\u0000', '\u007f', '\u0085', '\u009b',
                '\u2028', 'é', '\ud83d', '\ude00'};
        for (int round = 0; round < 20_000; round++) {
            StringBuilder text = new StringBuilder();
            int length = random.nextInt(24);
            for (int i = 0; i < length; i++) {
                text.append(random.nextInt(4) == 0 ? (char) random.nextInt(0x10000) : pool[random.nextInt(pool.length)]);
            }
            String original = text.toString();
            String escaped = LogText.escape(original);
            assertThat(escaped.chars().noneMatch(LogTextTest::isControl)).as("seed %d: %s", seed, escaped).isTrue();
            assertThat(unescape(escaped)).as("seed %d", seed).isEqualTo(original);
            assertThat(LogText.isPlain(escaped)).as("seed %d: only backslashes are escaped twice", seed)
                    .isEqualTo(escaped.indexOf('\\') < 0);
        }
    }

    private static boolean isControl(int c) {
        return c < 0x20 || (c >= 0x7f && c <= 0x9f) || c == 0x2028 || c == 0x2029;
    }

    /** An independent reader of the escapes, as a person reading the log would apply them. */
    private static String unescape(String escaped) {
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < escaped.length(); i++) {
            char c = escaped.charAt(i);
            if (c != '\\') {
                out.append(c);
                continue;
            }
            char kind = escaped.charAt(++i);
            switch (kind) {
                case '\\' -> out.append('\\');
                case 'r' -> out.append('\r');
                case 'n' -> out.append('\n');
                case 't' -> out.append('\t');
                case 'x' -> {
                    out.append((char) Integer.parseInt(escaped.substring(i + 1, i + 3), 16));
                    i += 2;
                }
                case 'u' -> {
                    out.append((char) Integer.parseInt(escaped.substring(i + 1, i + 5), 16));
                    i += 4;
                }
                default -> throw new AssertionError("unknown escape \\" + kind + " in " + escaped);
            }
        }
        return out.toString();
    }
}
