package dev.tspipe.query.promql;

import java.util.Locale;

/**
 * An aggregation operator of the subset, by its PromQL name ({@code sum}, {@code avg}, ...): how it combines the values
 * its group's series have at one instant, series without a point there left out (Prometheus' semantics).
 */
public enum AggregationOperator {
    SUM, AVG, MIN, MAX, COUNT;

    /** The operator of a PromQL name; an {@link IllegalArgumentException} for a name outside the subset. */
    public static AggregationOperator of(String name) {
        return valueOf(name.toUpperCase(Locale.ROOT));
    }

    /** Its PromQL name. */
    public String promQlName() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** The group's value at one instant: {@code count} points of the group, their sum, minimum and maximum. */
    double combine(int count, double sum, double min, double max) {
        return switch (this) {
            case SUM -> sum;
            case AVG -> sum / count;
            case MIN -> min;
            case MAX -> max;
            case COUNT -> count;
        };
    }
}
