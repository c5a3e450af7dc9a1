package dev.tspipe.bench.faults;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.NavigableMap;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;

/** The oracle's buckets on worked examples, and each kind of discrepancy the comparison reports. */
class OracleTest {

    private static final Series SERIES = new Series(0, "fault-000", "temperature", Placement.MURMUR2);
    private static final long DAY = 86_400_000L;

    @Test
    void bucketsAreAlignedToTheEpochAndHoldCountSumMinMaxAndTheLatestValue() {
        long midnight = 20_000 * DAY;
        NavigableMap<Long, Double> rows = Oracle.rows(List.of(
                point(midnight - 30_000, 2.5),          // 23:59:30 of the day before
                point(midnight, -1.25),                 // 00:00:00
                point(midnight + 59_999, 4.0),          // 00:00:59.999
                point(midnight + 60_000, 0.5)));        // 00:01:00

        assertThat(Oracle.buckets(rows, Oracle.Step.MINUTE.millis).values()).containsExactly(
                new Oracle.Bucket(midnight - 60_000, 1, 2.5, 2.5, 2.5, 2.5, midnight - 30_000),
                new Oracle.Bucket(midnight, 2, 2.75, -1.25, 4.0, 4.0, midnight + 59_999),
                new Oracle.Bucket(midnight + 60_000, 1, 0.5, 0.5, 0.5, 0.5, midnight + 60_000));
        assertThat(Oracle.buckets(rows, Oracle.Step.DAY.millis).values()).containsExactly(
                new Oracle.Bucket(midnight - DAY, 1, 2.5, 2.5, 2.5, 2.5, midnight - 30_000),
                new Oracle.Bucket(midnight, 3, 3.25, -1.25, 4.0, 0.5, midnight + 60_000));
    }

    @Test
    void theRowOfAPointIsItsCurrentValue() {
        Point point = point(1_000, 1.0);
        point.written(3.75, 0);

        assertThat(Oracle.rows(List.of(point))).containsExactlyEntriesOf(new TreeMap<>(java.util.Map.of(1_000L, 3.75)));
    }

    @Test
    void rowsMissingWithAnotherValueOrNeverWrittenAreToldApart() {
        NavigableMap<Long, Double> expected = new TreeMap<>(java.util.Map.of(1L, 1.0, 2L, 2.0, 3L, 3.0));
        NavigableMap<Long, Double> observed = new TreeMap<>(java.util.Map.of(1L, 1.0, 3L, 3.5, 4L, 4.0));

        Oracle.RowDiff diff = Oracle.compareRows(expected, observed);

        assertThat(diff.lost()).containsExactly(2L);
        assertThat(diff.wrong()).containsExactly(3L);
        assertThat(diff.unexpected()).containsExactly(4L);
        assertThat(Oracle.compareRows(expected, expected)).isEqualTo(new Oracle.RowDiff(List.of(), List.of(), List.of()));
    }

    @Test
    void bucketsShortOfReadingsCountedTwiceOrWithAWrongFigureAreToldApart() {
        NavigableMap<Long, Oracle.Bucket> expected = buckets(
                new Oracle.Bucket(0, 3, 6.0, 1.0, 3.0, 3.0, 50),
                new Oracle.Bucket(60_000, 2, 3.0, 1.0, 2.0, 2.0, 60_050),
                new Oracle.Bucket(120_000, 1, 1.0, 1.0, 1.0, 1.0, 120_000),
                new Oracle.Bucket(180_000, 2, 2.0, 1.0, 1.0, 1.0, 180_010));
        NavigableMap<Long, Oracle.Bucket> observed = buckets(
                new Oracle.Bucket(0, 2, 3.0, 1.0, 2.0, 2.0, 40),               // one reading missing
                new Oracle.Bucket(60_000, 3, 4.0, 1.0, 2.0, 2.0, 60_050),      // one counted twice
                new Oracle.Bucket(120_000, 1, 1.0, 1.0, 1.0, 1.5, 120_000),    // last is wrong
                new Oracle.Bucket(240_000, 1, 1.0, 1.0, 1.0, 1.0, 240_000));   // never written; 180_000 missing

        Oracle.BucketDiff diff = Oracle.compareBuckets(expected, observed);

        assertThat(diff.countLost()).isEqualTo(1 + 2);
        assertThat(diff.countDouble()).isEqualTo(1 + 1);
        assertThat(diff.wrong()).isEqualTo(1);
        assertThat(diff.affected()).containsExactly(0L, 60_000L, 120_000L, 180_000L, 240_000L);
        assertThat(Oracle.compareBuckets(expected, expected)).isEqualTo(new Oracle.BucketDiff(0, 0, 0, List.of()));
    }

    private static Point point(long timestamp, double value) {
        return new Point(SERIES, timestamp, value);
    }

    private static NavigableMap<Long, Oracle.Bucket> buckets(Oracle.Bucket... buckets) {
        NavigableMap<Long, Oracle.Bucket> map = new TreeMap<>();
        for (Oracle.Bucket b : buckets) {
            map.put(b.start(), b);
        }
        return map;
    }
}
