package dev.tspipe.bench.faults;

import dev.tspipe.schemas.Reading;
import dev.tspipe.schemas.serde.AvroSerdeConfig;
import dev.tspipe.schemas.serde.AvroSerializer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Writes readings at a steady rate with an idempotent {@code acks=all} producer and keeps the
 * oracle: every {@link Point} with its current value. New readings go round the series with event
 * time moving forward; a share of the writes repeat a reading exactly (duplicates) or give it a new
 * value (corrections), following the rules of {@link Point}. A write that fails is re-sent until it
 * is acknowledged; a producer that fails fatally is replaced. Values are multiples of 1/4, so that
 * every sum the oracle and tspipe compute is exact.
 */
public final class ReadingLoad implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(ReadingLoad.class);

    /** Duplicates and corrections pick among the most recent readings. */
    private static final int RECENT = 20_000;
    /** Readings are never written closer than this to the wall clock: the broker refuses timestamps an hour ahead. */
    private static final long WALL_CLOCK_MARGIN_MS = 60_000;

    public record Stats(long writes, long newReadings, long duplicates, long corrections, long resends, long failedSends,
                 long acknowledged, long unacknowledged, long heldBack, long producersReplaced) {
    }

    private record Write(Point point, double value) {
    }

    private final FaultOptions options;
    private final List<Series> series;
    private final String bootstrap;
    private final String topic;
    private final long eventStartMillis;
    private final long startNanos;
    private final Random random;
    private final AvroSerializer<Reading> serializer = new AvroSerializer<>();
    private final List<Point> points = new ArrayList<>();
    private final Queue<Write> failed = new ConcurrentLinkedQueue<>();
    private final AtomicLong unacked = new AtomicLong();
    private final AtomicLong acknowledged = new AtomicLong();
    private final AtomicLong failedSends = new AtomicLong();
    private final AtomicLong written = new AtomicLong();
    // Written by the load's thread only; volatile for the progress lines.
    private volatile long newReadings;
    private volatile long duplicates;
    private volatile long corrections;
    private volatile long resends;
    private volatile long heldBack;
    private volatile long producersReplaced;
    private long[] writesPerSecond = new long[1024];
    private final long[] writesByPlacement = new long[Placement.values().length];
    private volatile KafkaProducer<byte[], byte[]> producer;
    private volatile boolean producerBroken;
    private volatile boolean generating = true;
    private volatile boolean stopped;
    private final Thread thread;

    public ReadingLoad(FaultOptions options, List<Series> series, String bootstrap, String registryUrl, String topic,
                long eventStartMillis, long startNanos) {
        this.options = options;
        this.series = series;
        this.bootstrap = bootstrap;
        this.topic = topic;
        this.eventStartMillis = eventStartMillis;
        this.startNanos = startNanos;
        this.random = new Random(options.seed());
        serializer.configure(Map.of(AvroSerdeConfig.SCHEMA_REGISTRY_URL, registryUrl), false);
        this.producer = newProducer();
        this.thread = new Thread(this::run, "reading-load");
    }

    public void start() {
        thread.start();
    }

    /** Stops generating writes; failed ones are still re-sent until {@link #close()}. */
    public void stopGenerating() {
        generating = false;
    }

    /** Waits until every write generated has been acknowledged; false if some were not within {@code timeout}. */
    public boolean awaitAcknowledged(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (unacked.get() > 0) {
            if (System.nanoTime() > deadline) {
                return false;
            }
            sleep(100);
        }
        return true;
    }

    public Stats stats() {
        return new Stats(written.get(), newReadings, duplicates, corrections, resends, failedSends.get(), acknowledged.get(),
                unacked.get(), heldBack, producersReplaced);
    }

    /** The readings written; read it once the load has stopped. */
    public List<Point> points() {
        return points;
    }

    /** Writes generated in each second since {@code startNanos}; read it once the load has stopped. */
    long[] writesPerSecond() {
        return Arrays.copyOf(writesPerSecond, (int) ((System.nanoTime() - startNanos) / 1_000_000_000L) + 1);
    }

    /** Writes generated per placement; read it once the load has stopped. */
    long writes(Placement placement) {
        return writesByPlacement[placement.ordinal()];
    }

    private void run() {
        try {
            while (!stopped) {
                if (producerBroken) {
                    replaceProducer();
                }
                Write retry;
                // A send that fails at once (no metadata, full buffer) may have blocked: try the rest next round.
                while ((retry = failed.poll()) != null) {
                    resends++;
                    if (!send(retry.point(), retry.value())) {
                        break;
                    }
                }
                if (generating) {
                    long due = (long) ((System.nanoTime() - startNanos) / 1e9 * options.rate());
                    for (int i = 0; i < options.rate() && written.get() < due; i++) {
                        writeOne();
                    }
                }
                sleep(5);
            }
        } catch (RuntimeException e) {
            log.error("The reading load stopped", e);
            throw e;
        }
    }

    private void writeOne() {
        long now = System.nanoTime();
        double u = random.nextDouble();
        Point point;
        double value;
        if (u < options.duplicates() && !points.isEmpty()) {
            point = recent();
            value = point.value();
            duplicates++;
        } else if (u < options.duplicates() + options.corrections() && (point = settledRecent()) != null) {
            value = otherValue(point.value());
            corrections++;
        } else {
            long n = newReadings;
            Series s = series.get((int) (n % series.size()));
            long timestamp = eventStartMillis + (n / series.size()) * options.intervalMillis()
                    + s.index() * options.intervalMillis() / series.size();
            if (timestamp > System.currentTimeMillis() - WALL_CLOCK_MARGIN_MS && !points.isEmpty()) {
                // The run outlasted its planned event time: repeat readings rather than write ahead of the clock.
                heldBack++;
                duplicates++;
                point = recent();
                value = point.value();
            } else {
                value = randomValue();
                point = new Point(s, timestamp, value);
                points.add(point);
                newReadings++;
            }
        }
        int second = (int) ((now - startNanos) / 1_000_000_000L);
        if (second >= writesPerSecond.length) {
            writesPerSecond = Arrays.copyOf(writesPerSecond, Math.max(second + 1, writesPerSecond.length * 2));
        }
        writesPerSecond[second]++;
        writesByPlacement[point.series.placement().ordinal()]++;
        written.incrementAndGet();
        unacked.incrementAndGet();
        point.written(value, now);
        send(point, value);
    }

    /** Sends one write; false if it failed at once (it is then queued to be sent again). */
    private boolean send(Point point, double value) {
        Series s = point.series;
        KafkaProducer<byte[], byte[]> used = producer;
        try {
            byte[] bytes = serializer.serialize(topic, Reading.newBuilder()
                    .setDeviceId(s.device())
                    .setMetric(s.metric())
                    .setTimestamp(Instant.ofEpochMilli(point.timestamp))
                    .setValue(value)
                    .setTags(Map.of())
                    .setTenant(null)
                    .build());
            ProducerRecord<byte[], byte[]> record = new ProducerRecord<>(topic,
                    s.placement().partition(s.device(), options.partitions()), point.timestamp,
                    s.placement().key(s.device()), bytes);
            used.send(record, (metadata, e) -> {
                if (e == null) {
                    point.acknowledged();
                    acknowledged.incrementAndGet();
                    unacked.decrementAndGet();
                } else {
                    failed(point, value, e, used);
                }
            });
            return true;
        } catch (RuntimeException e) {
            failed(point, value, e, used);
            return false;
        }
    }

    private void failed(Point point, double value, Exception e, KafkaProducer<byte[], byte[]> used) {
        failedSends.incrementAndGet();
        // Failures of a producer already replaced (its aborted batches) say nothing about the current one.
        if (used == producer && !(e instanceof RetriableException) && !(e instanceof org.apache.kafka.common.errors.TimeoutException)
                && !(e instanceof org.apache.kafka.common.errors.SerializationException)) {
            producerBroken = true;
        }
        log.debug("A write of {} {} at {} failed; it will be sent again: {}", point.series.device(), point.series.metric(),
                point.timestamp, e.toString());
        failed.add(new Write(point, value));
    }

    private void replaceProducer() {
        producerBroken = false;
        producersReplaced++;
        log.warn("Replacing the producer after a non-retriable failure");
        // Fails what the old producer still holds; those writes come back through the retry queue.
        producer.close(Duration.ZERO);
        producer = newProducer();
    }

    private Point recent() {
        int from = Math.max(0, points.size() - RECENT);
        return points.get(from + random.nextInt(points.size() - from));
    }

    private Point settledRecent() {
        if (points.isEmpty()) {
            return null;
        }
        for (int attempt = 0; attempt < 20; attempt++) {
            Point candidate = recent();
            if (candidate.settled()) {
                return candidate;
            }
        }
        return null;
    }

    private double randomValue() {
        return random.nextInt(-400, 401) / 4.0;
    }

    private double otherValue(double current) {
        double value;
        do {
            value = randomValue();
        } while (value == current);
        return value;
    }

    private KafkaProducer<byte[], byte[]> newProducer() {
        Map<String, Object> config = Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                ProducerConfig.ACKS_CONFIG, "all",
                ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true,
                ProducerConfig.LINGER_MS_CONFIG, 5,
                ProducerConfig.PARTITIONER_CLASS_CONFIG, Crc32Partitioner.class.getName(),
                // Short enough that a broker outage ends some writes in failure, so that re-sending is exercised too.
                ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 20_000,
                ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 5_000,
                ProducerConfig.MAX_BLOCK_MS_CONFIG, 5_000,
                ProducerConfig.CLIENT_ID_CONFIG, "fault-bench-load");
        return new KafkaProducer<>(config, new ByteArraySerializer(), new ByteArraySerializer());
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    @Override
    public void close() {
        generating = false;
        stopped = true;
        try {
            thread.join(10_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        producer.close(Duration.ofSeconds(5));
        serializer.close();
    }
}
