package dev.tspipe.query.devices;

import dev.tspipe.query.auth.TenantPolicy;
import dev.tspipe.query.routing.ReadCounters;
import dev.tspipe.model.devices.DeviceFilter;
import dev.tspipe.model.devices.InvalidFilterException;
import dev.tspipe.model.keys.DistributionKey;
import dev.tspipe.query.series.DeviceAnswer;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tspipe.processor.devices.DeviceTable;
import dev.tspipe.model.keys.InvalidKeyException;
import dev.tspipe.model.keys.KeyLayout;
import dev.tspipe.model.keys.RowKey;
import dev.tspipe.model.keys.SeriesId;
import dev.tspipe.model.keys.DevicePartitioner;
import dev.tspipe.query.series.Answers;
import dev.tspipe.query.error.ApiException;
import dev.tspipe.query.http.AnswerHeaders;
import dev.tspipe.query.series.SeriesReader;
import dev.tspipe.query.routing.Forwarder;
import dev.tspipe.query.routing.PartitionPlans;
import dev.tspipe.query.routing.ScatterGather;
import dev.tspipe.schemas.Device;
import io.javalin.http.Context;
import io.javalin.http.Handler;
import org.apache.kafka.streams.state.HostInfo;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The routes of device metadata (docs/query-api.md, "Devices"): the list and one device, read from this node's copy of
 * the replicated device table, and the latest reading of a metric for every device a filter picks, read from the
 * instances that own those devices, one request per instance.
 */
public final class DevicesApi {

    /** The public routes (GET), in the order of {@link #routes()}. */
    public static final List<String> PATHS = List.of("/api/v1/devices", "/api/v1/devices/{device}",
            "/api/v1/metrics/{metric}/latest");
    /** The route (POST, a form of devices) another instance is asked for the latest readings of its devices. */
    public static final String LATEST_PATH = "/api/v1/internal/latest";

    /** The most devices one list answers; the table should hold at most {@value DeviceTable#MAX_ROWS}. */
    static final int MAX_LIMIT = DeviceTable.MAX_ROWS;
    static final int DEFAULT_LIMIT = 1_000;
    /** The most devices whose latest reading one request gathers. */
    public static final int MAX_FAN_OUT_DEVICES = 10_000;

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String LIMIT = "limit";

    /** This instance's copy of one partition, read as the query server reads it (active or stale, not-queryable as empty). */
    @FunctionalInterface
    public interface LocalPartitions {
        Optional<List<Answers.Latest>> read(Function<SeriesReader.Stores, List<Answers.Latest>> read, int partition,
                                            boolean stale);
    }

    private final DeviceDirectory directory;
    private final KeyLayout layout;
    private final SeriesReader reader;
    private final TenantPolicy tenants;
    private final LocalPartitions local;
    private final ScatterGather gather;
    private final PartitionPlans plans;
    private final Supplier<OptionalInt> partitionCount;
    private final BiFunction<HostInfo, Forwarder.Request, Optional<Forwarder.Answer>> forwarder;
    private final ReadCounters counters;

    /**
     * @param gather         reads partitions here or at their owners, one request per instance, failing over as single
     *                       reads do
     * @param plans          the plans of the latest-readings store's partitions
     * @param partitionCount the input topic's partition count, empty before Kafka Streams knows it
     */
    public DevicesApi(DeviceDirectory directory, KeyLayout layout, SeriesReader reader, TenantPolicy tenants, LocalPartitions local,
                      ScatterGather gather, PartitionPlans plans,
                      Supplier<OptionalInt> partitionCount,
                      BiFunction<HostInfo, Forwarder.Request, Optional<Forwarder.Answer>> forwarder,
                      ReadCounters counters) {
        this.directory = directory;
        this.layout = layout;
        this.reader = reader;
        this.tenants = tenants;
        this.local = local;
        this.gather = gather;
        this.plans = plans;
        this.partitionCount = partitionCount;
        this.forwarder = forwarder;
        this.counters = counters;
    }

    /** The GET routes, {@link #PATHS} in order: path, then handler. */
    public Map<String, Handler> routes() {
        Map<String, Handler> routes = new LinkedHashMap<>();
        routes.put(PATHS.get(0), this::list);
        routes.put(PATHS.get(1), this::one);
        routes.put(PATHS.get(2), this::latest);
        return routes;
    }

    /** The internal POST route: path, then handler. */
    public Map<String, Handler> internalRoutes() {
        return Map.of(LATEST_PATH, this::latestHere);
    }

    /** The metadata of a device, for answers that show it beside its data (null when the table has not got it). */
    public DeviceAnswer metadata(String tenant, String device) {
        return directory.get(tenant, device).map(DeviceAnswer::of).orElse(null);
    }

    // -----------------------------------------------------------------------------------

