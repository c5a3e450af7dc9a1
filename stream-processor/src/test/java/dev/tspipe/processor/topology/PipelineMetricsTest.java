package dev.tspipe.processor.topology;

import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.metrics.Sensor;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.junit.jupiter.api.Test;

import java.util.Map;
import java.util.Properties;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * tspipe's reading counters, counted per reading and recorded once per commit, read as the sensors of
 * {@code addRateTotalSensor} did: the same names, group and tags as a sensor made that way, and the sums.
 */
class PipelineMetricsTest {

    /** Counts each record's value as that many stored readings, publishes on a record "publish". */
    private static final class Counting implements Processor<String, String, Void, Void> {
        private PipelineMetrics metrics;

        @Override
        public void init(ProcessorContext<Void, Void> context) {
            metrics = new PipelineMetrics(context.metrics());
            // The reference: what tspipe's counters were made with before they were recorded per commit.
            context.metrics().addRateTotalSensor("tspipe", "readings", "reference", Sensor.RecordingLevel.INFO).record();
        }

        @Override
        public void process(Record<String, String> record) {
            switch (record.value()) {
                case "publish" -> metrics.publish();
                case "duplicate" -> metrics.duplicate();
                case "corrected" -> {
                    metrics.stored();
                    metrics.corrected();
                }
                default -> metrics.stored();
            }
        }
    }

    @Test
    void theCountsReadAsBeforeOnceTheyArePublished() {
        Topology topology = new Topology();
        topology.addSource("in", Serdes.String().deserializer(), Serdes.String().deserializer(), "in");
        topology.addProcessor("count", Counting::new, "in");
        Properties props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, "pipeline-metrics");
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
        try (TopologyTestDriver driver = new TopologyTestDriver(topology, props)) {
            TestInputTopic<String, String> in = driver.createInputTopic("in", Serdes.String().serializer(), Serdes.String().serializer());
            MetricName reference = named(driver, "reference-total");
            MetricName stored = named(driver, "stored-total");
            assertThat(stored.group()).isEqualTo(reference.group());
            assertThat(stored.tags()).isEqualTo(reference.tags());
            assertThat(named(driver, "stored-rate").tags()).isEqualTo(named(driver, "reference-rate").tags());

            in.pipeInput("k", "stored");
            in.pipeInput("k", "stored");
            in.pipeInput("k", "corrected");
            in.pipeInput("k", "duplicate");
            // Counted, not yet recorded.
            assertThat(value(driver, "stored-total")).isZero();
            in.pipeInput("k", "publish");
            assertThat(value(driver, "stored-total")).isEqualTo(3.0);
            assertThat(value(driver, "corrected-total")).isEqualTo(1.0);
            assertThat(value(driver, "duplicate-total")).isEqualTo(1.0);
            assertThat(value(driver, "stored-rate")).isPositive();
            in.pipeInput("k", "publish");
            assertThat(value(driver, "stored-total")).as("a publish with nothing new adds nothing").isEqualTo(3.0);
        }
    }

    private static MetricName named(TopologyTestDriver driver, String name) {
        return driver.metrics().keySet().stream().filter(metric -> metric.name().equals(name)).findFirst()
                .orElseThrow(() -> new AssertionError("no metric " + name + " in " + driver.metrics().keySet()));
    }

    private static double value(TopologyTestDriver driver, String name) {
        Map<MetricName, ? extends Metric> metrics = driver.metrics();
        return (Double) metrics.get(named(driver, name)).metricValue();
    }
}
