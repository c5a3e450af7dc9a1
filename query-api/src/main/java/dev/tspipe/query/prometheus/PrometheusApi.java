package dev.tspipe.query.prometheus;

import dev.tspipe.query.promql.PromQuery;
import dev.tspipe.query.promql.Leaf;
import dev.tspipe.query.promql.Instants;
import dev.tspipe.query.promql.PartitionSeries;
import dev.tspipe.query.promql.SeriesSelection;
import dev.tspipe.query.promql.QueryBudget;
import dev.tspipe.query.promql.PartitionReader;
import dev.tspipe.query.promql.DeviceLabels;
import dev.tspipe.model.keys.DistributionKey;
import dev.tspipe.model.keys.KeyLayout;
import dev.tspipe.model.keys.RowKey;
import dev.tspipe.model.keys.SeriesId;
import dev.tspipe.model.keys.DevicePartitioner;
import dev.tspipe.query.error.ApiException;
import dev.tspipe.query.http.AnswerHeaders;
import dev.tspipe.query.series.SeriesReader;
import dev.tspipe.query.series.StoreSeriesSource;
import dev.tspipe.query.promql.SeriesSource;
import dev.tspipe.query.promql.Expr;
import dev.tspipe.query.promql.PromQl;
import dev.tspipe.query.promql.PromQlException;
import dev.tspipe.query.routing.Forwarder;
import dev.tspipe.query.routing.ScatterGather;
import io.javalin.http.Context;
import org.apache.kafka.streams.state.HostInfo;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.BiFunction;
import java.util.stream.IntStream;

/**
 * Prometheus' HTTP API (its docs/querying/api.md) under {@code /prometheus/api/v1/}, for Grafana's Prometheus data
 * source and Prometheus' own tools: {@code query}, {@code query_range}, {@code series}, {@code labels},
 * {@code label/{name}/values} and {@code metadata}, by GET or by POST with a form body (docs/query-api.md,
 * "Prometheus API").
 *
 * <p>A query reads partitions, not single series: its leaf is computed by the instance that has each partition it
 * needs (the one partition of a device named with {@code device="..."}, else all of them, each read the way a
 * series is: active task, standby, forwarded; in parallel), and the instance that was asked aggregates. A partition
 * that no copy can answer makes the answer a 503: a dashboard then shows an error rather than a line that is
 * silently short. A partition read from a standby is named in the answer's {@code warnings}.
 */
public final class PrometheusApi {

    private static final String FORM = "tspipe.prometheus.form";
    private static final com.fasterxml.jackson.databind.ObjectMapper JSON = new com.fasterxml.jackson.databind.ObjectMapper();
    /** Seconds as a plain decimal (an exponent of at most two digits): a longer one would be expanded before it is refused. */
    private static final java.util.regex.Pattern SECONDS =
            java.util.regex.Pattern.compile("[+-]?(\\d{1,20}(\\.\\d{0,20})?|\\.\\d{1,20})([eE][+-]?\\d{1,2})?");

    /** The errorType of a query that ran out of time, and the code of its {@link ApiException}. */
    static final String TIMEOUT = "timeout";

    /** The route other instances are asked for their partitions' part of a query. */
    public static final String PARTITION_PATH = "/prometheus/internal/partition";

    private final KeyLayout layout;
    private final PartitionReads reads;
    private final PartitionReader reader;
    private final SeriesReader seriesReader;
    private final BiFunction<Context, String, String> tenantOnly;
    private final Clock clock;
    private final DeviceLabels metadata;
    private final ScatterGather gather;