    private void list(Context ctx) {
        DeviceFilter filter = filter(ctx, Set.of(LIMIT));
        int limit = limit(ctx.queryParam(LIMIT));
        List<Device> devices = directory.matching(filter);
        ObjectNode answer = JSON.createObjectNode();
        answer.put("count", devices.size());
        answer.put("truncated", devices.size() > limit);
        ArrayNode list = answer.putArray("devices");
        devices.stream().limit(limit).forEach(device -> list.add(JSON.valueToTree(DeviceAnswer.of(device))));
        json(ctx, answer);
    }

    private void one(Context ctx) {
        String tenant = tenants.required(ctx);
        String id = ctx.pathParam("device");
        Device device = directory.get(tenant, id).orElseThrow(() -> ApiException.notFound("unknown-device",
                "no device '" + id + "'" + (tenant == null ? "" : " of tenant '" + tenant + "'") + " is in the device "
                        + "table; GET /api/v1/devices lists them, tspipe devices put adds one"));
        json(ctx, JSON.valueToTree(DeviceAnswer.of(device)));
    }

    /** The latest reading of the metric for every device the filter picks, gathered from their owners. */
    private void latest(Context ctx) {
        String metric = ctx.pathParam("metric");
        DeviceFilter filter = filter(ctx, Set.of());
        List<Device> devices = directory.matching(filter);
        if (devices.size() > MAX_FAN_OUT_DEVICES) {
            throw ApiException.unprocessable("the filter picks " + devices.size() + " devices; one request reads the "
                    + "latest reading of at most " + MAX_FAN_OUT_DEVICES + ": narrow it with site=, type= or "
                    + "label.<name>=<value>");
        }
        series(layout.multiTenant() ? "t" : null, "d", metric);     // a metric no key can hold is a 400
        List<SeriesId> series = new ArrayList<>(devices.size());
        for (Device device : devices) {
            SeriesId one = new SeriesId(device.getTenant(), device.getId(), metric);
            try {
                RowKey.seriesPrefix(layout, one);
                series.add(one);
            } catch (InvalidKeyException noSuchSeries) {
                // A device whose id no key can hold with this metric (or without the tenant the deployment needs) has no
                // such series: it is counted as picked, without a reading.
            }
        }
        int count = partitionCount.get().orElseThrow(() -> ApiException.unavailable("the application has not started "
                + "yet: its partitions are not known; retry"));
        Map<Integer, List<SeriesId>> byPartition = new TreeMap<>();
        for (SeriesId one : series) {
            int p = DevicePartitioner.partitionOf(one.distributionKey().getBytes(StandardCharsets.UTF_8), count);
            byPartition.computeIfAbsent(p, x -> new ArrayList<>()).add(one);
        }
        String authorization = ctx.header("Authorization");
        ScatterGather.Result<List<Answers.Latest>> result = gather.read(plans, byPartition.keySet(),
                (p, stale) -> local.read(stores -> readLatest(stores, byPartition.get(p)), p, stale),
                (host, partitions) -> {
                    List<SeriesId> asked = new ArrayList<>();
                    partitions.forEach(p -> asked.addAll(byPartition.get(p)));
                    counters.forwarded().run();
                    return remoteLatest(forwarder.apply(host, new Forwarder.Request(LATEST_PATH, authorization,
                            form(metric, asked))), partitions);
                });
        if (!result.stale().isEmpty()) {
            counters.stale().run();
            ctx.header(AnswerHeaders.STALE, "true");
        }
        List<Answers.Latest> readings = new ArrayList<>();
        result.answers().values().forEach(readings::addAll);
        readings.sort(Comparator.comparing(Answers.Latest::device)
                .thenComparing(Answers.Latest::tenant, Comparator.nullsFirst(Comparator.naturalOrder())));
        ObjectNode answer = JSON.createObjectNode();
        answer.put("metric", metric);
        answer.put("count", devices.size());
        answer.set("readings", JSON.valueToTree(readings));
        ArrayNode missing = answer.putArray("missing");
        List<String> reasons = new ArrayList<>();
        result.unanswered().forEach((p, attempts) -> {
            byPartition.get(p).forEach(one -> missing.add(one.distributionKey()));
            reasons.add("partition " + p + ": " + String.join("; ", attempts));
        });
        if (!reasons.isEmpty()) {
            answer.put("missingBecause", String.join(" | ", reasons));
        }
        json(ctx, answer);
    }

