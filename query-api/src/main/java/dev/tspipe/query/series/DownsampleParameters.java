package dev.tspipe.query.series;

import dev.tspipe.query.error.ApiException;
import dev.tspipe.query.downsample.Downsampler;
import dev.tspipe.query.downsample.Fill;
import dev.tspipe.query.downsample.Fn;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The query parameters of {@code /downsample}, checked: every bad one is a 400 that names it and its form. */
final class DownsampleParameters {

    private static final Pattern DURATION = Pattern.compile("([+-]?)(\\d{1,12})(ms|s|m|h|d|w)");

    private DownsampleParameters() {
    }

    static Downsampler.Request parse(String from, String to, String step, String align, String fn, String fill) {
        if (from == null || from.isEmpty() || to == null || to.isEmpty()) {
            throw ApiException.badParameter(from == null || from.isEmpty() ? "from" : "to", "missing: a downsampled series "
                    + "needs its window, from and to (epoch milliseconds or ISO-8601 instants)");
        }
        TimeWindow window = TimeWindow.parse(from, to);
        if (step == null || step.isEmpty()) {
            throw ApiException.badParameter("step", "missing; a duration such as 15s, 5m, 6h or 7d");
        }
        long stepMillis = duration("step", step);
        if (stepMillis <= 0) {
            throw ApiException.badParameter("step", "'" + step + "' must be longer than 0");
        }
        long alignMillis = align == null || align.isEmpty() ? 0 : duration("align", align);
        Fn parsedFn;
        Fill parsedFill;
        try {
            parsedFn = fn == null || fn.isEmpty() ? Fn.AVG : Fn.parse(fn);
        } catch (IllegalArgumentException e) {
            throw ApiException.badParameter("fn", e.getMessage());
        }
        try {
            parsedFill = fill == null || fill.isEmpty() ? Fill.NONE : Fill.parse(fill);
        } catch (IllegalArgumentException e) {
            throw ApiException.badParameter("fill", e.getMessage());
        }
        Downsampler.Request request = new Downsampler.Request(window.from(), window.to(), stepMillis, alignMillis, parsedFn,
                parsedFill);
        if (request.buckets() > Downsampler.MAX_POINTS) {
            throw ApiException.badParameter("step", "the window holds " + request.buckets() + " steps of " + step
                    + "; at most " + Downsampler.MAX_POINTS + " points per answer: a longer step or a shorter window");
        }
        return request;
    }

    /** A duration: digits and a unit of ms, s, m, h, d or w, with a sign for {@code align}. */
    static long duration(String parameter, String text) {
        Matcher matcher = DURATION.matcher(text);
        if (!matcher.matches() || parameter.equals("step") && !matcher.group(1).isEmpty()) {
            throw ApiException.badParameter(parameter, "'" + text + "' is not a duration such as 15s, 5m, 6h, 7d"
                    + (parameter.equals("align") ? " (a sign allowed: -2h aligns days to UTC+2)" : ""));
        }
        long amount = Long.parseLong(matcher.group(2));
        long unit = switch (matcher.group(3)) {
            case "ms" -> 1L;
            case "s" -> 1_000L;
            case "m" -> 60_000L;
            case "h" -> 3_600_000L;
            case "d" -> 86_400_000L;
            default -> 604_800_000L;
        };
        long millis;
        try {
            millis = Math.multiplyExact(amount, unit);
        } catch (ArithmeticException e) {
            throw ApiException.badParameter(parameter, "'" + text + "' is too long");
        }
        return matcher.group(1).equals("-") ? -millis : millis;
    }
}
