package dev.tspipe.query.prometheus;

import dev.tspipe.model.keys.DevicePartitioner;
import dev.tspipe.model.keys.DistributionKey;
import dev.tspipe.model.keys.KeyLayout;
import dev.tspipe.query.error.ApiException;
import dev.tspipe.query.promql.PartitionSeries;
import dev.tspipe.query.promql.QueryBudget;
import dev.tspipe.query.promql.SeriesSelection;
import dev.tspipe.query.routing.Forwarder;
import dev.tspipe.query.routing.ScatterGather;
import dev.tspipe.query.series.SeriesReader;
import org.apache.kafka.streams.state.HostInfo;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
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
 * The partitions a Prometheus API request needs, read here and at the instances that have them through the one
 * {@link ScatterGather}: one request per other instance on the internal route, the request's budget shared out.
 */
final class PartitionGather {

    private final KeyLayout layout;
    private final PartitionReads reads;
    private final Clock clock;
    private final ScatterGather gather;

    PartitionGather(KeyLayout layout, PartitionReads reads, Clock clock, ScatterGather gather) {
        this.layout = layout;
        this.reads = reads;
        this.clock = clock;
        this.gather = gather;
    }

    /**
     * Every partition's part: the one partition of the device when every selection names the same device (and its
     * tenant is known), else all; read by the {@link ScatterGather}, one request per other instance for all the
     * partitions it has. A partition that no copy can answer is a 503. The request's {@link QueryBudget} is shared out
     * equally among the partitions; another instance is sent the sum of its partitions' parts as {@code regex_steps}
     * and {@code timeout_ms}.
     */
    List<PartitionSeries.Values> gather(String tenant, String authorization, List<SeriesSelection> selections,
                                        Map<String, List<String>> internal,
                                        BiFunction<SeriesReader.Stores, QueryBudget, PartitionSeries> local,
                                        List<String> warnings) {
        QueryBudget budget = QueryBudget.full(clock);
        int count = partitionCount();
        if (tenant != null) {
            internal.put("tenant", List.of(tenant));
        }
        List<Integer> partitions = onePartition(selections, count).map(List::of)
                .orElseGet(() -> IntStream.range(0, count).boxed().toList());
        Map<Integer, QueryBudget> shares = new TreeMap<>();
        partitions.forEach(p -> shares.put(p, budget.share(partitions.size())));
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
        StringBuilder path = new StringBuilder(PrometheusApi.PARTITION_PATH);
        for (int p : asked) {
            regexSteps += shares.get(p).regexSteps();
            millis = Math.min(millis, shares.get(p).remainingMillis());
            path.append(path.length() == PrometheusApi.PARTITION_PATH.length() ? '?' : '&').append("partition=").append(p);
        }
        parameters.put("regex_steps", List.of(Long.toString(regexSteps)));
        parameters.put("timeout_ms", List.of(Long.toString(millis)));
        Optional<Forwarder.Answer> answer = reads.forward(host, new Forwarder.Request(path.toString(), authorization,
                PromParams.encode(parameters)));
        if (answer.isEmpty() || answer.get().status() >= 500) {
            return Optional.empty();
        }
        if (answer.get().status() != 200) {
            // A 4xx of the instance that has the partitions (too many series, say) is the answer.
            throw PromErrors.relayedError(answer.get().status(), answer.get().body());
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

    int partitionCount() {
        return reads.partitionCount().orElseThrow(() -> ApiException.unavailable("the application has not started "
                + "yet: its partitions are not known; retry"));
    }

    /**
     * The internal route's partitions ({@code partition} given once or more): each one of the topic's, else a 400 (not a
     * 503 "not queryable here", which would send the asker to another copy of a partition that no instance has).
     */
    Set<Integer> numbers(List<String> texts) {
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
}
