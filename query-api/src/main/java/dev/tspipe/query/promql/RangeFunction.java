package dev.tspipe.query.promql;

import java.util.Locale;

/**
 * What a leaf of a query computes for each instant {@code t} from a series' readings in the window
 * {@code [t - range, t)} (docs/query-api.md, "Prometheus API": Prometheus' windows are {@code (t - range, t]}).
 */
public enum RangeFunction {
    AVG_OVER_TIME, MIN_OVER_TIME, MAX_OVER_TIME, SUM_OVER_TIME, COUNT_OVER_TIME, LAST_OVER_TIME, RATE, INCREASE,
    /** A plain selector: the last reading of the lookback window, the series keeping its {@code __name__}. */
    SELECTOR;

    /** The function of a PromQL name ({@code avg_over_time}, {@code rate}, ...). */
    public static RangeFunction of(String name) {
        return valueOf(name.toUpperCase(Locale.ROOT));
    }

    /** Its PromQL name ({@code avg_over_time}); a plain selector has none. */
    public String promQlName() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** Whether it needs every reading: {@code rate} and {@code increase} see counter resets, which rollups hide. */
    public boolean needsReadings() {
        return this == RATE || this == INCREASE;
    }

    /** Whether its result keeps the metric name: only a plain selector's does, as in Prometheus. */
    public boolean keepsName() {
        return this == SELECTOR;
    }
}