    /**
     * @param tenantOnly the one tenant a request may read, from the request and its {@code tenant} parameter (null when
     *                   absent): its token's, or the one it names, or null for any; throws the 403 of a request for
     *                   another tenant than its token's, the 400 of a tenant in a single-tenant deployment
     * @param metadata   the labels of each device's metadata, matchable and shown as labels of its series
     * @param gather     reads the partitions a query needs, here and at the instances that have them
     */
    public PrometheusApi(KeyLayout layout, PartitionReads reads, SeriesReader seriesReader,
                         BiFunction<Context, String, String> tenantOnly, Clock clock, DeviceLabels metadata,
                         ScatterGather gather) {
        this.layout = layout;
        this.reads = reads;
        this.reader = new PartitionReader(layout);
        this.seriesReader = seriesReader;
        this.tenantOnly = tenantOnly;
        this.clock = clock;
        this.metadata = metadata;
        this.gather = gather;
    }

    /** The public routes, each for GET and POST (the OpenAPI test compares them with the document). */
    public static final List<String> PATHS = List.of("/prometheus/api/v1/query", "/prometheus/api/v1/query_range",
            "/prometheus/api/v1/series", "/prometheus/api/v1/labels", "/prometheus/api/v1/label/{name}/values",
            "/prometheus/api/v1/metadata", "/prometheus/api/v1/query_exemplars", "/prometheus/api/v1/rules");

    /** The routes, {@link #PATHS} then the internal one: path, then handler. */
    public Map<String, io.javalin.http.Handler> routes() {
        Map<String, io.javalin.http.Handler> routes = new LinkedHashMap<>();
        routes.put(PATHS.get(0), this::query);
        routes.put(PATHS.get(1), this::queryRange);
        routes.put(PATHS.get(2), this::series);
        routes.put(PATHS.get(3), this::labels);
        routes.put(PATHS.get(4), this::labelValues);
        routes.put(PATHS.get(5), this::metadata);
        routes.put(PATHS.get(6), ctx -> answer(ctx, PromJson.strings(List.of()), List.of()));
        routes.put(PATHS.get(7), ctx -> answer(ctx, json -> {
            json.writeStartObject();
            json.writeArrayFieldStart("groups");
            json.writeEndArray();
            json.writeEndObject();
        }, List.of()));
        routes.put(PARTITION_PATH, this::partition);
        return routes;
    }

    // -----------------------------------------------------------------------------------
    // Queries

    private void query(Context ctx) {
        long time = time(ctx, "time", clock.millis());
        PromQuery query = parse(ctx);
        if (query.isNumber()) {
            answer(ctx, PromJson.scalar(query.number(), time), List.of());
            return;
        }
        List<String> warnings = new ArrayList<>();
        Instants at = Instants.single(time);
        List<PromQuery.Labeled> result = query.evaluate(values(ctx, query, at, warnings));
        answer(ctx, PromJson.vector(result, time), warnings);
    }

    private void queryRange(Context ctx) {
        long start = time(ctx, "start", null);
        long end = time(ctx, "end", null);
        Instants instants = instants(start, end, duration(ctx, "step", null));
        PromQuery query = parse(ctx);
        if (query.isNumber()) {
            double[] values = new double[instants.count()];
            java.util.Arrays.fill(values, query.number());
            answer(ctx, PromJson.matrix(List.of(new PromQuery.Labeled(Map.of(), values)), instants), List.of());
            return;
        }
        List<String> warnings = new ArrayList<>();
        List<PromQuery.Labeled> result = query.evaluate(values(ctx, query, instants, warnings));
        answer(ctx, PromJson.matrix(result, instants), warnings);
    }

    /** The instants of a range query, each bad form a 400 in Prometheus' words. */
    private static Instants instants(long start, long end, long step) {
        if (end < start) {
            throw ApiException.badParameter("end", "end timestamp must not be before start time");
        }
        if (step <= 0) {
            throw ApiException.badParameter("step", "zero or negative query resolution step widths are not accepted. "
                    + "Try a positive integer");
        }
        if ((end - start) / step >= Instants.MAX_POINTS) {
            throw ApiException.badParameter("step", "exceeded maximum resolution of " + Instants.MAX_POINTS + " points per "
                    + "timeseries. Try decreasing the query resolution (?step=XX)");
        }
        return new Instants(start, end, step);
    }

