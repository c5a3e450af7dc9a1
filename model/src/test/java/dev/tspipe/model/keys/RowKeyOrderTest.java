package dev.tspipe.model.keys;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every pair of an edge-case list (FoundationDB tuple-layer style): the unsigned byte order of
 * the keys equals the logical order of the tuples. Logical order: by tenant, device, metric
 * (each segment compared as a whole, so that a segment that is a prefix of another sorts first),
 * then newest first.
 */
class RowKeyOrderTest {

    private static final List<String> NAMES = List.of(
            "a100", "a1001", "a10", "54", "167", "000054", "000167", "a:b", "a,b", "a;b", "a", "ab", "a#b", "a#",
            "a%b", "a%", "a b", "a!", "a\"", "$", "~", "A", "Z", "Café", "Cafe", "日本", "😀", "dev-1", "dev-10",
            "dev-1-x", "dev-1#x", "x\u0000", "x\u007F");
    private static final List<String> METRICS = List.of("temp", "temp2", "t", "a b", "#", "%");
    private static final List<Long> TIMES = List.of(0L, 1L, 2L, 54L, 167L, 1_699_999_999_999L, 1_700_000_000_000L,
            1_700_000_000_001L, RowKey.MAX_EPOCH_MILLIS - 1, RowKey.MAX_EPOCH_MILLIS);

    private record Row(RowKey key, byte[] bytes) {
    }

    /** A segment's place among segments: its escaped bytes, by the reference escaping of docs/design.md §4. */
    private static int compareSegments(String a, String b) {
        return Arrays.compareUnsigned(ReferenceKeys.escape(a), ReferenceKeys.escape(b));
    }

    private static final Comparator<RowKey> LOGICAL = Comparator
            .comparing((RowKey k) -> k.series().tenant() == null ? "" : k.series().tenant(), RowKeyOrderTest::compareSegments)
            .thenComparing(k -> k.series().device(), RowKeyOrderTest::compareSegments)
            .thenComparing(k -> k.series().metric(), RowKeyOrderTest::compareSegments)
            .thenComparing(RowKey::epochMillis, Comparator.reverseOrder());

    private static List<Row> rows(KeyLayout layout) {
        List<Row> rows = new ArrayList<>();
        for (String tenant : layout.multiTenant() ? List.of("t1", "t10", "t 1") : java.util.Collections.<String>singletonList(null)) {
            for (String device : NAMES) {
                for (String metric : METRICS) {
                    for (long time : TIMES) {
                        RowKey key = RowKey.of(new SeriesId(tenant, device, metric), time);
                        rows.add(new Row(key, key.toBytes(layout)));
                    }
                }
            }
        }
        return rows;
    }

    private static void assertOrderMatches(KeyLayout layout) {
        List<Row> rows = new ArrayList<>(rows(layout));
        // Rank every row in logical order once; then compare every pair of rows by bytes against their ranks.
        rows.sort(Comparator.comparing(Row::key, LOGICAL));
        long pairs = 0;
        for (int i = 0; i < rows.size(); i++) {
            for (int j = 0; j < rows.size(); j++) {
                int bytes = Integer.signum(Arrays.compareUnsigned(rows.get(i).bytes(), rows.get(j).bytes()));
                if (bytes != Integer.compare(i, j)) {
                    throw new AssertionError("byte order " + bytes + " but logical order " + Integer.compare(i, j)
                            + " for " + rows.get(i).key() + " vs " + rows.get(j).key());
                }
                pairs++;
            }
        }
        assertThat(pairs).isEqualTo((long) rows.size() * rows.size());
    }

    @Test
    void byteOrderEqualsLogicalOrderForEveryPairSingleTenant() {
        assertOrderMatches(KeyLayout.DEFAULT);
    }

    @Test
    void byteOrderEqualsLogicalOrderForEveryPairMultiTenant() {
        assertOrderMatches(KeyLayout.MULTI_TENANT);
    }

    @Test
    void segmentsOfPlainCharactersSortAsPlainText() {
        List<String> plain = NAMES.stream().filter(n -> n.chars().allMatch(c -> c >= 0x24 && c <= 0x7E && c != '%')).toList();
        assertThat(plain).contains("a100", "a1001", "54", "167", "a:b", "a,b", "dev-1", "dev-10");

        for (String a : plain) {
            for (String b : plain) {
                assertThat(Integer.signum(compareSegments(a, b))).as("%s vs %s", a, b).isEqualTo(Integer.signum(a.compareTo(b)));
            }
        }
    }

    @Test
    void theSeedExamples() {
        KeyLayout layout = KeyLayout.DEFAULT;
        // A segment that is a prefix of another sorts first: '#' is below every segment byte.
        assertThat(less(layout, "a100", "a1001")).isTrue();
        assertThat(less(layout, "a100", "a100-")).isTrue();
        // Zero-padded numbers keep numeric order; the timestamps are padded (and reversed: newest first).
        assertThat(Arrays.compareUnsigned(RowKey.encode(layout, SeriesId.of("d", "m"), 167),
                RowKey.encode(layout, SeriesId.of("d", "m"), 54))).isNegative();
        assertThat(less(layout, "000054", "000167")).isTrue();
        // ':' (0x3A) sorts above ',' (0x2C); both are above '#', so neither breaks the grouping.
        assertThat(less(layout, "a,b", "a:b")).isTrue();
        // dev-1 and all its rows sort before dev-10.
        assertThat(less(layout, "dev-1", "dev-10")).isTrue();
    }

    private static boolean less(KeyLayout layout, String deviceA, String deviceB) {
        byte[] newestOfB = RowKey.encode(layout, SeriesId.of(deviceB, "m"), RowKey.MAX_EPOCH_MILLIS);
        byte[] oldestOfA = RowKey.encode(layout, SeriesId.of(deviceA, "zzzz"), 0);
        return Arrays.compareUnsigned(oldestOfA, newestOfB) < 0;
    }
}
