package dev.tspipe.query.downsample;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/** What one point of a downsampled series is: the {@code fn} of the readings in its bucket. */
public enum Fn {
    AVG, MIN, MAX, SUM, COUNT, FIRST, LAST;

    /** The point of a bucket's aggregate. */
    double of(Aggregate bucket) {
        return switch (this) {
            case AVG -> bucket.sum() / bucket.count();
            case MIN -> bucket.min();
            case MAX -> bucket.max();
            case SUM -> bucket.sum();
            case COUNT -> bucket.count();
            case FIRST -> bucket.first();
            case LAST -> bucket.last();
        };
    }

    /** Whether stored rollups answer it exactly: every fn but {@code first}, which rollups do not keep. */
    public boolean fromRollups() {
        return this != FIRST;
    }

    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** The fn of a label; an {@link IllegalArgumentException} that lists the labels when it is none. */
    public static Fn parse(String label) {
        for (Fn fn : values()) {
            if (fn.label().equals(label)) {
                return fn;
            }
        }
        throw new IllegalArgumentException("'" + label + "' is not one of " + labels());
    }

    static String labels() {
        return Arrays.stream(values()).map(Fn::label).collect(Collectors.joining(", "));
    }
}