    private PromQuery parse(Context ctx) {
        String text = required(ctx, "query");
        try {
            return PromQuery.parse(text, lookback(ctx), tenant(ctx), metadata);
        } catch (PromQlException e) {
            throw ApiException.badParameter("query", e.getMessage());
        }
    }

    /** The leaf's values of every series it picks, from every partition it needs. */
    private List<PartitionSeries.Values> values(Context ctx, PromQuery query, Instants instants, List<String> warnings) {
        Leaf leaf = query.leaf();
        Map<String, List<String>> internal = new LinkedHashMap<>();
        internal.put("mode", List.of("values"));
        internal.put("query", List.of(required(ctx, "query")));
        internal.put("start_ms", List.of(Long.toString(instants.start())));
        internal.put("end_ms", List.of(Long.toString(instants.end())));
        internal.put("step_ms", List.of(Long.toString(instants.step())));
        internal.put("lookback_ms", List.of(Long.toString(lookback(ctx))));
        List<PartitionSeries.Values> values = gather(ctx, List.of(leaf.selection()), internal,
                (stores, budget) -> reader.values(source(stores), leaf, instants, budget), warnings);
        PartitionReader.requireBounded(values.size(), instants);
        return values;
    }

    // -----------------------------------------------------------------------------------
    // Series, labels, metadata

    private void series(Context ctx) {
        if (params(ctx, "match[]").isEmpty()) {
            throw ApiException.badParameter("match[]", "no match[] parameter provided");
        }
        List<String> warnings = new ArrayList<>();
        List<Map<String, String>> sets = limited(ctx, selected(ctx, warnings), warnings);
        answer(ctx, PromJson.labelSets(sets), warnings);
    }

    private void labels(Context ctx) {
        List<String> warnings = new ArrayList<>();
        Set<String> names = new TreeSet<>();
        selected(ctx, warnings).forEach(labels -> names.addAll(labels.keySet()));
        answer(ctx, PromJson.strings(limited(ctx, List.copyOf(names), warnings)), warnings);
    }

    private void labelValues(Context ctx) {
        String name = ctx.pathParam("name");
        List<String> warnings = new ArrayList<>();
        Set<String> values = new TreeSet<>();
        selected(ctx, warnings).forEach(labels -> {
            String value = labels.get(name);
            if (value != null) {
                values.add(value);
            }
        });
        answer(ctx, PromJson.strings(limited(ctx, List.copyOf(values), warnings)), warnings);
    }

    private void metadata(Context ctx) {
        List<String> warnings = new ArrayList<>();
        String metric = param(ctx, "metric");
        Set<String> metrics = new TreeSet<>();
        selected(ctx, warnings).forEach(labels -> metrics.add(labels.get(SeriesSelection.NAME)));
        if (metric != null && !metric.isEmpty()) {
            metrics.retainAll(Set.of(metric));
        }
        answer(ctx, PromJson.metadata(limited(ctx, List.copyOf(metrics), warnings)), warnings);
    }

    /**
     * The labels of the series that any {@code match[]} picks (every series without one), whose newest reading is at or
     * after {@code start}, in the order of their text; each series' labels (its device's metadata with them) are made once.
     */
    private List<Map<String, String>> selected(Context ctx, List<String> warnings) {
        List<String> matches = params(ctx, "match[]");
        List<SeriesSelection> selections = selections(ctx);
        long since = time(ctx, "start", Long.MIN_VALUE);
        Map<String, List<String>> internal = new LinkedHashMap<>();
        internal.put("mode", List.of("series"));
        internal.put("match[]", matches);
        internal.put("since_ms", List.of(Long.toString(since)));
        List<Map<String, String>> labels = new ArrayList<>();
        gather(ctx, selections, internal, (stores, budget) -> seriesOf(stores, selections, since, budget), warnings)
                .forEach(one -> labels.add(SeriesSelection.labels(one.series(), metadata)));
        labels.sort(java.util.Comparator.comparing(Map::toString));
        return labels;
    }

