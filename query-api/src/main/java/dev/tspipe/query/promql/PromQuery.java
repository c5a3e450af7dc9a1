package dev.tspipe.query.promql;


import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A parsed query, as tspipe evaluates it: a number, or one {@link Leaf} (the only part that reads series) under
 * any number of aggregations. Instances compute the leaf for the series of their partitions
 * ({@link PartitionReader}); the instance that was asked puts the partitions together and aggregates
 * ({@link #evaluate}).
 */
public final class PromQuery {

    /** A series of the answer: its labels and its value at each instant ({@link Double#NaN}: no point). */
    public record Labeled(Map<String, String> labels, double[] values) {
    }

    private final Leaf leaf;
    private final double number;
    /** Outermost first. */
    private final List<Expr.Aggregation> aggregations;

    private PromQuery(Leaf leaf, double number, List<Expr.Aggregation> aggregations) {
        this.leaf = leaf;
        this.number = number;
        this.aggregations = aggregations;
    }

    /**
     * The query of {@code text}.
     *
     * @param lookback   the window of a plain selector (Prometheus' {@code lookback_delta})
     * @param tenantOnly the one tenant the caller may read, or null
     */
    public static PromQuery parse(String text, long lookback, String tenantOnly) throws PromQlException {
        return parse(text, lookback, tenantOnly, DeviceLabels.NONE);
    }

    /** The query of {@code text}, whose selector also matches the labels of each device's {@code metadata}. */
    public static PromQuery parse(String text, long lookback, String tenantOnly, DeviceLabels metadata) throws PromQlException {
        Expr expr = PromQl.parse(text);
        List<Expr.Aggregation> aggregations = new ArrayList<>();
        while (expr instanceof Expr.Aggregation aggregation) {
            aggregations.add(aggregation);
            expr = aggregation.expr();
        }
        if (expr instanceof Expr.NumberLiteral literal) {
            if (!aggregations.isEmpty()) {
                throw new PromQlException(0, aggregations.get(0).operator() + "() takes an instant vector such as "
                        + "metric{device=\"d\"}, not a number");
            }
            return new PromQuery(null, literal.value(), List.of());
        }
        Leaf leaf;
        if (expr instanceof Expr.VectorSelector selector) {
            leaf = new Leaf(RangeFunction.SELECTOR, new SeriesSelection(selector.matchers(), tenantOnly, metadata), lookback);
        } else if (expr instanceof Expr.Call call) {
            leaf = new Leaf(RangeFunction.of(call.function()), new SeriesSelection(call.argument().selector().matchers(),
                    tenantOnly, metadata), call.argument().rangeMillis());
        } else {
            throw new PromQlException(0, "a range selector alone is not answered: wrap it in a function such as "
                    + "avg_over_time(" + expr + "), or read the readings from /api/v1/series/{device}/{metric}/readings");
        }
        return new PromQuery(leaf, Double.NaN, List.copyOf(aggregations));
    }

    /** The part that reads series; null for a number. */
    public Leaf leaf() {
        return leaf;
    }

    public boolean isNumber() {
        return leaf == null;
    }

    public double number() {
        return number;
    }

    /** The answer from the leaf's values of every partition: aggregated, series without any point left out, sorted by labels. */
    public List<Labeled> evaluate(List<PartitionSeries.Values> leafValues) {
        List<Labeled> series = new ArrayList<>(leafValues.size());
        for (PartitionSeries.Values one : leafValues) {
            Map<String, String> labels = leaf.selection().labelsOf(one.series());
            if (!leaf.function().keepsName()) {
                labels.remove(SeriesSelection.NAME);
            }
            series.add(new Labeled(labels, one.values()));
        }
        for (int i = aggregations.size() - 1; i >= 0; i--) {
            series = aggregate(aggregations.get(i), series);
        }
        return series.stream().filter(PromQuery::hasPoint).sorted(Comparator.comparing(s -> s.labels().toString())).toList();
    }

    private static List<Labeled> aggregate(Expr.Aggregation aggregation, List<Labeled> series) {
        Map<String, Map<String, String>> groupLabels = new LinkedHashMap<>();
        Map<String, List<double[]>> groups = new LinkedHashMap<>();
        for (Labeled one : series) {
            Map<String, String> labels = grouping(aggregation, one.labels());
            String key = labels.toString();
            groupLabels.putIfAbsent(key, labels);
            groups.computeIfAbsent(key, k -> new ArrayList<>()).add(one.values());
        }
        List<Labeled> answer = new ArrayList<>();
        groups.forEach((key, members) -> answer.add(new Labeled(groupLabels.get(key), combine(AggregationOperator.of(aggregation.operator()), members))));
        return answer;
    }

    /** The labels of a series' group: those of {@code by}, or all but those of {@code without} and the name. */
    private static Map<String, String> grouping(Expr.Aggregation aggregation, Map<String, String> labels) {
        Map<String, String> group = new TreeMap<>();
        if (aggregation.without()) {
            group.putAll(labels);
            group.remove(SeriesSelection.NAME);
            aggregation.labels().forEach(group::remove);
        } else {
            for (String label : aggregation.labels()) {
                String value = labels.get(label);
                if (value != null && !value.isEmpty()) {
                    group.put(label, value);
                }
            }
        }
        return group;
    }

    private static double[] combine(AggregationOperator operator, List<double[]> members) {
        int instants = members.get(0).length;
        double[] combined = new double[instants];
        for (int i = 0; i < instants; i++) {
            int count = 0;
            double sum = 0;
            double min = Double.POSITIVE_INFINITY;
            double max = Double.NEGATIVE_INFINITY;
            for (double[] member : members) {
                double value = member[i];
                if (Double.isNaN(value)) {
                    continue;
                }
                count++;
                sum += value;
                min = Math.min(min, value);
                max = Math.max(max, value);
            }
            combined[i] = count == 0 ? Double.NaN : operator.combine(count, sum, min, max);
        }
        return combined;
    }

    private static boolean hasPoint(Labeled series) {
        return Arrays.stream(series.values()).anyMatch(v -> !Double.isNaN(v));
    }
}
