package dev.tspipe.model.keys;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/** A corpus of malformed keys, each rejected with the offset of the first wrong byte. */
class MalformedKeyTest {

    private static final String TS = "9223372036854775807";

    private record Case(String why, KeyLayout layout, byte[] key, int offset, String message) {
    }

    private static Case single(String why, String key, int offset, String message) {
        return new Case(why, KeyLayout.DEFAULT, key.getBytes(StandardCharsets.ISO_8859_1), offset, message);
    }

    private static final List<Case> CORPUS = List.of(
            single("empty", "", 0, "empty"),
            single("one segment", "dev", 3, "ends inside the device"),
            single("no timestamp", "dev#temp", 8, "ends inside the metric"),
            single("empty device", "#temp#" + TS, 0, "device segment is empty"),
            single("empty metric", "dev##" + TS, 4, "metric segment is empty"),
            single("unescaped space", "de v#temp#" + TS, 2, "byte 0x20"),
            single("unescaped non-ASCII byte", "d\u00E9v#temp#" + TS, 1, "byte 0xE9"),
            single("unescaped control byte", "dev#te\u0001mp#" + TS, 6, "byte 0x01"),
            single("escape cut by the delimiter", "dev%2#temp#" + TS, 5, "two upper-case hex digits"),
            single("escape at the very end", "dev#temp#" + TS + "%", 28, "after the 19-digit"),
            single("escape not hex", "dev%zz#temp#" + TS, 4, "hex digits"),
            single("lower-case escape", "dev%c3%a9#temp#" + TS, 4, "upper-case"),
            single("needless escape of 'A'", "dev%41#temp#" + TS, 3, "canonical"),
            single("escape truncated at end of key", "dev%4", 3, "the key ends"),
            single("escaped bytes not UTF-8", "dev%C3#temp#" + TS, 0, "not valid UTF-8"),
            single("overlong UTF-8", "dev%C0%AF#temp#" + TS, 0, "not valid UTF-8"),
            single("short timestamp", "dev#temp#922337203685477580", 27, "has 18 digits"),
            single("letter in timestamp", "dev#temp#92233720368547758x7", 26, "expected a digit"),
            single("segment too many", "dev#temp#" + TS + "#x", 28, "after the 19-digit"),
            single("timestamp above Long.MAX_VALUE", "dev#temp#9999999999999999999", 9, "larger than"),
            single("timestamp after year 9999", "dev#temp#0000000000000000000", 9, "after 9999"),
            single("too long", "d".repeat(1010) + "#temp#" + TS, 1024, "over the limit"),
            new Case("single-tenant key read as multi-tenant", KeyLayout.MULTI_TENANT,
                    ("dev#temp#" + TS).getBytes(StandardCharsets.US_ASCII), 28, "ends inside the metric"),
            new Case("upper-case salt", KeyLayout.DEFAULT.withSalt(), ("ABCD#dev#temp#" + TS).getBytes(StandardCharsets.US_ASCII), 0, "lower-case hex"),
            new Case("short salt", KeyLayout.DEFAULT.withSalt(), ("abc#dev#temp#" + TS).getBytes(StandardCharsets.US_ASCII), 3, "lower-case hex"),
            new Case("no delimiter after salt", KeyLayout.DEFAULT.withSalt(), ("abcdedev#temp#" + TS).getBytes(StandardCharsets.US_ASCII), 4, "'#' after the salt"),
            new Case("salt of another device", KeyLayout.DEFAULT.withSalt(), ("0000#dev#temp#" + TS).getBytes(StandardCharsets.US_ASCII), 0, "does not match"));

    @Test
    void everyMalformedKeyIsRejectedWithItsOffset() {
        for (Case c : CORPUS) {
            MalformedKeyException e = catchThrowableOfType(MalformedKeyException.class, () -> RowKey.fromBytes(c.key(), c.layout()));
            assertThat(e).as(c.why()).isNotNull();
            assertThat(e.offset()).as("%s: %s", c.why(), e.getMessage()).isEqualTo(c.offset());
            assertThat(e.getMessage()).as(c.why()).contains("offset " + c.offset()).contains(c.message());
        }
    }

    @Test
    void theSaltOfDevIsNot0000SoTheLastCaseReallyTestsTheSaltCheck() {
        byte[] key = RowKey.encode(KeyLayout.DEFAULT.withSalt(), SeriesId.of("dev", "temp"), 0);

        assertThat(new String(key, 0, 4, StandardCharsets.US_ASCII)).isNotEqualTo("0000");
    }
}
