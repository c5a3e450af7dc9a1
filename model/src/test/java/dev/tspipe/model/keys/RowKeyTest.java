package dev.tspipe.model.keys;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class RowKeyTest {

    private static final KeyLayout SINGLE = KeyLayout.DEFAULT;

    private static String text(byte[] key) {
        return new String(key, StandardCharsets.US_ASCII);
    }

    @Test
    void theWorkedExamplesOfTheFormatDocumentation() {
        assertThat(text(RowKey.encode(SINGLE, SeriesId.of("sensor-1", "temp"), 1_700_000_000_000L)))
                .isEqualTo("sensor-1#temp#9223370336854775807");
        assertThat(text(RowKey.encode(SINGLE, SeriesId.of("sensor-1", "temp"), 0)))
                .isEqualTo("sensor-1#temp#9223372036854775807");
        assertThat(text(RowKey.encode(SINGLE, SeriesId.of("sensor-1", "temp"), RowKey.MAX_EPOCH_MILLIS)))
                .isEqualTo("sensor-1#temp#9223118634553975808");
        assertThat(text(RowKey.encode(SINGLE, SeriesId.of("Café", "a b"), 0)))
                .isEqualTo("Caf%C3%A9#a%20b#9223372036854775807");
        assertThat(text(RowKey.encode(SINGLE, SeriesId.of("x#y", "100%"), 0)))
                .isEqualTo("x%23y#100%25#9223372036854775807");
        assertThat(text(RowKey.encode(KeyLayout.MULTI_TENANT, SeriesId.of("acme", "d", "m"), 0)))
                .isEqualTo("acme#d#m#9223372036854775807");
    }

    @Test
    void aSaltIsTheFirstFourHexCharsOfMd5OfTheDistributionSegments() {
        // md5("sensor-1") = "5b1c...": computed independently by ReferenceKeys.
        byte[] key = RowKey.encode(SINGLE.withSalt(), SeriesId.of("sensor-1", "temp"), 0);

        assertThat(key).isEqualTo(ReferenceKeys.key(SINGLE.withSalt(), SeriesId.of("sensor-1", "temp"), 0));
        assertThat(text(key)).matches("[0-9a-f]{4}#sensor-1#temp#9223372036854775807");
        assertThat(RowKey.fromBytes(key, SINGLE.withSalt())).isEqualTo(RowKey.of(SeriesId.of("sensor-1", "temp"), 0));
    }

    @Test
    void aRollupKeyIsARowKeyOfTheBucketStart() {
        SeriesId series = SeriesId.of("d", "m");

        assertThat(RowKey.encodeRollup(SINGLE, series, 1_700_000_040_000L))
                .isEqualTo(RowKey.encode(SINGLE, series, 1_700_000_040_000L));
    }

    @Test
    void timestampsOutsideTheYears1970To9999AreRefusedNotWrapped() {
        SeriesId series = SeriesId.of("d", "m");

        for (long bad : new long[] {-1, RowKey.MAX_EPOCH_MILLIS + 1, Long.MIN_VALUE, Long.MAX_VALUE}) {
            assertThatThrownBy(() -> RowKey.encode(SINGLE, series, bad))
                    .isInstanceOfSatisfying(InvalidKeyException.class,
                            e -> assertThat(e.reason()).isEqualTo(InvalidKeyException.Reason.INVALID_TIMESTAMP))
                    .hasMessageContaining(Long.toString(bad))
                    .hasMessageContaining("9999-12-31T23:59:59.999Z");
        }
    }

    @Test
    void emptyPartsAndTenancyMismatchesAreInvalidFields() {
        assertThat(reasonOf(() -> RowKey.encode(SINGLE, SeriesId.of("", "m"), 0))).isEqualTo("invalid-field");
        assertThat(reasonOf(() -> RowKey.encode(SINGLE, SeriesId.of("d", ""), 0))).isEqualTo("invalid-field");
        assertThat(reasonOf(() -> RowKey.encode(SINGLE, SeriesId.of("t", "d", "m"), 0))).isEqualTo("invalid-field");
        assertThat(reasonOf(() -> RowKey.encode(KeyLayout.MULTI_TENANT, SeriesId.of("d", "m"), 0))).isEqualTo("invalid-field");
        assertThat(reasonOf(() -> RowKey.encode(KeyLayout.MULTI_TENANT, SeriesId.of("", "d", "m"), 0))).isEqualTo("invalid-field");
        assertThat(reasonOf(() -> RowKey.encode(SINGLE, SeriesId.of("bad\uD800", "m"), 0))).isEqualTo("invalid-field");
        assertThatThrownBy(() -> RowKey.encode(SINGLE, SeriesId.of("\uDC00x", "m"), 0)).hasMessageContaining("unpaired surrogate at index 0");
    }

    @Test
    void aKeyOf1024BytesIsAcceptedAndOneMoreIsRefused() {
        // device + '#' + metric "m" + '#' + 19 digits = device + 22 bytes
        String device1002 = "d".repeat(1024 - 22);
        assertThat(RowKey.encode(SINGLE, SeriesId.of(device1002, "m"), 0)).hasSize(1024);

        assertThatThrownBy(() -> RowKey.encode(SINGLE, SeriesId.of(device1002 + "d", "m"), 0))
                .isInstanceOfSatisfying(InvalidKeyException.class,
                        e -> assertThat(e.reason().code()).isEqualTo("key-too-long"))
                .hasMessageContaining("1025 bytes");
        // Escaping counts: 342 spaces are 1026 escaped bytes.
        assertThat(reasonOf(() -> RowKey.encode(SINGLE, SeriesId.of(" ".repeat(342), "m"), 0))).isEqualTo("key-too-long");
    }

    @Test
    void unicodeBeyondTheBasicPlaneRoundTrips() {
        SeriesId series = SeriesId.of("温度计-😀", "température");
        byte[] key = RowKey.encode(SINGLE, series, 42);

        assertThat(key).isEqualTo(ReferenceKeys.key(SINGLE, series, 42));
        assertThat(RowKey.fromBytes(key, SINGLE)).isEqualTo(RowKey.of(series, 42));
    }

    @Test
    void seriesPrefixIsTheKeyWithoutItsTimestamp() {
        byte[] key = RowKey.encode(SINGLE, SeriesId.of("d", "m"), 5);

        assertThat(text(RowKey.seriesPrefix(SINGLE, SeriesId.of("d", "m")))).isEqualTo("d#m#");
        assertThat(text(key)).startsWith("d#m#");
    }

    private static String reasonOf(Runnable action) {
        try {
            action.run();
        } catch (InvalidKeyException e) {
            return e.reason().code();
        }
        throw new AssertionError("expected an InvalidKeyException");
    }
}
