package dev.tspipe.bench;

import dev.tspipe.model.keys.KeyLayout;
import dev.tspipe.model.keys.RowKey;
import dev.tspipe.model.keys.SeriesId;
import dev.tspipe.model.rows.Rollup;
import dev.tspipe.processor.store.RollupStep;
import dev.tspipe.schemas.Reading;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The benchmarks measure what they claim to: each method, called once outside JMH, does the
 * work its name says on valid inputs (a benchmark of an exception path would look fast).
 * Nothing is timed here; the figures come from {@code java -jar bench/target/benchmarks.jar}.
 */
class BenchmarkInputsTest {

    @Test
    void rowKeyBenchmarksEncodeAndDecodeTheirKeys() {
        RowKeyBenchmark bench = new RowKeyBenchmark();
        bench.setUp();

        assertThat(new String(bench.encodeTypical(), StandardCharsets.US_ASCII))
                .isEqualTo("sensor-000123#temperature#9223370336854775807")
                .hasSize(45);
        assertThat(bench.decodeTypical())
                .isEqualTo(RowKey.of(SeriesId.of("sensor-000123", "temperature"), RowKeyBenchmark.TIMESTAMP));
        assertThat(new String(bench.encodeWithEscapes(), StandardCharsets.US_ASCII))
                .startsWith("Z%C3%BCrich%20S%C3%BCd%20%C2%B0C%20%E2%82%AC1#temperature#");
        assertThat(new String(bench.encodeSalted(), StandardCharsets.US_ASCII))
                .matches("[0-9a-f]{4}#sensor-000123#temperature#9223370336854775807");
    }

    @Test
    void rollupBenchmarkAddsTheReadingToTheStoredBucket() {
        RollupBenchmark bench = new RollupBenchmark();
        bench.setUp();

        assertThat(new String(bench.bucketKey(RollupStep.HOUR), StandardCharsets.US_ASCII))
                .isEqualTo(new String(RowKey.encodeRollup(KeyLayout.DEFAULT, SeriesId.of("sensor-000123", "temperature"),
                        RollupStep.HOUR.bucketStart(RollupBenchmark.TIMESTAMP)), StandardCharsets.US_ASCII));
        // Stored: 20.5 and 19.0; the benchmark adds 21.25 as the newest reading.
        assertThat(Rollup.fromBytes(bench.updatedBucket()))
                .isEqualTo(new Rollup(3, 60.75, 19.0, 21.25, 21.25, RollupBenchmark.TIMESTAMP));
    }

    @Test
    void avroSerdeBenchmarksRoundTripTheReading() {
        AvroSerdeBenchmark bench = new AvroSerdeBenchmark();
        bench.setUp();
        try {
            byte[] bytes = bench.serialize();

            assertThat(bytes).startsWith(0x00);
            assertThat(bench.serializeCachedRegistry()).isEqualTo(bytes);
            assertThat(bench.deserialize()).isInstanceOf(Reading.class).isEqualTo(bench.reading);
        } finally {
            bench.tearDown();
        }
    }
}
