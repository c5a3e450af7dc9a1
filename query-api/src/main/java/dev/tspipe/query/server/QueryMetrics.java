package dev.tspipe.query.server;

import dev.tspipe.query.stats.LocalPartitionStatistics;
import dev.tspipe.processor.devices.DeviceTable;
import dev.tspipe.query.auth.TokenFile;
import dev.tspipe.query.devices.DeviceDirectory;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.kafka.KafkaStreamsMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StoreQueryParameters;
import org.apache.kafka.streams.state.QueryableStoreTypes;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * The meters of a query server: JVM and process, Kafka Streams' own metrics (Micrometer's
 * {@link KafkaStreamsMetrics} binder), HTTP request timings by route and status, and tspipe's
 * gauges and counters.
 */
final class QueryMetrics implements AutoCloseable {

    static final Duration KAFKA_METRICS_REFRESH = Duration.ofSeconds(5);

    private final MeterRegistry registry;
    private final KafkaStreamsMetrics kafkaStreamsMetrics;
    private final JvmGcMetrics gcMetrics = new JvmGcMetrics();
    private final Counter forwarded;
    private final Counter stale;

    QueryMetrics(MeterRegistry registry, KafkaStreams streams) {
        this(registry, streams, null);
    }

    /** With {@code tokens} (null when the API is open): how many tokens are in use and whether the file's content is. */
    QueryMetrics(MeterRegistry registry, KafkaStreams streams, TokenFile tokens) {
        this.registry = registry;
        new ClassLoaderMetrics().bindTo(registry);
        new JvmMemoryMetrics().bindTo(registry);
        gcMetrics.bindTo(registry);
        new JvmThreadMetrics().bindTo(registry);
        new ProcessorMetrics().bindTo(registry);
        new UptimeMetrics().bindTo(registry);
        // Kafka Streams adds metrics as tasks start and as tspipe's counters first count (a dead-letter reason, a
        // re-route): the binder looks for new ones every few seconds instead of its default minute.
        kafkaStreamsMetrics = new KafkaStreamsMetrics(streams, List.of(), Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread thread = new Thread(runnable, "kafka-streams-metrics-binder");
            thread.setDaemon(true);
            return thread;
        }), KAFKA_METRICS_REFRESH);
        kafkaStreamsMetrics.bindTo(registry);
        for (String store : LocalPartitionStatistics.STORES) {
            Gauge.builder("tspipe.store.rows", streams, s -> approximateRows(s, store))
                    .description("Estimated rows of the store over this instance's active partitions (RocksDB estimate)")
                    .tag("store", store).register(registry);
        }
        Gauge.builder("tspipe.device.table.rows", new DeviceDirectory(streams), QueryMetrics::deviceRows)
                .description("Rows of the replicated device table on this node (exact; a warning is logged above "
                        + DeviceTable.MAX_ROWS + ", docs/devices.md)").register(registry);
        forwarded = Counter.builder("tspipe.query.forwarded").description("Queries forwarded to another instance")
                .register(registry);
        stale = Counter.builder("tspipe.query.stale")
                .description("Queries answered stale here, from a standby replica or a restoring copy").register(registry);
        if (tokens != null) {
            Gauge.builder("tspipe.api.tokens", tokens, t -> t.tokens().size())
                    .description("API tokens in use, from the tokens file").register(registry);
            Gauge.builder("tspipe.api.tokens.file.valid", tokens, t -> t.valid() ? 1 : 0)
                    .description("1 when the tokens file's content is in use; 0 when it changed into one that cannot be "
                            + "used (the tokens read before stay in use; the log says what is wrong)").register(registry);
        }
    }

    private static double approximateRows(KafkaStreams streams, String store) {
        try {
            ReadOnlyKeyValueStore<Bytes, byte[]> all = streams.store(
                    StoreQueryParameters.fromNameAndType(store, QueryableStoreTypes.keyValueStore()));
            return all.approximateNumEntries();
        } catch (RuntimeException notQueryable) {
            return Double.NaN;
        }
    }

    private static double deviceRows(DeviceDirectory devices) {
        try {
            return devices.rows();
        } catch (RuntimeException notQueryable) {
            return Double.NaN;
        }
    }

    void request(String method, String route, int status, float millis) {
        Timer.builder("http.server.requests").description("HTTP requests answered by the query API")
                .tag("method", method).tag("route", route).tag("status", Integer.toString(status))
                .register(registry).record((long) (millis * 1_000_000), TimeUnit.NANOSECONDS);
    }

    void forwarded() {
        forwarded.increment();
    }

    void stale() {
        stale.increment();
    }

    @Override
    public void close() {
        kafkaStreamsMetrics.close();
        gcMetrics.close();
    }
}