    /** The selections of the {@code match[]} parameters, for the tenant the request may read; every series without one. */
    private List<SeriesSelection> selections(Context ctx) {
        String tenant = tenant(ctx);
        List<String> matches = params(ctx, "match[]");
        if (matches.size() > QueryBudget.MAX_MATCHES) {
            throw ApiException.badParameter("match[]", matches.size() + " match[] given; at most " + QueryBudget.MAX_MATCHES
                    + " per request: combine selectors with a regular expression (device=~\"a|b\") or split the request");
        }
        List<SeriesSelection> selections = new ArrayList<>();
        for (String match : matches) {
            try {
                Expr expr = PromQl.parse(match);
                if (!(expr instanceof Expr.VectorSelector selector)) {
                    throw ApiException.badParameter("match[]", "'" + match + "' is not a series selector such as "
                            + "metric{device=\"d\"}");
                }
                selections.add(new SeriesSelection(selector.matchers(), tenant, metadata));
            } catch (PromQlException e) {
                throw ApiException.badParameter("match[]", e.getMessage());
            }
        }
        if (selections.isEmpty()) {
            selections.add(new SeriesSelection(List.of(), tenant, metadata));
        }
        return selections;
    }

    private PartitionSeries seriesOf(SeriesReader.Stores stores, List<SeriesSelection> selections, long since,
                                     QueryBudget budget) {
        Map<SeriesId, PartitionSeries.Values> union = new LinkedHashMap<>();
        for (SeriesSelection selection : selections) {
            reader.series(source(stores), selection, since, budget).series().forEach(one -> union.putIfAbsent(one.series(), one));
        }
        return new PartitionSeries(List.copyOf(union.values()));
    }

    /** The engine's view of one copy of a partition's stores. */
    private SeriesSource source(SeriesReader.Stores stores) {
        return new StoreSeriesSource(layout, seriesReader, stores);
    }

    private <T> List<T> limited(Context ctx, List<T> all, List<String> warnings) {
        String text = param(ctx, "limit");
        if (text == null || text.isEmpty()) {
            return all;
        }
        int limit;
        try {
            limit = Integer.parseInt(text);
        } catch (NumberFormatException e) {
            throw ApiException.badParameter("limit", "'" + text + "' is not a whole number");
        }
        if (limit <= 0 || all.size() <= limit) {
            return all;
        }
        warnings.add("results truncated due to limit");
        return all.subList(0, limit);
    }

    // -----------------------------------------------------------------------------------
    // Partitions

    /**
     * Every partition's part: the one partition of the device when every selection names the same device (and its
     * tenant is known), else all; read by the {@link ScatterGather}, one request per other instance for all the
     * partitions it has. A partition that no copy can answer is a 503. The request's {@link QueryBudget} is shared out
     * equally among the partitions; another instance is sent the sum of its partitions' parts as {@code regex_steps}
     * and {@code timeout_ms}.
     */
    private List<PartitionSeries.Values> gather(Context ctx, List<SeriesSelection> selections,
                                                Map<String, List<String>> internal,
                                                BiFunction<SeriesReader.Stores, QueryBudget, PartitionSeries> local,
                                                List<String> warnings) {
        QueryBudget budget = QueryBudget.full(clock);
        int count = partitionCount();
        String tenant = tenant(ctx);
        if (tenant != null) {
            internal.put("tenant", List.of(tenant));
        }
        List<Integer> partitions = onePartition(selections, count).map(List::of)
                .orElseGet(() -> IntStream.range(0, count).boxed().toList());
        Map<Integer, QueryBudget> shares = new TreeMap<>();
        partitions.forEach(p -> shares.put(p, budget.share(partitions.size())));
        String authorization = ctx.header("Authorization");
        ScatterGather.Result<PartitionSeries> result = gather.read(reads.plans(), shares.keySet(),
                (p, stale) -> reads.local(stores -> local.apply(stores, shares.get(p)), p, stale),
                (host, asked) -> remote(host, asked, internal, shares, authorization));
        List<PartitionSeries.Values> values = new ArrayList<>();
        result.answers().forEach((partition, series) -> {
            if (result.stale().contains(partition)) {
                Long lag = result.lags().get(partition);
                warnings.add("partition " + partition + " was read from a copy " + (lag == null ? "" : lag + " records ")
                        + "behind (a standby, while the partition moves between instances)");
            }
            values.addAll(series.series());
        });
        if (!result.unanswered().isEmpty()) {
            budget.checkDeadline();   // a copy that failed for want of time: the answer is the timeout
            List<String> failures = new ArrayList<>();
            result.unanswered().forEach((partition, attempts) ->
                    failures.add("partition " + partition + ": " + String.join("; ", attempts)));
            throw ApiException.unavailable("no instance can answer for " + failures.size() + " of the " + partitions.size()
                    + " partitions the query needs right now (" + String.join(" | ", failures) + "); retry");
        }
        return values;
    }

