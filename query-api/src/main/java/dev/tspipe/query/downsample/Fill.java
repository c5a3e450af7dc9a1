package dev.tspipe.query.downsample;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/** What a bucket without readings becomes. */
public enum Fill {
    /** No point. */
    NONE,
    /** A point with value null. */
    NULL,
    /** The value of the last bucket before it that has readings (null before the first). */
    PREV,
    /** The value on the straight line between the buckets with readings around it (null before the first and after the last). */
    LINEAR;

    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** The fill of a label; an {@link IllegalArgumentException} that lists the labels when it is none. */
    public static Fill parse(String label) {
        for (Fill fill : values()) {
            if (fill.label().equals(label)) {
                return fill;
            }
        }
        throw new IllegalArgumentException("'" + label + "' is not one of "
                + Arrays.stream(values()).map(Fill::label).collect(Collectors.joining(", ")));
    }
}
