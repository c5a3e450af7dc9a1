package dev.tspipe.bench.e2e;

import dev.tspipe.schemas.Reading;
import dev.tspipe.schemas.serde.AvroSerializer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

/**
 * Fresh readings at a steady rate, written while the query phase runs so that its latencies are
 * measured while tspipe ingests: the preload's devices and metrics, event time from just after the
 * preloaded span, serialized and sent as the preload is ({@link InputData#serializer},
 * {@link InputData#producerConfig}).
 *
 * <p>One thread paces in wall-clock time: every millisecond it sends the readings due by then, so
 * a harness that falls behind catches up in a burst rather than lowering the rate silently; the
 * rate achieved is what the broker acknowledged. Event time advances as fast as the wall clock
 * ({@link FreshReadings}), so it stays as far in the past as the preload's end was when the phase
 * began: never in the future, never expired.
 */
final class IngestLoad implements AutoCloseable {

    /** What the load did: readings handed to the producer, acknowledged by the broker, and failed. */
    record Totals(long sent, long acknowledged, long failed, double seconds) {
    }

    private final KafkaProducer<byte[], byte[]> producer;
    private final AvroSerializer<Reading> serializer;
    /** Used by the pacer thread only. */
    private final FreshReadings readings;
    private final String topic;
    private final int rate;
    private final AtomicLong acknowledged = new AtomicLong();
    private final AtomicLong failed = new AtomicLong();
    private final AtomicReference<Exception> firstFailure = new AtomicReference<>();
    private final Thread pacer;
    private volatile boolean running = true;
    private volatile long sent;
    private long startNanos;
    private Totals totals;

    private IngestLoad(String bootstrap, String registryUrl, String topic, InputData input, int rate) {
        this.topic = topic;
        this.rate = rate;
        this.serializer = InputData.serializer(registryUrl);
        this.readings = new FreshReadings(input.freshReadings(rate));
        this.producer = new KafkaProducer<>(InputData.producerConfig(bootstrap), new ByteArraySerializer(), new ByteArraySerializer());
        this.pacer = new Thread(this::pace, "ingest-load");
        pacer.setDaemon(true);
    }

    /** Starts writing {@code rate} fresh readings per second to {@code topic}. */
    static IngestLoad start(String bootstrap, String registryUrl, String topic, InputData input, int rate) {
        if (rate <= 0) {
            throw new IllegalArgumentException("an ingest load needs a positive rate, not " + rate);
        }
        IngestLoad load = new IngestLoad(bootstrap, registryUrl, topic, input, rate);
        load.startNanos = System.nanoTime();
        load.pacer.start();
        return load;
    }

    int rate() {
        return rate;
    }

    /** Readings the broker has acknowledged so far. */
    long acknowledged() {
        return acknowledged.get();
    }

    /** Stops the pacing, waits until every reading sent is acknowledged or failed, and closes the producer. */
    Totals stop() {
        if (totals != null) {
            return totals;
        }
        running = false;
        try {
            pacer.join(TimeUnit.SECONDS.toMillis(30));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        producer.close(Duration.ofSeconds(30));
        serializer.close();
        totals = new Totals(sent, acknowledged.get(), failed.get(), (System.nanoTime() - startNanos) / 1e9);
        return totals;
    }

    /** The first failed send, if any: the figures then undercount the load. */
    Exception firstFailure() {
        return firstFailure.get();
    }

    private void pace() {
        try {
            send();
        } catch (RuntimeException e) {
            // A reading that cannot be serialized or handed to the producer ends the load; stop() reports it.
            firstFailure.compareAndSet(null, e);
            running = false;
        }
    }

    private void send() {
        long count = 0;
        while (running) {
            long due = (long) ((System.nanoTime() - startNanos) / 1e9 * rate);
            for (; count < due && running; count++) {
                Reading reading = readings.next();
                byte[] key = reading.getDeviceId().getBytes(StandardCharsets.UTF_8);
                producer.send(new ProducerRecord<>(topic, null, reading.getTimestamp().toEpochMilli(), key,
                        serializer.serialize(topic, reading)), (metadata, e) -> {
                    if (e == null) {
                        acknowledged.incrementAndGet();
                    } else {
                        failed.incrementAndGet();
                        firstFailure.compareAndSet(null, e);
                    }
                });
                sent = count + 1;
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
        }
    }

    @Override
    public void close() {
        stop();
    }
}