    /**
     * Asks another instance for its part of several partitions on the internal route; empty when it cannot be reached or
     * answered 5xx (each partition then tries its next copy). Any other error is the query's answer.
     */
    private Optional<ScatterGather.Batch<PartitionSeries>> remote(HostInfo host, Set<Integer> asked,
                                                                  Map<String, List<String>> internal,
                                                                  Map<Integer, QueryBudget> shares, String authorization) {
        Map<String, List<String>> parameters = new LinkedHashMap<>(internal);
        long regexSteps = 0;
        long millis = Long.MAX_VALUE;
        StringBuilder path = new StringBuilder(PARTITION_PATH);
        for (int p : asked) {
            regexSteps += shares.get(p).regexSteps();
            millis = Math.min(millis, shares.get(p).remainingMillis());
            path.append(path.length() == PARTITION_PATH.length() ? '?' : '&').append("partition=").append(p);
        }
        parameters.put("regex_steps", List.of(Long.toString(regexSteps)));
        parameters.put("timeout_ms", List.of(Long.toString(millis)));
        Optional<Forwarder.Answer> answer = reads.forward(host, new Forwarder.Request(path.toString(), authorization,
                encode(parameters)));
        if (answer.isEmpty() || answer.get().status() >= 500) {
            return Optional.empty();
        }
        if (answer.get().status() != 200) {
            // A 4xx of the instance that has the partitions (too many series, say) is the answer.
            throw relayedError(answer.get().status(), answer.get().body());
        }
        try {
            return Optional.of(PartitionsAnswer.read(answer.get().body(), asked));
        } catch (java.io.IOException e) {
            return Optional.empty();
        }
    }

    private Optional<Integer> onePartition(List<SeriesSelection> selections, int count) {
        String key = null;
        for (SeriesSelection selection : selections) {
            Optional<String> device = selection.device();
            Optional<String> tenant = selection.tenant();
            if (device.isEmpty() || layout.multiTenant() && tenant.isEmpty()) {
                return Optional.empty();
            }
            String one = DistributionKey.of(layout.multiTenant() ? tenant.get() : null, device.get());
            if (key != null && !key.equals(one)) {
                return Optional.empty();
            }
            key = one;
        }
        return Optional.of(DevicePartitioner.partitionOf(key.getBytes(StandardCharsets.UTF_8), count));
    }

    private int partitionCount() {
        return reads.partitionCount().orElseThrow(() -> ApiException.unavailable("the application has not started "
                + "yet: its partitions are not known; retry"));
    }

