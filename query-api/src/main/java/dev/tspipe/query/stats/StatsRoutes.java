package dev.tspipe.query.stats;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tspipe.model.keys.KeyLayout;
import dev.tspipe.query.auth.Scope;
import dev.tspipe.query.http.HttpJson;
import dev.tspipe.query.http.Route;
import dev.tspipe.query.http.RouteGroup;
import dev.tspipe.query.routing.Forwarder;
import dev.tspipe.query.routing.ScatterGather;
import dev.tspipe.query.routing.SeriesRouting;
import io.javalin.http.Context;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsMetadata;
import org.apache.kafka.streams.state.HostInfo;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * The cluster's statistics (docs/query-api.md, "Partition statistics", "Key-space heatmap"): each instance's local
 * figures of its partitions, merged by the instance that was asked.
 */
public final class StatsRoutes {

    private static final Logger LOG = LoggerFactory.getLogger(StatsRoutes.class);
    private static final ObjectMapper JSON = HttpJson.MAPPER;

    private final KafkaStreams streams;
    private final SeriesRouting routing;
    private final Forwarder forwarder;
    private final ScatterGather gather;
    private final Duration timeout;
    private final LocalPartitionStatistics statistics;
    private final KeyspaceHeatmap heatmap;

    /**
     * @param gather  asks the other instances, at most its per-query bound at once
     * @param timeout how long this instance waits for the others' statistics; one that has not answered by then is
     *                listed as unreachable
     */
    public StatsRoutes(KafkaStreams streams, KeyLayout layout, SeriesRouting routing, Forwarder forwarder,
                       ScatterGather gather, Duration timeout, long volumeGuidelineBytes) {
        this.streams = streams;
        this.routing = routing;
        this.forwarder = forwarder;
        this.gather = gather;
        this.timeout = timeout;
        this.heatmap = new KeyspaceHeatmap(streams, layout);
        this.statistics = new LocalPartitionStatistics(streams, self(), heatmap::name, volumeGuidelineBytes);
    }

    public RouteGroup routes() {
        return RouteGroup.of("stats", List.of(
                Route.get("/api/v1/stats/partitions", Scope.ADMIN, this::partitionStatistics),
                Route.get("/api/v1/stats/keyspace", Scope.ADMIN, this::keyspace)));
    }

    /** Every instance's local statistics of its partitions, merged ({@link #fromEveryInstance}). */
    private void partitionStatistics(Context ctx) {
        ObjectNode answer = JSON.createObjectNode();
        ArrayNode partitions = answer.putArray("partitions");
        List<JsonNode> all = new ArrayList<>();
        statistics.collect().forEach(p -> all.add(JSON.valueToTree(p)));
        answer.set("instances", fromEveryInstance(ctx, "/api/v1/stats/partitions", all));
        all.sort(Comparator.comparingInt(p -> p.path("partition").asInt()));
        partitions.addAll(all);
        HttpJson.write(ctx, 200, answer);
    }

    /** The key-space heatmap of every instance's partitions (docs/query-api.md, "Key-space heatmap"). */
    private void keyspace(Context ctx) {
        KeyspaceHeatmap.Request request = KeyspaceHeatmap.Request.parse(ctx.queryParam("from"), ctx.queryParam("to"),
                ctx.queryParam("metric"), ctx.queryParam("ranges"), System.currentTimeMillis());
        List<JsonNode> partitions = new ArrayList<>();
        heatmap.local(request).forEach(p -> partitions.add(JSON.valueToTree(p)));
        if (ctx.header(Forwarder.FORWARDED_HEADER) != null) {
            HttpJson.write(ctx, 200, JSON.createObjectNode().set("partitions", JSON.valueToTree(partitions)));
            return;
        }
        ArrayNode instances = fromEveryInstance(ctx, "/api/v1/stats/keyspace?" + request.query(), partitions);
        ObjectNode answer = KeyspaceHeatmap.answer(JSON, request, partitions, routing.partitionCount());
        answer.set("instances", instances);
        HttpJson.write(ctx, 200, answer);
    }

    /**
     * Adds the {@code partitions} of every other instance's answer to {@code pathAndQuery} to {@code partitions}, and
     * lists the instances (this one first) with {@code reachable: true|false}. This instance asks the others through the
     * {@link ScatterGather} (at most its per-query bound at once), with the forwarding header (which makes them answer
     * with their own partitions only), and waits for them at most the statistics timeout in all; one that has not
     * answered by then is unreachable. A forwarded request asks nobody.
     */
    private ArrayNode fromEveryInstance(Context ctx, String pathAndQuery, List<JsonNode> partitions) {
        ArrayNode instances = JSON.createArrayNode();
        instances.addObject().put("host", self()).put("reachable", true);
        if (ctx.header(Forwarder.FORWARDED_HEADER) != null) {
            return instances;
        }
        List<HostInfo> others = otherClients().stream().map(StreamsMetadata::hostInfo).toList();
        Forwarder.Request request = new Forwarder.Request(pathAndQuery, ctx.header("Authorization"));
        gather.askEach(others, host -> forwarder.get(host, request), timeout)
                .forEach((host, remote) -> {
                    boolean reachable = false;
                    if (remote.isPresent() && remote.get().status() == 200) {
                        try {
                            JsonNode body = JSON.readTree(remote.get().body());
                            body.path("partitions").forEach(partitions::add);
                            reachable = true;
                        } catch (IOException e) {
                            LOG.warn("Instance {} sent statistics that are not JSON: {}", host, e.toString());
                        }
                    }
                    instances.addObject().put("host", host.host() + ":" + host.port()).put("reachable", reachable);
                });
        return instances;
    }

    private List<StreamsMetadata> otherClients() {
        try {
            return streams.metadataForAllStreamsClients().stream()
                    .filter(client -> !client.hostInfo().equals(routing.self())).toList();
        } catch (RuntimeException notYet) {
            return List.of();
        }
    }

    private String self() {
        return routing.self().host() + ":" + routing.self().port();
    }
}
