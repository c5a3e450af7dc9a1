package dev.tspipe.query.routing;

import dev.tspipe.model.keys.DevicePartitioner;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.KeyQueryMetadata;
import org.apache.kafka.streams.LagInfo;
import org.apache.kafka.streams.StreamsMetadata;
import org.apache.kafka.streams.state.HostInfo;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Decides where the data of a distribution key (a device, or {@code tenant/device}) is read: the
 * routing half of Confluent's {@code MetadataService}, apart from HTTP and from store reads.
 *
 * <p>The partition is the input topic's: Kafka Streams' {@code queryMetadataForKey} hashes the
 * key's bytes with the producers' default partitioner (murmur2). A plan is an ordered list of
 * {@link Target}s; {@link RoutedRead} tries them in turn until one answers:
 * <ol>
 *   <li>the active task, here ({@link Target.LocalActive}) or on its host ({@link Target.Remote});</li>
 *   <li>a local standby replica whose changelog lag is at most {@code maxStandbyLag} records;</li>
 *   <li>the standby hosts of the partition.</li>
 * </ol>
 * A request that was forwarded to this instance gets a local-only plan, so a request is
 * forwarded at most once.
 *
 * <p>Standby lags come from {@code KafkaStreams.allLocalStorePartitionLags()}, which asks the broker
 * for end offsets: a network round trip. They are looked up only when a local standby can matter (not
 * when this instance is the active host: Kafka Streams never puts a partition's standby where its active
 * task is), or when the active task here is not queryable and {@link RoutedRead} reads its restoring copy,
 * and kept for {@value #LAG_TTL_MS} ms. Asking per request capped the query API at about 700
 * requests/s with a 10 ms median (measured with {@code wrk} against {@code tspipe demo}). A lookup runs
 * in a thread of its own, and requests go on with the lags of a moment ago meanwhile: when a broker
 * dies, the lookup waits until its partitions have a new leader (seconds), and a request that waited for
 * it would wait that long too (docs/query-api.md). Only the very first lookup is waited for, at most
 * {@value #FIRST_LOOKUP_WAIT_MS} ms.
 */
public final class SeriesRouting implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(SeriesRouting.class);

    private final KafkaStreams streams;
    private final HostInfo self;
    private final String inputTopic;
    private final long maxStandbyLag;
    private final AtomicInteger partitionCount = new AtomicInteger();
    private final ExecutorService lagLookups = Executors.newSingleThreadExecutor(task -> {
        Thread thread = new Thread(task, "tspipe-standby-lags");
        thread.setDaemon(true);
        return thread;
    });
    private volatile Map<String, Map<Integer, LagInfo>> lags = Map.of();
    private volatile long lagsFetchedNanos;
    private volatile boolean lagsFetched;
    private CompletableFuture<Void> lookup;

    /** How long a lookup of the local standby lags is reused. */
    static final long LAG_TTL_MS = 1_000;
    /** How long a request waits for the first lookup; later ones are never waited for. */
    static final long FIRST_LOOKUP_WAIT_MS = 1_000;

    public SeriesRouting(KafkaStreams streams, HostInfo self, String inputTopic, long maxStandbyLag) {
        this.streams = streams;
        this.self = self;
        this.inputTopic = inputTopic;
        this.maxStandbyLag = maxStandbyLag;
    }

    public HostInfo self() {
        return self;
    }

    /** The targets that can answer a read of {@code store} for {@code distributionKey}, best first; empty when none can. */
    public List<Target> plan(String store, byte[] distributionKey, boolean forwarded) {
        KeyQueryMetadata metadata = metadata(store, distributionKey);
        OptionalInt partition = metadata.partition() >= 0 ? OptionalInt.of(metadata.partition()) : partitionOf(distributionKey);
        return partition.isEmpty() ? new ArrayList<>() : plan(store, metadata, partition.getAsInt(), forwarded);
    }

    /** The targets that can answer a read of {@code store}'s partition {@code partition}, best first. */
    public List<Target> planPartition(String store, int partition, boolean forwarded) {
        KeyQueryMetadata metadata;
        try {
            metadata = streams.queryMetadataForKey(store, new byte[0],
                    (topic, key, value, partitions) -> Optional.of(Set.of(partition)));
        } catch (RuntimeException notYet) {
            LOG.debug("No query metadata for store {}: {}", store, notYet.toString());
            metadata = KeyQueryMetadata.NOT_AVAILABLE;
        }
        return plan(store, metadata, partition, forwarded);
    }

    private List<Target> plan(String store, KeyQueryMetadata metadata, int p, boolean forwarded) {
        List<Target> plan = new ArrayList<>();
        HostInfo active = metadata.activeHost();
        boolean activeKnown = active != null && active.port() > 0 && !metadata.equals(KeyQueryMetadata.NOT_AVAILABLE);
        boolean activeHere = activeKnown && active.equals(self);
        if (forwarded || !activeKnown || activeHere) {
            plan.add(new Target.LocalActive(p));
        } else {
            plan.add(new Target.Remote(active, false));
        }
        OptionalLong lag = activeHere ? OptionalLong.empty() : acceptableLocalLag(store, p);
        if (lag.isPresent()) {
            plan.add(new Target.LocalStandby(p, lag.getAsLong()));
        }
        if (!forwarded) {
            for (HostInfo standby : metadata.standbyHosts()) {
                if (!standby.equals(self)) {
                    plan.add(new Target.Remote(standby, true));
                }
            }
        }
        return plan;
    }

    private KeyQueryMetadata metadata(String store, byte[] key) {
        try {
            return streams.queryMetadataForKey(store, key, new ByteArraySerializer());
        } catch (RuntimeException notYet) {
            // Not started, or shutting down: no metadata, but the local copies may still answer.
            LOG.debug("No query metadata for store {}: {}", store, notYet.toString());
            return KeyQueryMetadata.NOT_AVAILABLE;
        }
    }

    /** The partition by the producers' default partitioner, once the input topic's partition count is known. */
    private OptionalInt partitionOf(byte[] key) {
        OptionalInt count = partitionCount();
        return count.isEmpty() ? count : OptionalInt.of(DevicePartitioner.partitionOf(key, count.getAsInt()));
    }

    /** The input topic's partition count, as the assignment of the running application shows it; empty before. */
    public OptionalInt partitionCount() {
        int count = partitionCount.get();
        if (count == 0) {
            try {
                for (StreamsMetadata client : streams.metadataForAllStreamsClients()) {
                    for (TopicPartition tp : client.topicPartitions()) {
                        if (tp.topic().equals(inputTopic)) {
                            count = Math.max(count, tp.partition() + 1);
                        }
                    }
                }
            } catch (RuntimeException notYet) {
                return OptionalInt.empty();
            }
            // Only a complete assignment names every partition; remember it, not a partial one.
            if (count == 0 || streams.state() != KafkaStreams.State.RUNNING) {
                return count == 0 ? OptionalInt.empty() : OptionalInt.of(count);
            }
            partitionCount.set(count);
        }
        return OptionalInt.of(count);
    }

    /**
     * The changelog lag of this instance's copy (a standby, or a restoring active task) of {@code store}'s
     * partition; empty when it has none or the copy is more than {@code maxStandbyLag} records behind.
     */
    public OptionalLong acceptableLocalLag(String store, int partition) {
        Map<Integer, LagInfo> ofStore = localLags().get(store);
        LagInfo lag = ofStore == null ? null : ofStore.get(partition);
        return lag == null || lag.offsetLag() > maxStandbyLag ? OptionalLong.empty() : OptionalLong.of(lag.offsetLag());
    }

    /**
     * All local lags, looked up at most once per {@link #LAG_TTL_MS} whatever the number of requests, in
     * the lookup thread: the request that finds them expired starts a lookup and goes on with the lags of
     * a moment ago, as the others do. Only before the first lookup has finished does a request wait for it
     * (at most {@link #FIRST_LOOKUP_WAIT_MS}; no lags then means no local standby is read).
     */
    private Map<String, Map<Integer, LagInfo>> localLags() {
        CompletableFuture<Void> current;
        synchronized (this) {
            boolean expired = !lagsFetched || System.nanoTime() - lagsFetchedNanos >= LAG_TTL_MS * 1_000_000;
            if (expired && (lookup == null || lookup.isDone())) {
                lookup = CompletableFuture.runAsync(this::lookUpLags, lagLookups);
            }
            current = lookup;
        }
        if (!lagsFetched) {
            try {
                current.get(FIRST_LOOKUP_WAIT_MS, TimeUnit.MILLISECONDS);
            } catch (TimeoutException | ExecutionException notYet) {
                LOG.debug("The first lookup of the local lags is not done: {}", notYet.toString());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        return lags;
    }

    private void lookUpLags() {
        try {
            lags = streams.allLocalStorePartitionLags();
        } catch (RuntimeException unavailable) {
            LOG.debug("No local lags: {}", unavailable.toString());
            lags = Map.of();
        }
        lagsFetchedNanos = System.nanoTime();
        lagsFetched = true;
    }

    /** Stops the lookup thread. */
    @Override
    public void close() {
        lagLookups.shutdownNow();
    }
}