    /**
     * The internal route's partitions ({@code partition} given once or more): each one of the topic's, else a 400 (not a
     * 503 "not queryable here", which would send the asker to another copy of a partition that no instance has).
     */
    private Set<Integer> partitionNumbers(Context ctx) {
        List<String> texts = params(ctx, "partition");
        if (texts.isEmpty()) {
            throw ApiException.badParameter("partition", "missing");
        }
        List<Long> numbers = new ArrayList<>();
        for (String text : texts) {
            if (text.isEmpty()) {
                throw ApiException.badParameter("partition", "missing");
            }
            try {
                numbers.add(Long.parseLong(text));
            } catch (NumberFormatException e) {
                throw ApiException.badParameter("partition", "'" + text + "' is not a whole number");
            }
        }
        int count = partitionCount();
        Set<Integer> partitions = new TreeSet<>();
        for (long partition : numbers) {
            if (partition < 0 || partition >= count) {
                throw ApiException.badParameter("partition", "'" + partition + "' is not a partition of the readings topic, "
                        + "which has 0.." + (count - 1));
            }
            partitions.add((int) partition);
        }
        return partitions;
    }

    /**
     * The internal route: this instance's copies of the partitions asked compute a query's leaf or list its series
     * ({@link PartitionsAnswer}); a partition not read here is absent (the asker tries its next copy), and when none
     * is, the answer is a 503.
     */
    private void partition(Context ctx) {
        Set<Integer> partitions = partitionNumbers(ctx);
        String mode = required(ctx, "mode");
        QueryBudget budget = QueryBudget.forwarded(clock, optionalNumber(ctx, "regex_steps"),
                optionalNumber(ctx, "timeout_ms"));
        BiFunction<SeriesReader.Stores, QueryBudget, PartitionSeries> local;
        if (mode.equals("values")) {
            PromQuery query;
            try {
                long lookback = number(ctx, "lookback_ms");
                if (lookback <= 0 || lookback > RowKey.MAX_EPOCH_MILLIS) {
                    throw ApiException.badParameter("lookback_ms", "must be longer than 0 and at most 10,000 years");
                }
                query = PromQuery.parse(required(ctx, "query"), lookback, tenant(ctx), metadata);
            } catch (PromQlException e) {
                throw ApiException.badParameter("query", e.getMessage());
            }
            if (query.isNumber()) {
                throw ApiException.badParameter("query", "a number reads no partition");
            }
            Instants instants = instants(inRange("start_ms", number(ctx, "start_ms")), inRange("end_ms", number(ctx, "end_ms")),
                    number(ctx, "step_ms"));
            local = (stores, share) -> reader.values(source(stores), query.leaf(), instants, share);
        } else if (mode.equals("series")) {
            List<SeriesSelection> selections = selections(ctx);
            long since = number(ctx, "since_ms");
            local = (stores, share) -> seriesOf(stores, selections, since, share);
        } else {
            throw ApiException.badParameter("mode", "'" + mode + "' is not values or series");
        }
        Map<Integer, QueryBudget> shares = new TreeMap<>();
        partitions.forEach(p -> shares.put(p, budget.share(partitions.size())));
        ScatterGather.Result<PartitionSeries> result;
        try {
            result = gather.readHere(reads.plans(), partitions,
                    (p, stale) -> reads.local(stores -> local.apply(stores, shares.get(p)), p, stale));
        } catch (ApiException e) {
            if (e.code().equals(TIMEOUT)) {
                // Not a 503: the instance that asked would try the partition's next copy, which would have no more time.
                throw ApiException.relayed(422, TIMEOUT, e.getMessage());
            }
            throw e;
        }
        if (result.answers().isEmpty()) {
            // 503: the instance that asked tries the partitions' next copies.
            List<String> failures = new ArrayList<>();
            result.unanswered().forEach((p, attempts) -> failures.add(partitions.size() == 1 ? String.join("; ", attempts)
                    : "partition " + p + ": " + String.join("; ", attempts)));
            throw ApiException.unavailable(String.join(" | ", failures));
        }
        if (!result.stale().isEmpty()) {
            ctx.header(AnswerHeaders.STALE, "true");
        }
        ctx.contentType("application/json").result(PartitionsAnswer.write(result));
    }

    // -----------------------------------------------------------------------------------
    // Parameters: from the query string or a form body, as Prometheus takes them

    private String tenant(Context ctx) {
        return tenantOnly.apply(ctx, param(ctx, "tenant"));
    }

