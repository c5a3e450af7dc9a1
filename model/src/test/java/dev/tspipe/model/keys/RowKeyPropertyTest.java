package dev.tspipe.model.keys;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Seeded randomized properties of the row-key codec. A failure prints its seed; rerun it with
 * {@code -Dtspipe.seed=<seed>}.
 */
class RowKeyPropertyTest {

    private static final int RUNS = 2_000;
    private static final List<KeyLayout> LAYOUTS = List.of(KeyLayout.DEFAULT, KeyLayout.DEFAULT.withSalt(),
            KeyLayout.MULTI_TENANT, KeyLayout.MULTI_TENANT.withSalt());
    /** Characters that stress the format: the delimiter, the escape, bytes around them, multi-byte UTF-8. */
    private static final String[] TRICKY = {"#", "%", "$", "\"", " ", "!", "\u0000", "\u007F", "~", "-", "0", "9",
            "a", "Z", "é", "中", "😀", "%23", "#0"};

    @FunctionalInterface
    private interface Property {
        void check(Random random, KeyLayout layout);
    }

    private static void forAll(String name, Property property) {
        long seed = Long.getLong("tspipe.seed", System.nanoTime());
        Random random = new Random(seed);
        for (int run = 0; run < RUNS; run++) {
            KeyLayout layout = LAYOUTS.get(random.nextInt(LAYOUTS.size()));
            try {
                property.check(random, layout);
            } catch (AssertionError | RuntimeException e) {
                throw new AssertionError(name + " failed at run " + run + " with layout " + layout
                        + "; reproduce with -Dtspipe.seed=" + seed + ": " + e.getMessage(), e);
            }
        }
    }

    private static String randomText(Random random) {
        StringBuilder text = new StringBuilder();
        int length = 1 + random.nextInt(random.nextInt(10) == 0 ? 30 : 8);
        while (text.length() < length) {
            if (random.nextBoolean()) {
                text.append(TRICKY[random.nextInt(TRICKY.length)]);
            } else {
                text.append((char) (0x20 + random.nextInt(0x5F)));
            }
        }
        return text.toString();
    }

    private static SeriesId randomSeries(Random random, KeyLayout layout) {
        return new SeriesId(layout.multiTenant() ? randomText(random) : null, randomText(random), randomText(random));
    }

    private static long randomTime(Random random) {
        return switch (random.nextInt(5)) {
            case 0 -> 0L;
            case 1 -> RowKey.MAX_EPOCH_MILLIS;
            case 2 -> 1_700_000_000_000L + random.nextInt(1_000);
            default -> (long) (random.nextDouble() * RowKey.MAX_EPOCH_MILLIS);
        };
    }

    /** A series close to the given one: same tenant or device with a changed or extended name. */
    private static SeriesId neighbour(Random random, SeriesId series) {
        String tenant = series.tenant();
        String device = series.device();
        String metric = series.metric();
        switch (random.nextInt(4)) {
            case 0 -> device = device + TRICKY[random.nextInt(TRICKY.length)];
            case 1 -> metric = metric + TRICKY[random.nextInt(TRICKY.length)];
            case 2 -> device = withoutLastCodePoint(device) + "0";
            default -> {
                if (tenant != null) {
                    tenant = tenant + "#";
                } else {
                    metric = "x" + metric;
                }
            }
        }
        return new SeriesId(tenant, device, metric);
    }

    private static String withoutLastCodePoint(String text) {
        return text.substring(0, text.offsetByCodePoints(text.length(), -1));
    }

    @Test
    void theReversedTimestampMatchesTheReferenceAtEveryDigitBoundary() {
        // Where a digit of Long.MAX_VALUE - t carries or borrows: t such that the reversed value ends in k nines or k
        // zeros, for every k, and their neighbours; plus seeded random times over the whole range.
        List<Long> times = new ArrayList<>(List.of(RowKey.MIN_EPOCH_MILLIS, RowKey.MAX_EPOCH_MILLIS));
        long power = 1;
        for (int k = 1; k <= 18; k++) {
            power *= 10;
            long roundReversed = (Long.MAX_VALUE - RowKey.MAX_EPOCH_MILLIS) / power * power + power;
            for (long delta = -2; delta <= 2; delta++) {
                times.add(Long.MAX_VALUE - roundReversed + delta);
            }
        }
        long seed = Long.getLong("tspipe.seed", System.nanoTime());
        Random random = new Random(seed);
        for (int i = 0; i < 10_000; i++) {
            times.add((long) (random.nextDouble() * RowKey.MAX_EPOCH_MILLIS));
        }
        SeriesId series = SeriesId.of("d", "m");
        for (long time : times) {
            if (time < RowKey.MIN_EPOCH_MILLIS || time > RowKey.MAX_EPOCH_MILLIS) {
                continue;
            }
            assertThat(RowKey.encode(KeyLayout.DEFAULT, series, time)).as("t=%d (seed %d)", time, seed)
                    .isEqualTo(ReferenceKeys.key(KeyLayout.DEFAULT, series, time));
        }
    }

