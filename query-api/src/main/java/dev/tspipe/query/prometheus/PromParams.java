package dev.tspipe.query.prometheus;

import dev.tspipe.model.keys.RowKey;
import dev.tspipe.query.error.ApiException;
import dev.tspipe.query.promql.Instants;
import dev.tspipe.query.promql.Leaf;
import dev.tspipe.query.promql.PromQl;
import dev.tspipe.query.promql.PromQlException;
import io.javalin.http.Context;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The parameters of a Prometheus API request, from the query string or a form body, as Prometheus takes them: times
 * as unix seconds or RFC 3339, durations as seconds or PromQL's, every bad one a 400 that names it.
 */
final class PromParams {

    private static final String FORM = "tspipe.prometheus.form";
    /** Seconds as a plain decimal (an exponent of at most two digits): a longer one would be expanded before it is refused. */
    private static final java.util.regex.Pattern SECONDS =
            java.util.regex.Pattern.compile("[+-]?(\\d{1,20}(\\.\\d{0,20})?|\\.\\d{1,20})([eE][+-]?\\d{1,2})?");

    private PromParams() {
    }

    static String param(Context ctx, String name) {
        String value = ctx.queryParam(name);
        if (value == null) {
            List<String> values = form(ctx).getOrDefault(name, List.of());
            value = values.isEmpty() ? null : values.get(0);
        }
        return value;
    }

    static List<String> params(Context ctx, String name) {
        List<String> values = new ArrayList<>(ctx.queryParams(name));
        values.addAll(form(ctx).getOrDefault(name, List.of()));
        return values;
    }

