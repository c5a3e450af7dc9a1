package dev.tspipe.processor.topology;

import dev.tspipe.model.rows.Rollup;
import dev.tspipe.processor.store.RollupStep;
import dev.tspipe.processor.store.StoreNames;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** One test per storage rule of the ingestion topology, through a TopologyTestDriver. */
class IngestTopologyTest extends TopologyTestBase {

    @Test
    void aReadingBecomesARowKeyedDeviceMetricReversedTimestamp() {
        send(reading("sensor-1", "temp", 1_700_000_000_000L, 21.5));

        List<String> keys = new ArrayList<>();
        try (KeyValueIterator<Bytes, byte[]> all = store(StoreNames.RAW).all()) {
            all.forEachRemaining(kv -> keys.add(new String(kv.key.get(), StandardCharsets.US_ASCII)));
        }
        assertThat(keys).containsExactly("sensor-1#temp#9223370336854775807");
        assertThat(rawRow("sensor-1", "temp", 1_700_000_000_000L).value()).isEqualTo(21.5);
        assertThat(dlq.isEmpty()).isTrue();
    }

    @Test
    void aForwardScanOfASeriesReturnsTheNewestFirst() {
        for (int i = 0; i < 5; i++) {
            send(reading("d", "m", T0 + i * 1_000L, i));
        }

        List<Double> values = new ArrayList<>();
        try (KeyValueIterator<Bytes, byte[]> rows = store(StoreNames.RAW).prefixScan("d#m#",
                new org.apache.kafka.common.serialization.StringSerializer())) {
            rows.forEachRemaining(kv -> values.add(dev.tspipe.model.rows.RawRow.fromBytes(kv.value).value()));
        }
        assertThat(values).containsExactly(4.0, 3.0, 2.0, 1.0, 0.0);
    }

    @Test
    void countersSplitAtTheBucketEdge() {
        long minute = RollupStep.MINUTE.bucketStart(T0);
        send(reading("d", "m", minute + 59_999, 1.0));
        send(reading("d", "m", minute + 60_000, 2.0));

        assertThat(rollup(RollupStep.MINUTE, "d", "m", minute)).isEqualTo(Rollup.of(1.0, minute + 59_999));
        assertThat(rollup(RollupStep.MINUTE, "d", "m", minute + 60_000)).isEqualTo(Rollup.of(2.0, minute + 60_000));
        Rollup hour = rollup(RollupStep.HOUR, "d", "m", RollupStep.HOUR.bucketStart(T0));
        assertThat(hour).isEqualTo(new Rollup(2, 3.0, 1.0, 2.0, 2.0, minute + 60_000));
        assertThat(rollup(RollupStep.DAY, "d", "m", RollupStep.DAY.bucketStart(T0)).count()).isEqualTo(2);
    }

    @Test
    void theSameReadingAgainIsANoOp() {
        send(reading("d", "m", T0, 1.5));
        send(reading("d", "m", T0 + 1, 2.5));
        send(reading("d", "m", T0, 1.5));

        Rollup hour = rollup(RollupStep.HOUR, "d", "m", RollupStep.HOUR.bucketStart(T0));
        assertThat(hour).isEqualTo(new Rollup(2, 4.0, 1.5, 2.5, 2.5, T0 + 1));
        assertThat(latest("d", "m").epochMillis()).isEqualTo(T0 + 1);
    }

    @Test
    void aCorrectionFixesCountSumMinMaxAndLast() {
        long minute = RollupStep.MINUTE.bucketStart(T0);
        send(reading("d", "m", minute + 1_000, 1.0));
        send(reading("d", "m", minute + 2_000, 5.0));
        send(reading("d", "m", minute + 3_000, 3.0));

        send(reading("d", "m", minute + 2_000, 2.0));   // was the max
        assertThat(rollup(RollupStep.MINUTE, "d", "m", minute)).isEqualTo(new Rollup(3, 6.0, 1.0, 3.0, 3.0, minute + 3_000));

        send(reading("d", "m", minute + 3_000, 0.5));   // the last, and now the min
        assertThat(rollup(RollupStep.MINUTE, "d", "m", minute)).isEqualTo(new Rollup(3, 3.5, 0.5, 2.0, 0.5, minute + 3_000));
        assertThat(rollup(RollupStep.DAY, "d", "m", RollupStep.DAY.bucketStart(T0))).isEqualTo(new Rollup(3, 3.5, 0.5, 2.0, 0.5, minute + 3_000));
        assertThat(rawRow("d", "m", minute + 3_000).value()).isEqualTo(0.5);
        assertThat(latest("d", "m").row().value()).isEqualTo(0.5);
    }

