package dev.tspipe.processor.store;

import java.time.Duration;
import java.util.Locale;

/** The resolutions at which counters are kept at write time. */
public enum RollupStep {
    MINUTE("1m", Duration.ofMinutes(1), Duration.ofDays(1)),
    HOUR("1h", Duration.ofHours(1), Duration.ofDays(30)),
    DAY("1d", Duration.ofDays(1), Duration.ofDays(365));

    private final String label;
    private final Duration size;
    private final Duration segment;

    RollupStep(String label, Duration size, Duration segment) {
        this.label = label;
        this.size = size;
        this.segment = segment;
    }

    /** As written in URLs and store names: {@code 1m}, {@code 1h}, {@code 1d}. */
    public String label() {
        return label;
    }

    public long sizeMillis() {
        return size.toMillis();
    }

    /** The time span of one store segment of this resolution. */
    public Duration segment() {
        return segment;
    }

    /** The start of the bucket holding {@code epochMillis} (buckets are aligned to the epoch, UTC). */
    public long bucketStart(long epochMillis) {
        return epochMillis - Math.floorMod(epochMillis, size.toMillis());
    }

    /** Parses a label such as {@code 1h}; a bad label names the valid ones. */
    public static RollupStep fromLabel(String label) {
        for (RollupStep step : values()) {
            if (step.label.equals(label.toLowerCase(Locale.ROOT))) {
                return step;
            }
        }
        throw new IllegalArgumentException("unknown rollup step '" + label + "'; use one of 1m, 1h, 1d");
    }
}
