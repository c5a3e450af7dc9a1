package dev.tspipe.query.promql;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;

/**
 * The value of a range function at one instant, by its definition (docs/query-api.md, "Prometheus API"), reading by
 * reading: the readings in {@code [t - range, t)}, and for {@code increase} and {@code rate} the last one before it.
 * {@link Double#NaN} when the instant has no point.
 */
public final class PromOracle {

    private PromOracle() {
    }

    /**
     * @param function  a {@link RangeFunction}'s PromQL name ({@code avg_over_time}, {@code rate}), or {@code selector}
     * @param readings  the series, timestamp to value
     */
    public static double at(String function, NavigableMap<Long, Double> readings, long t, long range) {
        List<Double> window = new ArrayList<>(readings.subMap(t - range, true, t, false).values());
        if (function.equals("increase") || function.equals("rate")) {
            List<Double> sequence = new ArrayList<>();
            Map.Entry<Long, Double> before = readings.lowerEntry(t - range);
            if (before != null) {
                sequence.add(before.getValue());
            }
            sequence.addAll(window);
            if (window.isEmpty() || sequence.size() < 2) {
                return Double.NaN;
            }
            double growth = 0;
            for (int i = 1; i < sequence.size(); i++) {
                double delta = sequence.get(i) - sequence.get(i - 1);
                growth += delta >= 0 ? delta : sequence.get(i);
            }
            return function.equals("rate") ? growth / (range / 1000.0) : growth;
        }
        if (window.isEmpty()) {
            return Double.NaN;
        }
        return switch (function) {
            case "avg_over_time" -> window.stream().mapToDouble(Double::doubleValue).average().orElseThrow();
            case "min_over_time" -> window.stream().mapToDouble(Double::doubleValue).min().orElseThrow();
            case "max_over_time" -> window.stream().mapToDouble(Double::doubleValue).max().orElseThrow();
            case "sum_over_time" -> window.stream().mapToDouble(Double::doubleValue).sum();
            case "count_over_time" -> window.size();
            case "last_over_time", "selector" -> window.get(window.size() - 1);
            default -> throw new IllegalArgumentException("no function " + function);
        };
    }
}
