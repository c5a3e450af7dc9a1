package dev.tspipe.processor.topology;

import org.apache.kafka.common.metrics.Sensor;
import org.apache.kafka.streams.StreamsMetrics;

import java.util.EnumMap;
import java.util.Map;

/**
 * tspipe's own counters, registered with Kafka Streams' metrics (group {@code stream-tspipe-metrics},
 * tag {@code tspipe-id}), so that they are exported wherever Kafka Streams' metrics go (JMX, the
 * query API's Prometheus endpoint):
 *
 * <table>
 *   <caption>Metrics (each with {@code -total} and {@code -rate})</caption>
 *   <tr><td>{@code stored}, tspipe-id {@code readings}</td><td>readings written (new or corrected)</td></tr>
 *   <tr><td>{@code duplicate}, tspipe-id {@code readings}</td><td>readings identical to the stored row: no write</td></tr>
 *   <tr><td>{@code corrected}, tspipe-id {@code readings}</td><td>readings that replaced another value</td></tr>
 *   <tr><td>{@code dead-letter}, tspipe-id = the reason code</td><td>records sent to the dead-letter topic, by reason</td></tr>
 *   <tr><td>{@code rerouted}, tspipe-id {@code other-key} or {@code other-partition}</td><td>records re-routed to their
 *       device's partition through the repartition topic: keyed by something else, or keyed right but placed in another
 *       partition than murmur2 gives (librdkafka's default partitioner)</td></tr>
 * </table>
 */
final class PipelineMetrics {

    private static final String SCOPE = "tspipe";

    private final StreamsMetrics metrics;
    private final Sensor stored;
    private final Sensor duplicate;
    private final Sensor corrected;
    private final Map<RejectReason, Sensor> deadLetters = new EnumMap<>(RejectReason.class);
    private final Map<Routed.Placement, Sensor> rerouted = new EnumMap<>(Routed.Placement.class);

    PipelineMetrics(StreamsMetrics metrics) {
        this.metrics = metrics;
        this.stored = metrics.addRateTotalSensor(SCOPE, "readings", "stored", Sensor.RecordingLevel.INFO);
        this.duplicate = metrics.addRateTotalSensor(SCOPE, "readings", "duplicate", Sensor.RecordingLevel.INFO);
        this.corrected = metrics.addRateTotalSensor(SCOPE, "readings", "corrected", Sensor.RecordingLevel.INFO);
    }

    void stored() {
        stored.record();
    }

    void duplicate() {
        duplicate.record();
    }

    void corrected() {
        corrected.record();
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