    @Test
    void aCorrectionThatIsNotAnExtremeAdjustsInPlace() {
        send(reading("d", "m", T0, 1.0));
        send(reading("d", "m", T0 + 1, 2.0));
        send(reading("d", "m", T0 + 2, 3.0));

        send(reading("d", "m", T0 + 1, 2.5));

        assertThat(rollup(RollupStep.HOUR, "d", "m", RollupStep.HOUR.bucketStart(T0))).isEqualTo(new Rollup(3, 6.5, 1.0, 3.0, 3.0, T0 + 2));
    }

    @Test
    void tagsAreStoredAndAChangeOfTagsAloneReplacesTheRow() {
        readings.pipeInput(utf8("d"), bytes(dev.tspipe.schemas.Reading.newBuilder(reading("d", "m", T0, 1.0))
                .setTags(Map.of("unit", "C")).build()));
        readings.pipeInput(utf8("d"), bytes(dev.tspipe.schemas.Reading.newBuilder(reading("d", "m", T0, 1.0))
                .setTags(Map.of("unit", "K")).build()));

        assertThat(rawRow("d", "m", T0).tags()).isEqualTo(Map.of("unit", "K"));
        assertThat(rollup(RollupStep.MINUTE, "d", "m", RollupStep.MINUTE.bucketStart(T0)).count()).isEqualTo(1);
    }

    @Test
    void outOfOrderReadingsKeepTheNewestAsLatestAndLast() {
        send(reading("d", "m", T0 + 5, 5.0));
        send(reading("d", "m", T0 + 1, 1.0));

        assertThat(latest("d", "m").row().value()).isEqualTo(5.0);
        assertThat(rollup(RollupStep.HOUR, "d", "m", RollupStep.HOUR.bucketStart(T0)).last()).isEqualTo(5.0);
    }

    @Test
    void aRecordNotKeyedByItsDeviceIsRepartitionedAndStoredUnderItsDevice() {
        readings.pipeInput(utf8("gateway-7"), bytes(reading("d1", "m", T0, 1.0)));
        readings.pipeInput((byte[]) null, bytes(reading("d2", "m", T0, 2.0)));

        assertThat(rawRow("d1", "m", T0).value()).isEqualTo(1.0);
        assertThat(rawRow("d2", "m", T0).value()).isEqualTo(2.0);
        assertThat(driver.producedTopicNames()).contains("tspipe-test-" + Topics.BY_DEVICE_REPARTITION + "-repartition");
    }

    @Test
    void aReadNeverReturnsAnExpiredRowEvenBeforeItsSegmentIsDropped() {
        send(reading("d", "m", T0, 1.0));
        long day = java.time.Duration.ofDays(1).toMillis();
        for (int i = 1; i < 7; i++) {
            send(reading("other", "m", T0 + i * day, i));   // stream time moves a day at a time (the future margin)
        }
        long stillInside = T0 + 7 * day;
        send(reading("d", "m", stillInside, 2.0));
        assertThat(dlq.isEmpty()).isTrue();
        assertThat(rawRow("d", "m", T0)).as("exactly at the lifecycle's edge").isNotNull();

        send(reading("d", "m", stillInside + 1, 3.0));

        assertThat(rawRow("d", "m", T0)).isNull();
        List<Double> values = new ArrayList<>();
        try (KeyValueIterator<Bytes, byte[]> series = store(StoreNames.RAW).prefixScan("d#m#",
                new org.apache.kafka.common.serialization.StringSerializer())) {
            series.forEachRemaining(kv -> values.add(dev.tspipe.model.rows.RawRow.fromBytes(kv.value).value()));
        }
        assertThat(values).containsExactly(3.0, 2.0);
        // Rollups have their own, longer lifecycle.
        assertThat(rollup(RollupStep.MINUTE, "d", "m", RollupStep.MINUTE.bucketStart(T0)).count()).isEqualTo(1);
    }

    @Test
    void latestKeepsOneRowPerSeries() {
        send(reading("d", "a", T0, 1.0));
        send(reading("d", "b", T0 + 1, 2.0));
        send(reading("d", "a", T0 + 2, 3.0));

        List<KeyValue<Bytes, byte[]>> rows = new ArrayList<>();
        try (KeyValueIterator<Bytes, byte[]> all = store(StoreNames.LATEST).all()) {
            all.forEachRemaining(rows::add);
        }
        assertThat(rows).hasSize(2);
        assertThat(latest("d", "a").row().value()).isEqualTo(3.0);
    }
}