    /** The internal route: the latest readings of the devices in the form, from this instance's copies only. */
    private void latestHere(Context ctx) {
        String metric = ctx.formParam("metric");
        if (metric == null || metric.isEmpty()) {
            throw ApiException.badParameter("metric", "missing");
        }
        int count = partitionCount.get().orElseThrow(() -> ApiException.unavailable("the partitions are not known yet"));
        Map<Integer, List<SeriesId>> byPartition = new TreeMap<>();
        Set<String> tenantsAsked = new HashSet<>();
        for (String key : ctx.formParams("device")) {
            SeriesId one = seriesOfKey(key, metric);
            if (one.tenant() != null && tenantsAsked.add(one.tenant())) {
                tenants.readable(ctx, one.tenant());     // a token bound to a tenant reads that tenant only (403)
            }
            int p = DevicePartitioner.partitionOf(key.getBytes(StandardCharsets.UTF_8), count);
            byPartition.computeIfAbsent(p, x -> new ArrayList<>()).add(one);
        }
        ScatterGather.Result<List<Answers.Latest>> result = gather.readHere(plans, byPartition.keySet(),
                (p, stale) -> local.read(stores -> readLatest(stores, byPartition.get(p)), p, stale));
        ObjectNode answer = JSON.createObjectNode();
        ObjectNode partitions = answer.putObject("partitions");
        result.answers().forEach((p, readings) -> partitions.set(Integer.toString(p), JSON.valueToTree(readings)));
        ArrayNode stale = answer.putArray("stale");
        result.stale().forEach(stale::add);
        json(ctx, answer);
    }

    private List<Answers.Latest> readLatest(SeriesReader.Stores stores, List<SeriesId> series) {
        List<Answers.Latest> readings = new ArrayList<>();
        for (SeriesId one : series) {
            reader.latest(stores, one).ifPresent(readings::add);
        }
        return readings;
    }

    /** What another instance answered for {@code asked}: the partitions it read; empty when it failed (5xx, unreadable). */
    private static Optional<ScatterGather.Batch<List<Answers.Latest>>> remoteLatest(Optional<Forwarder.Answer> answer,
                                                                                   Set<Integer> asked) {
        if (answer.isEmpty() || answer.get().status() != 200) {
            return Optional.empty();
        }
        try {
            JsonNode body = JSON.readTree(answer.get().body());
            Map<Integer, List<Answers.Latest>> read = new TreeMap<>();
            for (int p : asked) {
                JsonNode readings = body.path("partitions").get(Integer.toString(p));
                if (readings != null) {
                    List<Answers.Latest> list = new ArrayList<>();
                    for (JsonNode one : readings) {
                        list.add(JSON.treeToValue(one, Answers.Latest.class));
                    }
                    read.put(p, list);
                }
            }
            Set<Integer> stale = new HashSet<>();
            body.path("stale").forEach(p -> stale.add(p.asInt()));
            return Optional.of(new ScatterGather.Batch<>(read, stale));
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    private static String form(String metric, List<SeriesId> series) {
        StringBuilder form = new StringBuilder("metric=").append(URLEncoder.encode(metric, StandardCharsets.UTF_8));
        for (SeriesId one : series) {
            form.append("&device=").append(URLEncoder.encode(one.distributionKey(), StandardCharsets.UTF_8));
        }
        return form.toString();
    }

    /** The series of a device key ({@code tenant/device} in a multi-tenant deployment) and a metric. */
    private SeriesId seriesOfKey(String key, String metric) {
        int slash = key.indexOf(DistributionKey.TENANT_SEPARATOR);
        if (layout.multiTenant() && slash > 0) {
            return series(key.substring(0, slash), key.substring(slash + DistributionKey.TENANT_SEPARATOR.length()), metric);
        }
        return series(null, key, metric);
    }

    /** The series, or a 400 when no row key can hold it (a metric too long, say). */
    private SeriesId series(String tenant, String device, String metric) {
        SeriesId series = new SeriesId(tenant, device, metric);
        try {
            RowKey.seriesPrefix(layout, series);
        } catch (InvalidKeyException e) {
            throw ApiException.badParameter("metric", e.getMessage());
        }
        return series;
    }

    private DeviceFilter filter(Context ctx, Set<String> others) {
        DeviceFilter filter = parseFilter(ctx.queryParamMap(), others);
        return filter.withTenant(tenants.readable(ctx, ctx.queryParam(DeviceFilter.TENANT)));
    }

    static int limit(String text) {
        if (text == null) {
            return DEFAULT_LIMIT;
        }
        try {
            int limit = Integer.parseInt(text);
            if (limit >= 1 && limit <= MAX_LIMIT) {
                return limit;
            }
        } catch (NumberFormatException notANumber) {
            // the message below
        }
        throw ApiException.badParameter(LIMIT, "'" + text + "' is not a whole number in 1.." + MAX_LIMIT
                + " (default " + DEFAULT_LIMIT + ")");
    }

    private static void json(Context ctx, JsonNode body) {
        try {
            ctx.status(200).contentType("application/json").result(JSON.writeValueAsBytes(body));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** {@link DeviceFilter#parse}, its refusal a 400 that names the parameter. */
    static DeviceFilter parseFilter(Map<String, List<String>> parameters, Set<String> others) {
        try {
            return DeviceFilter.parse(parameters, others);
        } catch (InvalidFilterException e) {
            throw ApiException.badParameter(e.parameter(), e.reason());
        }
    }
}