    /** The request's form body (a POST of {@code application/x-www-form-urlencoded}), read once, as UTF-8 whatever charset it names. */
    static Map<String, List<String>> form(Context ctx) {
        Map<String, List<String>> form = ctx.attribute(FORM);
        if (form != null) {
            return form;
        }
        form = new LinkedHashMap<>();
        String type = ctx.header("Content-Type");
        if (ctx.method().name().equals("POST") && type != null
                && type.toLowerCase(java.util.Locale.ROOT).startsWith("application/x-www-form-urlencoded")) {
            String body = new String(ctx.bodyAsBytes(), StandardCharsets.UTF_8);
            for (String pair : body.split("&")) {
                if (pair.isEmpty()) {
                    continue;
                }
                int eq = pair.indexOf('=');
                try {
                    String name = URLDecoder.decode(eq < 0 ? pair : pair.substring(0, eq), StandardCharsets.UTF_8);
                    String value = eq < 0 ? "" : URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8);
                    form.computeIfAbsent(name, n -> new ArrayList<>()).add(value);
                } catch (IllegalArgumentException e) {
                    throw ApiException.badParameter("body", "the form body is not URL-encoded: " + e.getMessage());
                }
            }
        }
        ctx.attribute(FORM, form);
        return form;
    }

    static String required(Context ctx, String name) {
        String value = param(ctx, name);
        if (value == null || value.isEmpty()) {
            throw ApiException.badParameter(name, "missing");
        }
        return value;
    }

    static Long optionalNumber(Context ctx, String name) {
        String text = param(ctx, name);
        return text == null || text.isEmpty() ? null : number(ctx, name);
    }

    static long number(Context ctx, String name) {
        String text = required(ctx, name);
        try {
            return Long.parseLong(text);
        } catch (NumberFormatException e) {
            throw ApiException.badParameter(name, "'" + text + "' is not a whole number");
        }
    }

    /** A time: unix seconds with up to millisecond decimals, or RFC 3339; {@code fallback} when absent (null: required). */
    static long time(Context ctx, String name, Long fallback) {
        String text = param(ctx, name);
        if (text == null || text.isEmpty()) {
            if (fallback == null) {
                throw ApiException.badParameter(name, "missing: a time as unix seconds (1700000000.5) or RFC 3339");
            }
            return fallback;
        }
        Long millis = secondsInMillis(text);
        if (millis != null) {
            return inRange(name, millis);
        }
        try {
            return inRange(name, OffsetDateTime.parse(text).toInstant().toEpochMilli());
        } catch (DateTimeParseException | ArithmeticException e) {
            throw ApiException.badParameter(name, "cannot parse \"" + text + "\" to a valid timestamp: unix seconds "
                    + "(1700000000.5) or RFC 3339 (2026-12-02T10:00:00Z)");
        }
    }

    /** A time within the years 0000 to 9999 (as row keys hold them, negative down to -9999): a 400 outside. */
    static long inRange(String name, long millis) {
        if (Math.abs(millis) > RowKey.MAX_EPOCH_MILLIS) {
            throw ApiException.badParameter(name, "the time is outside the years -9999 to 9999");
        }
        return millis;
    }

    /** A duration: seconds as a number ({@code 15}, {@code 0.5}, as Grafana sends steps) or PromQL's ({@code 15s}, {@code 1m30s}). */
    static long duration(Context ctx, String name, Long fallback) {
        String text = param(ctx, name);
        if (text == null || text.isEmpty()) {
            if (fallback == null) {
                throw ApiException.badParameter(name, "missing: a duration such as 15s, 1m or 15 (seconds)");
            }
            return fallback;
        }
        Long millis = secondsInMillis(text);
        if (millis != null) {
            return millis;
        }
        try {
            return PromQl.duration(text);
        } catch (PromQlException e) {
            throw ApiException.badParameter(name, "cannot parse \"" + text + "\" to a valid duration such as 15s, "
                    + "1m30s or 15 (seconds)");
        }
    }

    /** Seconds as a decimal number ({@code 1700000000.5}) in whole milliseconds (finer digits dropped); null if not one. */
    static Long secondsInMillis(String text) {
        if (!SECONDS.matcher(text).matches()) {
            return null;
        }
        try {
            return new BigDecimal(text).movePointRight(3).setScale(0, RoundingMode.FLOOR).longValueExact();
        } catch (NumberFormatException | ArithmeticException notANumber) {
            return null;
        }
    }

    static long lookback(Context ctx) {
        long lookback = duration(ctx, "lookback_delta", Leaf.DEFAULT_LOOKBACK_MILLIS);
        if (lookback <= 0 || lookback > RowKey.MAX_EPOCH_MILLIS) {
            throw ApiException.badParameter("lookback_delta", "must be longer than 0 and at most 10,000 years");
        }
        return lookback;
    }

    static String encode(Map<String, List<String>> parameters) {
        StringBuilder query = new StringBuilder();
        parameters.forEach((name, values) -> values.forEach(value -> {
            if (!query.isEmpty()) {
                query.append('&');
            }
            query.append(URLEncoder.encode(name, StandardCharsets.UTF_8)).append('=')
                    .append(URLEncoder.encode(value, StandardCharsets.UTF_8));
        }));
        return query.toString();
    }

    /** The instants of a range query, each bad form a 400 in Prometheus' words. */
    static Instants instants(long start, long end, long step) {
        if (end < start) {
            throw ApiException.badParameter("end", "end timestamp must not be before start time");
        }
        if (step <= 0) {
            throw ApiException.badParameter("step", "zero or negative query resolution step widths are not accepted. "
                    + "Try a positive integer");
        }
        // end - start overflows from a start near Long.MIN_VALUE ms (-9223372036854775.808 s): the wrapped span, negative,
        // passed this check and the query ran for about 10^14 instants (HttpFuzzIT, seed 2622281470453).
        if (Instants.span(start, end) / step >= Instants.MAX_POINTS) {
            throw ApiException.badParameter("step", "exceeded maximum resolution of " + Instants.MAX_POINTS + " points per "
                    + "timeseries. Try decreasing the query resolution (?step=XX)");
        }
        return new Instants(start, end, step);
    }
}
