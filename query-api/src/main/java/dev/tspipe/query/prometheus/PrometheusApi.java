package dev.tspipe.query.prometheus;

import dev.tspipe.query.auth.TenantPolicy;
import dev.tspipe.query.promql.PromQuery;
import dev.tspipe.query.promql.Leaf;
import dev.tspipe.query.promql.Instants;
import dev.tspipe.query.promql.PartitionSeries;
import dev.tspipe.query.promql.SeriesSelection;
import dev.tspipe.query.promql.QueryBudget;
import dev.tspipe.query.promql.PartitionReader;
import dev.tspipe.query.promql.DeviceLabels;
import dev.tspipe.model.keys.KeyLayout;
import dev.tspipe.model.keys.RowKey;
import dev.tspipe.model.keys.SeriesId;
import dev.tspipe.query.error.ApiException;
import dev.tspipe.query.http.AnswerHeaders;
import dev.tspipe.query.series.SeriesReader;
import dev.tspipe.query.series.StoreSeriesSource;
import dev.tspipe.query.promql.SeriesSource;
import dev.tspipe.query.promql.Expr;
import dev.tspipe.query.promql.PromQl;
import dev.tspipe.query.promql.PromQlException;
import dev.tspipe.query.routing.ScatterGather;
import io.javalin.http.Context;

import java.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.BiFunction;

import static dev.tspipe.query.prometheus.PromParams.duration;
import static dev.tspipe.query.prometheus.PromParams.inRange;
import static dev.tspipe.query.prometheus.PromParams.lookback;
import static dev.tspipe.query.prometheus.PromParams.number;
import static dev.tspipe.query.prometheus.PromParams.optionalNumber;
import static dev.tspipe.query.prometheus.PromParams.param;
import static dev.tspipe.query.prometheus.PromParams.params;
import static dev.tspipe.query.prometheus.PromParams.required;
import static dev.tspipe.query.prometheus.PromParams.time;

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


    private static final String V1 = "/prometheus/api/v1/";

    /** The route other instances are asked for their partitions' part of a query. */
    public static final String PARTITION_PATH = "/prometheus/internal/partition";

    private final KeyLayout layout;
    private final PartitionReads reads;
    private final PartitionReader reader;
    private final SeriesReader seriesReader;
    private final TenantPolicy tenants;
    private final Clock clock;
    private final DeviceLabels metadata;
    private final ScatterGather gather;
    private final PartitionGather partitions;

    /**
     * @param tenants    the one tenant a request may read ({@link TenantPolicy#readable}), from the request and its
     *                   {@code tenant} parameter
     * @param metadata   the labels of each device's metadata, matchable and shown as labels of its series
     * @param gather     reads the partitions a query needs, here and at the instances that have them
     */
    public PrometheusApi(KeyLayout layout, PartitionReads reads, SeriesReader seriesReader,
                         TenantPolicy tenants, Clock clock, DeviceLabels metadata,
                         ScatterGather gather) {
        this.layout = layout;
        this.reads = reads;
        this.reader = new PartitionReader(layout);
        this.seriesReader = seriesReader;
        this.tenants = tenants;
        this.clock = clock;
        this.metadata = metadata;
        this.gather = gather;
        this.partitions = new PartitionGather(layout, reads, clock, gather);
    }

    /**
     * The public routes, each for GET and POST, as the OpenAPI document lists them; QueryServerTest compares this list
     * with what {@link #routes} serves, so a route cannot be served undocumented or documented unserved.
     */
    public static final List<String> PATHS = List.of(V1 + "query", V1 + "query_range", V1 + "series", V1 + "labels",
            V1 + "label/{name}/values", V1 + "metadata", V1 + "query_exemplars", V1 + "rules");

    /** The routes, the public ones then the internal one ({@link #PARTITION_PATH}): path, then handler. */
    public Map<String, io.javalin.http.Handler> routes() {
        Map<String, io.javalin.http.Handler> routes = new LinkedHashMap<>();
        routes.put(V1 + "query", this::query);
        routes.put(V1 + "query_range", this::queryRange);
        routes.put(V1 + "series", this::series);
        routes.put(V1 + "labels", this::labels);
        routes.put(V1 + "label/{name}/values", this::labelValues);
        routes.put(V1 + "metadata", this::metadata);
        routes.put(V1 + "query_exemplars", ctx -> answer(ctx, PromJson.strings(List.of()), List.of()));
        routes.put(V1 + "rules", ctx -> answer(ctx, json -> {
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
        Instants instants = PromParams.instants(start, end, duration(ctx, "step", null));
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
        List<PartitionSeries.Values> values = partitions.gather(tenant(ctx), ctx.header("Authorization"),
                List.of(leaf.selection()), internal,
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
        partitions.gather(tenant(ctx), ctx.header("Authorization"), selections, internal,
                        (stores, budget) -> seriesOf(stores, selections, since, budget), warnings)
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
     * The internal route: this instance's copies of the partitions asked compute a query's leaf or list its series
     * ({@link PartitionsAnswer}); a partition not read here is absent (the asker tries its next copy), and when none
     * is, the answer is a 503.
     */
    private void partition(Context ctx) {
        Set<Integer> partitions = this.partitions.numbers(params(ctx, "partition"));
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
            Instants instants = PromParams.instants(inRange("start_ms", number(ctx, "start_ms")), inRange("end_ms", number(ctx, "end_ms")),
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
            if (e.code().equals(PromErrors.TIMEOUT)) {
                // Not a 503: the instance that asked would try the partition's next copy, which would have no more time.
                throw ApiException.relayed(422, PromErrors.TIMEOUT, e.getMessage());
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

    private String tenant(Context ctx) {
        return tenants.readable(ctx, param(ctx, "tenant"));
    }

    private static void answer(Context ctx, PromJson.Data data, List<String> warnings) {
        ctx.contentType("application/json").result(PromJson.success(data, warnings));
    }


}
