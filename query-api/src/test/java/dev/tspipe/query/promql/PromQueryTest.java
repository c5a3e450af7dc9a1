package dev.tspipe.query.promql;

import dev.tspipe.model.keys.SeriesId;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

/** A query's aggregations over the leaf values of every partition, against sums and counts done by hand. */
class PromQueryTest {

    private static final QueryBudget BUDGET = QueryBudget.full(java.time.Clock.systemUTC());

    private static final double NO = Double.NaN;
    private static final List<PartitionSeries.Values> LEAF = List.of(
            values("acme", "d1", "temperature", 1, 2, NO),
            values("acme", "d2", "temperature", 3, NO, NO),
            values("globex", "d1", "temperature", 10, 20, NO),
            values("acme", "d1", "humidity", 50, 60, NO));

    private static PartitionSeries.Values values(String tenant, String device, String metric, double... values) {
        return new PartitionSeries.Values(SeriesId.of(tenant, device, metric), 0, values);
    }

    private static List<PromQuery.Labeled> evaluate(String query) throws PromQlException {
        return PromQuery.parse(query, Leaf.DEFAULT_LOOKBACK_MILLIS, null).evaluate(LEAF);
    }

    private static Map<String, String> labels(String... pairs) {
        Map<String, String> labels = new TreeMap<>();
        for (int i = 0; i < pairs.length; i += 2) {
            labels.put(pairs[i], pairs[i + 1]);
        }
        return labels;
    }

    @Test
    void aSelectorKeepsTheNameAFunctionDropsItAndSeriesWithoutPointsAreLeftOut() throws Exception {
        List<PromQuery.Labeled> plain = evaluate("temperature");
        assertThat(plain).extracting(PromQuery.Labeled::labels).contains(labels("__name__", "temperature", "device", "d1",
                "tenant", "acme"));
        assertThat(evaluate("avg_over_time(temperature[1m])")).extracting(PromQuery.Labeled::labels)
                .contains(labels("device", "d1", "tenant", "acme"));
        List<PartitionSeries.Values> empty = List.of(values("acme", "d9", "temperature", NO, NO, NO));
        assertThat(PromQuery.parse("temperature", 1, null).evaluate(empty)).isEmpty();
    }

    @Test
    void aggregationsByAndWithoutGroupAsPrometheusDoes() throws Exception {
        // Every leaf series is in the answer of the leaf alone; aggregations see them all, whatever the metric.
        assertThat(evaluate("sum by (tenant) (x)")).isNotEmpty();
        List<PromQuery.Labeled> byTenant = evaluate("sum by (tenant) (avg_over_time(x[1m]))");
        assertThat(byTenant).hasSize(2);
        assertThat(byTenant.get(0).labels()).isEqualTo(labels("tenant", "acme"));
        assertThat(byTenant.get(0).values()).containsExactly(54, 62, NO);
        assertThat(byTenant.get(1).labels()).isEqualTo(labels("tenant", "globex"));
        assertThat(byTenant.get(1).values()).containsExactly(10, 20, NO);

        List<PromQuery.Labeled> withoutDevice = evaluate("count without (device) (x)");
        assertThat(withoutDevice).extracting(PromQuery.Labeled::labels).containsExactly(labels("tenant", "acme"),
                labels("tenant", "globex"));
        assertThat(withoutDevice.get(0).values()).containsExactly(3, 2, NO);

        assertThat(evaluate("max(x)").get(0).values()).containsExactly(50, 60, NO);
        assertThat(evaluate("min(x)").get(0).labels()).isEmpty();
        assertThat(evaluate("avg(x)").get(0).values()).containsExactly((1 + 3 + 10 + 50) / 4.0, (2 + 20 + 60) / 3.0, NO);
        assertThat(evaluate("max by (device) (sum by (device, tenant) (x))")).extracting(PromQuery.Labeled::labels)
                .containsExactly(labels("device", "d1"), labels("device", "d2"));
        assertThat(evaluate("max by (device) (sum by (device, tenant) (x))").get(0).values()).containsExactly(51, 62, NO);
    }

    @Test
    void randomGroupingsEqualSumsDoneByHand() throws Exception {
        long seed = Long.getLong("tspipe.seed", System.nanoTime());
        Random random = new Random(seed);
        for (int round = 0; round < 200; round++) {
            List<PartitionSeries.Values> leaf = new ArrayList<>();
            int series = 1 + random.nextInt(30);
            for (int s = 0; s < series; s++) {
                double[] points = new double[5];
                for (int i = 0; i < points.length; i++) {
                    points[i] = random.nextInt(4) == 0 ? NO : random.nextInt(1000) / 8.0;
                }
                leaf.add(values("t" + random.nextInt(3), "d" + s, "m" + random.nextInt(2), points));
            }
            String label = List.of("tenant", "__name__", "device").get(random.nextInt(3));
            List<PromQuery.Labeled> sums = PromQuery.parse("sum by (" + label + ") (x)", 1, null).evaluate(leaf);
            for (PromQuery.Labeled group : sums) {
                for (int i = 0; i < 5; i++) {
                    double expected = 0;
                    int present = 0;
                    for (PartitionSeries.Values one : leaf) {
                        if (SeriesSelection.labels(one.series()).get(label).equals(group.labels().get(label))
                                && !Double.isNaN(one.values()[i])) {
                            expected += one.values()[i];
                            present++;
                        }
                    }
                    String what = "seed " + seed + ", round " + round + ", " + group.labels() + ", instant " + i;
                    if (present == 0) {
                        assertThat(group.values()[i]).as(what).isNaN();
                    } else {
                        assertThat(group.values()[i]).as(what).isCloseTo(expected, within(1e-9));
                    }
                }
            }
        }
    }

    @Test
    void whatIsNotAnsweredIsRefusedWithWhy() {
        assertThatThrownBy(() -> PromQuery.parse("temperature[5m]", 1, null)).isInstanceOf(PromQlException.class)
                .hasMessageContaining("wrap it in a function such as avg_over_time(");
        assertThatThrownBy(() -> PromQuery.parse("sum(1)", 1, null)).isInstanceOf(PromQlException.class)
                .hasMessageContaining("not a number");
        assertThatThrownBy(() -> PromQuery.parse("holt_winters(x[5m], 0.1, 0.1)", 1, null))
                .isInstanceOf(PromQlException.class).hasMessageContaining("not in the subset");
    }

    @Test
    void aTokensTenantBindsEveryLeaf() throws Exception {
        PromQuery query = PromQuery.parse("sum(rate(requests{tenant=\"globex\"}[5m]))", 1, "acme");
        assertThat(query.leaf().selection().matches(SeriesId.of("acme", "d", "requests"), BUDGET)).isFalse();
        assertThat(query.leaf().selection().matches(SeriesId.of("globex", "d", "requests"), BUDGET)).isFalse();
        assertThat(PromQuery.parse("requests", 1, "acme").leaf().selection().matches(SeriesId.of("acme", "d", "requests"), BUDGET))
                .isTrue();
    }
}
