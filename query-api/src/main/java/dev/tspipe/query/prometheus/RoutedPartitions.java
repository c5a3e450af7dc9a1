package dev.tspipe.query.prometheus;

import dev.tspipe.processor.store.StoreNames;
import dev.tspipe.query.http.AnswerHeaders;
import dev.tspipe.query.routing.Forwarder;
import dev.tspipe.query.routing.ReadCounters;
import dev.tspipe.query.routing.RoutedAnswer;
import dev.tspipe.query.routing.RoutedRead;
import dev.tspipe.query.routing.SeriesRouting;
import dev.tspipe.query.series.LocalStores;
import dev.tspipe.query.series.SeriesReader;

import java.io.IOException;
import java.util.List;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.function.Function;

/** Whole partitions for the Prometheus API, read as a series is: active task, standbys, other instances. */
public final class RoutedPartitions implements PartitionReads {

    private final SeriesRouting routing;
    private final RoutedRead router;
    private final RoutedRead forwardedRouter;
    private final LocalStores stores;
    private final ReadCounters counters;

    public RoutedPartitions(SeriesRouting routing, RoutedRead router, RoutedRead forwardedRouter, LocalStores stores,
                            ReadCounters counters) {
        this.routing = routing;
        this.router = router;
        this.forwardedRouter = forwardedRouter;
        this.stores = stores;
        this.counters = counters;
    }

    @Override
    public OptionalInt partitionCount() {
        return routing.partitionCount();
    }

    @Override
    public Answer read(int partition, Function<SeriesReader.Stores, PartitionSeries> read, Forwarder.Request remote) {
        return answerOf(router.answer(StoreNames.LATEST, () -> routing.planPartition(StoreNames.LATEST, partition, false),
                (p, stale) -> stores.read(read, p, stale), remote));
    }

    @Override
    public Answer readHere(int partition, Function<SeriesReader.Stores, PartitionSeries> read) {
        return answerOf(forwardedRouter.answer(StoreNames.LATEST,
                () -> routing.planPartition(StoreNames.LATEST, partition, true), (p, stale) -> stores.read(read, p, stale), null));
    }

    private Answer answerOf(RoutedAnswer<PartitionSeries> answer) {
        if (answer instanceof RoutedAnswer.Local<PartitionSeries> local) {
            return new Answer(local.value(), local.lag(), List.of());
        }
        if (answer instanceof RoutedAnswer.Forwarded<PartitionSeries> forwarded) {
            Forwarder.Answer remote = forwarded.answer();
            String who = forwarded.host().host() + ":" + forwarded.host().port();
            if (remote.status() != 200) {
                // A 4xx of the instance that has the partition (too many series, say) is the answer.
                throw PrometheusApi.relayedError(remote.status(), remote.body());
            }
            counters.forwarded().run();
            try {
                String lag = header(remote, AnswerHeaders.LAG);
                return new Answer(PartitionSeries.fromJson(remote.body()),
                        lag == null ? OptionalLong.empty() : OptionalLong.of(Long.parseLong(lag)), List.of());
            } catch (IOException | NumberFormatException e) {
                return new Answer(null, OptionalLong.empty(), List.of(who + " sent an answer that is not a "
                        + "partition's series: " + e.getMessage()));
            }
        }
        return new Answer(null, OptionalLong.empty(), ((RoutedAnswer.NoneAnswered<PartitionSeries>) answer).attempts());
    }

    private static String header(Forwarder.Answer answer, String name) {
        return answer.headers().entrySet().stream().filter(e -> e.getKey().equalsIgnoreCase(name))
                .flatMap(e -> e.getValue().stream()).findFirst().orElse(null);
    }
}