    @Test
    void decodeOfEncodeIsTheIdentityAndMatchesTheReferenceFormat() {
        forAll("round trip", (random, layout) -> {
            RowKey key = RowKey.of(randomSeries(random, layout), randomTime(random));
            byte[] bytes;
            try {
                bytes = key.toBytes(layout);
            } catch (InvalidKeyException tooLong) {
                assertThat(tooLong.reason()).isEqualTo(InvalidKeyException.Reason.KEY_TOO_LONG);
                assertThat(ReferenceKeys.key(layout, key.series(), key.epochMillis()).length).isGreaterThan(RowKey.MAX_KEY_BYTES);
                return;
            }
            assertThat(bytes).isEqualTo(ReferenceKeys.key(layout, key.series(), key.epochMillis()));
            assertThat(RowKey.fromBytes(bytes, layout)).isEqualTo(key);
        });
    }

    @Test
    void aSeriesRangeHoldsEveryKeyOfItsSeriesAndNoKeyOfAnother() {
        forAll("series range", (random, layout) -> {
            SeriesId series = randomSeries(random, layout);
            KeyRange range = RowKey.seriesRange(layout, series);
            for (int i = 0; i < 5; i++) {
                assertThat(range.contains(RowKey.encode(layout, series, randomTime(random)))).isTrue();
                SeriesId other = random.nextBoolean() ? neighbour(random, series) : randomSeries(random, layout);
                if (!other.equals(series)) {
                    assertThat(range.contains(RowKey.encode(layout, other, randomTime(random))))
                            .as("%s captured by the range of %s", other, series).isFalse();
                }
            }
        });
    }

    @Test
    void aDevicePrefixNeverCapturesAnotherDevicesRows() {
        forAll("device range", (random, layout) -> {
            SeriesId series = randomSeries(random, layout);
            KeyRange device = RowKey.deviceRange(layout, series.tenant(), series.device());
            assertThat(device.contains(RowKey.encode(layout, series, randomTime(random)))).isTrue();
            assertThat(device.contains(RowKey.encode(layout, new SeriesId(series.tenant(), series.device(),
                    randomText(random)), randomTime(random)))).isTrue();
            SeriesId other = neighbour(random, series);
            boolean sameDevice = other.device().equals(series.device()) && java.util.Objects.equals(other.tenant(), series.tenant());
            assertThat(device.contains(RowKey.encode(layout, other, randomTime(random)))).isEqualTo(sameDevice);
        });
    }

    @Test
    void aTenantRangeHoldsExactlyTheTenantsRows() {
        KeyLayout layout = KeyLayout.MULTI_TENANT;
        forAll("tenant range", (random, ignored) -> {
            SeriesId series = randomSeries(random, layout);
            KeyRange tenant = RowKey.tenantRange(layout, series.tenant());
            assertThat(tenant.contains(RowKey.encode(layout, series, randomTime(random)))).isTrue();
            SeriesId other = new SeriesId(series.tenant() + TRICKY[random.nextInt(TRICKY.length)], series.device(), series.metric());
            assertThat(tenant.contains(RowKey.encode(layout, other, randomTime(random)))).isFalse();
        });
    }

    @Test
    void aTimeRangeHoldsExactlyTheRowsInFromInclusiveToExclusive() {
        forAll("time range", (random, layout) -> {
            SeriesId series = randomSeries(random, layout);
            long base = random.nextBoolean() ? 1_700_000_000_000L : random.nextBoolean() ? 0 : RowKey.MAX_EPOCH_MILLIS - 20;
            long from = base + random.nextInt(20) - (base == 0 ? 0 : 5);
            long to = from + random.nextInt(8) - 1;
            KeyRange range = RowKey.seriesRange(layout, series, from, to);
            List<Long> inside = new ArrayList<>();
            for (long t = Math.max(0, base - 10); t <= Math.min(RowKey.MAX_EPOCH_MILLIS, base + 30); t++) {
                if (range.contains(RowKey.encode(layout, series, t))) {
                    inside.add(t);
                }
            }
            List<Long> expected = new ArrayList<>();
            for (long t = Math.max(0, from); t < to && t <= RowKey.MAX_EPOCH_MILLIS; t++) {
                expected.add(t);
            }
            assertThat(inside).as("[%d, %d)", from, to).containsExactlyInAnyOrderElementsOf(expected);
            assertThat(range.isEmpty()).isEqualTo(expected.isEmpty());
        });
    }
}
