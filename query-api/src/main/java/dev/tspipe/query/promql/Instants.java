package dev.tspipe.query.promql;

import dev.tspipe.query.downsample.Downsampler;

/**
 * The instants a query is evaluated at: {@code start}, {@code start + step}, ... up to {@code end} inclusive, as
 * Prometheus' {@code query_range}; one instant ({@code start == end}) for {@code query}.
 */
public record Instants(long start, long end, long step) {

    /** The most instants one series has in an answer, as Prometheus allows ("exceeded maximum resolution"). */
    public static final int MAX_POINTS = Downsampler.MAX_POINTS;

    public Instants {
        if (step <= 0) {
            throw new IllegalArgumentException("step must be > 0");
        }
        if (end < start) {
            throw new IllegalArgumentException("end must not be before start");
        }
    }

    /** One instant. */
    public static Instants single(long time) {
        return new Instants(time, time, 1);
    }

    public int count() {
        long steps = span(start, end) / step;
        return steps >= Integer.MAX_VALUE ? Integer.MAX_VALUE : (int) steps + 1;
    }

    /** {@code end - start} for {@code end >= start}, or {@link Long#MAX_VALUE} where that does not fit in a long. */
    public static long span(long start, long end) {
        long span = end - start;
        return span < 0 ? Long.MAX_VALUE : span;
    }

    public long at(int index) {
        return start + index * step;
    }
}