    private static String param(Context ctx, String name) {
        String value = ctx.queryParam(name);
        if (value == null) {
            List<String> values = form(ctx).getOrDefault(name, List.of());
            value = values.isEmpty() ? null : values.get(0);
        }
        return value;
    }

    private static List<String> params(Context ctx, String name) {
        List<String> values = new ArrayList<>(ctx.queryParams(name));
        values.addAll(form(ctx).getOrDefault(name, List.of()));
        return values;
    }

    /** The request's form body (a POST of {@code application/x-www-form-urlencoded}), read once, as UTF-8 whatever charset it names. */
    private static Map<String, List<String>> form(Context ctx) {
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

    private static String required(Context ctx, String name) {
        String value = param(ctx, name);
        if (value == null || value.isEmpty()) {
            throw ApiException.badParameter(name, "missing");
        }
        return value;
    }

    private static Long optionalNumber(Context ctx, String name) {
        String text = param(ctx, name);
        return text == null || text.isEmpty() ? null : number(ctx, name);
    }

    private static long number(Context ctx, String name) {
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
    private static long inRange(String name, long millis) {
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
    private static Long secondsInMillis(String text) {
        if (!SECONDS.matcher(text).matches()) {
            return null;
        }
        try {
            return new BigDecimal(text).movePointRight(3).setScale(0, RoundingMode.FLOOR).longValueExact();
        } catch (NumberFormatException | ArithmeticException notANumber) {
            return null;
        }
    }

    private static long lookback(Context ctx) {
        long lookback = duration(ctx, "lookback_delta", Leaf.DEFAULT_LOOKBACK_MILLIS);
        if (lookback <= 0 || lookback > RowKey.MAX_EPOCH_MILLIS) {
            throw ApiException.badParameter("lookback_delta", "must be longer than 0 and at most 10,000 years");
        }
        return lookback;
    }

    private static String encode(Map<String, List<String>> parameters) {
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

    private static void answer(Context ctx, PromJson.Data data, List<String> warnings) {
        ctx.contentType("application/json").result(PromJson.success(data, warnings));
    }

    /**
     * The Prometheus envelope of an error: {@code errorType} {@code timeout} for a query out of time (code
     * {@value #TIMEOUT}), else from the status as Prometheus maps them.
     */
    public static byte[] error(int status, String code, String message) {
        String type = TIMEOUT.equals(code) ? TIMEOUT : switch (status) {
            case 400 -> "bad_data";
            case 422 -> "execution";
            case 404 -> "not_found";
            case 503 -> "unavailable";
            case 500 -> "internal";
            case 401 -> "unauthorized";
            case 403 -> "forbidden";
            default -> status >= 500 ? "internal" : "bad_data";
        };
        return PromJson.error(type, message);
    }

    /**
     * The error another instance answered for a partition, to hand on: its status and message, but a 503 timeout
     * (with {@code Retry-After}) when its errorType is {@code timeout}.
     */
    public static ApiException relayedError(int status, byte[] body) {
        String message = errorMessage(body);
        try {
            if (TIMEOUT.equals(JSON.readTree(body).path("errorType").asText(null))) {
                return ApiException.timeout(message);
            }
        } catch (java.io.IOException notJson) {
            // not Prometheus' envelope: relayed as it is, below
        }
        return ApiException.relayed(status, message);
    }

    /** The message of an error in Prometheus' envelope or tspipe's, or the body itself when it is neither. */
    public static String errorMessage(byte[] body) {
        try {
            com.fasterxml.jackson.databind.JsonNode error = JSON.readTree(body);
            // Prometheus' envelope has the message in "error"; tspipe's own shape (a refusal before any route), in "message".
            String message = error.path(error.has("errorType") ? "error" : "message").asText(null);
            if (message != null) {
                return message;
            }
        } catch (java.io.IOException notJson) {
            // the body as it is, below
        }
        return new String(body, StandardCharsets.UTF_8);
    }

}
