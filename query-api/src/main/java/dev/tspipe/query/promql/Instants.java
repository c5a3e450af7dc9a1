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
        return (int) Math.min(Integer.MAX_VALUE, (end - start) / step + 1);
    }

    public long at(int index) {
        return start + index * step;
    }
}
