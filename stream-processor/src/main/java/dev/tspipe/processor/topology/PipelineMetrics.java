package dev.tspipe.processor.topology;

import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.metrics.Sensor;
import org.apache.kafka.common.metrics.stats.CumulativeSum;
import org.apache.kafka.common.metrics.stats.Rate;
import org.apache.kafka.common.metrics.stats.WindowedSum;
import org.apache.kafka.streams.StreamsMetrics;

import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * tspipe's own counters, registered with Kafka Streams' metrics (group {@code stream-tspipe-metrics},
 * tag {@code tspipe-id}), so that they are exported wherever Kafka Streams' metrics go (JMX, the
 * query API's Prometheus endpoint):
 *
 * <table>
 *   <caption>Metrics (each with {@code -total} and {@code -rate})</caption>
 *   <tr><td>{@code stored}, tspipe-id {@code readings}</td><td>readings written (new or corrected), counted when their
 *       commit is prepared</td></tr>
 *   <tr><td>{@code duplicate}, tspipe-id {@code readings}</td><td>readings identical to the stored row: no write</td></tr>
 *   <tr><td>{@code corrected}, tspipe-id {@code readings}</td><td>readings that replaced another value</td></tr>
 *   <tr><td>{@code batches}, tspipe-id {@code readings}</td><td>records that were batches of readings, counted where
 *       they are stored (after any re-routing)</td></tr>
 *   <tr><td>{@code batched}, tspipe-id {@code readings}</td><td>readings that came in those batches, whatever became of
 *       them</td></tr>
 *   <tr><td>{@code dead-letter}, tspipe-id = the reason code</td><td>records sent to the dead-letter topic, by reason</td></tr>
 *   <tr><td>{@code rerouted}, tspipe-id {@code other-key} or {@code other-partition}</td><td>records re-routed to their
 *       device's partition through the repartition topic: keyed by something else, or keyed right but placed in another
 *       partition than murmur2 gives (librdkafka's default partitioner)</td></tr>
 * </table>
 *
 * <p>The counts of readings and batches are counted in plain fields and recorded into their sensors once per commit, when
 * the series store prepares it ({@link #publish}): a Kafka sensor recorded per reading (a lock, two windowed stats and
 * the clock) took 5.7% of the stream thread in the end-to-end harness's catch-up (docs/benchmarks.md). Their sensors
 * sum what is recorded (a {@code Rate} of a {@code WindowedSum}, a {@code CumulativeSum}) under the names, group and
 * tags that {@code addRateTotalSensor} gives (Kafka Streams' convention for custom metrics: group
 * {@code stream-<scope>-metrics}, tags {@code thread-id} and {@code <scope>-id}), so they read as before.
 */
final class PipelineMetrics {

    private static final String SCOPE = "tspipe";
    private static final String GROUP = "stream-" + SCOPE + "-metrics";
    private static final String READINGS = "readings";

    private final StreamsMetrics metrics;
    private final Sensor stored;
    private final Sensor duplicate;
    private final Sensor corrected;
    private final Sensor batches;
    private final Sensor batchedReadings;
    /** Counted since the last {@link #publish}; only the stream thread touches them. */
    private long storedCount;
    private long duplicateCount;
    private long correctedCount;
    private long batchCount;
    private long batchedReadingCount;
    private final Map<RejectReason, Sensor> deadLetters = new EnumMap<>(RejectReason.class);
    private final Map<Routed.Placement, Sensor> rerouted = new EnumMap<>(Routed.Placement.class);

    PipelineMetrics(StreamsMetrics metrics) {
        this.metrics = metrics;
        this.stored = readingsSensor("stored", "readings written (new or corrected)");
        this.duplicate = readingsSensor("duplicate", "readings identical to the stored row (no write)");
        this.corrected = readingsSensor("corrected", "readings that replaced another value");
        this.batches = readingsSensor("batches", "records that were batches of readings");
        this.batchedReadings = readingsSensor("batched", "readings that came in batches (stored, duplicate or dead-lettered)");
    }

    /** A sensor of this stream thread that sums the counts recorded into it, as {@code <operation>-rate} and {@code -total}. */
    private Sensor readingsSensor(String operation, String what) {
        String thread = Thread.currentThread().getName();
        Sensor sensor = metrics.addSensor(SCOPE + "." + thread + "." + READINGS + "-" + operation, Sensor.RecordingLevel.INFO);
        Map<String, String> tags = new LinkedHashMap<>();
        tags.put("thread-id", thread);
        tags.put(SCOPE + "-id", READINGS);
        sensor.add(new MetricName(operation + "-rate", GROUP, "Per second: " + what, tags), new Rate(TimeUnit.SECONDS, new WindowedSum()));
        sensor.add(new MetricName(operation + "-total", GROUP, "In total: " + what, tags), new CumulativeSum());
        return sensor;
    }

    void stored() {
        storedCount++;
    }

    void duplicate() {
        duplicateCount++;
    }

    void corrected() {
        correctedCount++;
    }

    /** A batch of {@code readings} readings was decoded in its place. */
    void batch(int readings) {
        batchCount++;
        batchedReadingCount += readings;
    }

    /** Records the counts since the last call into their sensors: called by the series store before each commit. */
    void publish() {
        if (storedCount > 0) {
            stored.record(storedCount);
            storedCount = 0;
        }
        if (duplicateCount > 0) {
            duplicate.record(duplicateCount);
            duplicateCount = 0;
        }
        if (correctedCount > 0) {
            corrected.record(correctedCount);
            correctedCount = 0;
        }
        if (batchCount > 0) {
            batches.record(batchCount);
            batchedReadings.record(batchedReadingCount);
            batchCount = 0;
            batchedReadingCount = 0;
        }
    }

    void deadLetter(RejectReason reason) {
        deadLetters.computeIfAbsent(reason, r ->
                metrics.addRateTotalSensor(SCOPE, r.code(), "dead-letter", Sensor.RecordingLevel.INFO)).record();
    }

    void rerouted(Routed.Placement placement) {
        rerouted.computeIfAbsent(placement, p ->
                metrics.addRateTotalSensor(SCOPE, p.reason(), "rerouted", Sensor.RecordingLevel.INFO)).record();
    }
}
