package dev.tspipe.processor.topology;

import dev.tspipe.processor.store.RollupStep;
import org.apache.kafka.clients.producer.internals.BuiltInPartitioner;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Records in another partition than the Java client's default partitioner gives their key are
 * re-routed to it (the test driver reads every record from partition 0 of 4): stored all the same,
 * counted by reason, and records already in place never touch the repartition topic.
 */
class PlacementTopologyTest extends TopologyTestBase {

    private static final int PARTITIONS = 4;
    private static final String REPARTITION = "tspipe-test-" + Topics.BY_DEVICE_REPARTITION + "-repartition";

    @Override
    Map<String, Object> pipelineSettings() {
        Map<String, Object> settings = super.pipelineSettings();
        settings.put(PipelineConfig.READINGS_PARTITIONS, PARTITIONS);
        return settings;
    }

    /** The partition the Java producer's default partitioner picks: the oracle, not tspipe's own code. */
    private static int javaClientPartition(String device) {
        return BuiltInPartitioner.partitionForKey(utf8(device), PARTITIONS);
    }

    private static List<String> devices(boolean inPartitionZero, int count) {
        List<String> devices = new ArrayList<>();
        for (int i = 0; devices.size() < count; i++) {
            String device = "device-" + i;
            if ((javaClientPartition(device) == 0) == inPartitionZero) {
                devices.add(device);
            }
        }
        return devices;
    }

    @Test
    void recordsInTheirDevicesPartitionAreStoredWithoutTheRepartitionTopic() {
        for (String device : devices(true, 20)) {
            send(reading(device, "m", T0, 1.0));
        }

        for (String device : devices(true, 20)) {
            assertThat(rawRow(device, "m", T0).value()).isEqualTo(1.0);
        }
        assertThat(driver.producedTopicNames()).doesNotContain(REPARTITION);
        assertThat(counter("rerouted-total", "other-partition")).isZero();
    }

    @Test
    void recordsInAnotherPartitionAreReroutedStoredAndCounted() {
        List<String> misplaced = devices(false, 30);
        List<String> placed = devices(true, 10);
        for (int i = 0; i < 30; i++) {
            send(reading(misplaced.get(i), "m", T0 + i, i));
            if (i < 10) {
                send(reading(placed.get(i), "m", T0 + i, -i));
            }
        }
        readings.pipeInput((byte[]) null, bytes(reading("keyless", "m", T0, 7.0)));

        for (int i = 0; i < 30; i++) {
            assertThat(rawRow(misplaced.get(i), "m", T0 + i).value()).isEqualTo(i);
            assertThat(latest(misplaced.get(i), "m").row().value()).isEqualTo(i);
            assertThat(rollup(RollupStep.MINUTE, misplaced.get(i), "m", RollupStep.MINUTE.bucketStart(T0 + i)).count()).isEqualTo(1);
        }
        for (int i = 0; i < 10; i++) {
            assertThat(rawRow(placed.get(i), "m", T0 + i).value()).isEqualTo(-i);
        }
        assertThat(rawRow("keyless", "m", T0).value()).isEqualTo(7.0);
        assertThat(driver.producedTopicNames()).contains(REPARTITION);
        assertThat(counter("rerouted-total", "other-partition")).isEqualTo(30.0);
        assertThat(counter("rerouted-total", "other-key")).isEqualTo(1.0);
        assertThat(counter("stored-total", "readings")).isEqualTo(41.0);
        assertThat(dlq.isEmpty()).isTrue();
    }

    @Test
    void aReroutedRecordThatIsRejectedLaterNamesWhereItArrived() {
        String misplaced = devices(false, 1).get(0);
        send(reading(misplaced, "m", T0 + 10 * 86_400_000L, 1.0));
        send(reading(misplaced, "m", T0, 2.0));

        var rejected = dlq.readRecord();
        assertThat(header(rejected.headers(), DeadLetters.REASON)).isEqualTo(RejectReason.EXPIRED.code());
        assertThat(header(rejected.headers(), DeadLetters.SOURCE_TOPIC)).isEqualTo(config.readingsTopic());
        assertThat(header(rejected.headers(), DeadLetters.SOURCE_PARTITION)).isEqualTo("0");
        assertThat(header(rejected.headers(), DeadLetters.SOURCE_OFFSET)).isEqualTo("1");
        assertThat(rejected.key()).isEqualTo(utf8(misplaced));
    }

    private double counter(String name, String tspipeId) {
        return driver.metrics().entrySet().stream()
                .filter(e -> e.getKey().name().equals(name) && tspipeId.equals(e.getKey().tags().get("tspipe-id")))
                .mapToDouble(e -> ((Number) e.getValue().metricValue()).doubleValue())
                .sum();
    }
}
