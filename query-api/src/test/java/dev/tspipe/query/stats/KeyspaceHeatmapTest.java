package dev.tspipe.query.stats;

import dev.tspipe.model.keys.KeyLayout;
import dev.tspipe.model.keys.RowKey;
import dev.tspipe.model.keys.SeriesId;
import dev.tspipe.processor.store.KeyspaceActivity;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class KeyspaceHeatmapTest {

    private static final long MINUTE = KeyspaceActivity.MINUTE_MS;
    private static final long NOW = 1_800_000_000_000L + 12_345;

    @Test
    void windowsAreWholeMinutesAndAtMostTheHourKept() {
        long end = (NOW / MINUTE + 1) * MINUTE;
        KeyspaceHeatmap.Request defaults = KeyspaceHeatmap.Request.parse(null, null, null, null, NOW);
        assertThat(defaults.from()).isEqualTo(end - 60 * MINUTE);
        assertThat(defaults.to()).isEqualTo(end);
        assertThat(defaults.metric()).isEqualTo(KeyspaceHeatmap.Metric.WRITES);
        assertThat(defaults.ranges()).isEqualTo(KeyspaceHeatmap.DEFAULT_RANGES);

        KeyspaceHeatmap.Request rounded = KeyspaceHeatmap.Request.parse(Long.toString(NOW - 5 * MINUTE), Long.toString(NOW),
                "reads", "3", NOW);
        assertThat(rounded.from()).isEqualTo(end - 6 * MINUTE);
        assertThat(rounded.to()).isEqualTo(end);

        KeyspaceHeatmap.Request cut = KeyspaceHeatmap.Request.parse("0", null, "bytes", "256", NOW);
        assertThat(cut.to() - cut.from()).isEqualTo(60 * MINUTE);
        assertThat(cut.query()).isEqualTo("from=" + cut.from() + "&to=" + cut.to() + "&metric=bytes&ranges=256");

        assertThatThrownBy(() -> KeyspaceHeatmap.Request.parse(null, null, "latency", null, NOW))
                .hasMessageStartingWith("metric: ");
        for (String ranges : List.of("0", "257", "x", "-1")) {
            assertThatThrownBy(() -> KeyspaceHeatmap.Request.parse(null, null, null, ranges, NOW))
                    .hasMessageStartingWith("ranges: ");
        }
    }

    @Test
    void rangesCutTheDevicesInKeyOrderIntoEqualShares() {
        long seed = Long.getLong("tspipe.seed", System.nanoTime());
        Random random = new Random(seed);
        KeyLayout layout = KeyLayout.MULTI_TENANT;
        KeyspaceActivity activity = new KeyspaceActivity();
        long start = (NOW / MINUTE) * MINUTE;
        int devices = 10 + random.nextInt(40);
        long[] written = new long[devices];
        for (int d = 0; d < devices; d++) {
            byte[] key = RowKey.encode(layout, SeriesId.of("acme", String.format("dev-%03d", d), "temp"), 0);
            int writes = 1 + random.nextInt(5);
            for (int i = 0; i < writes; i++) {
                activity.written(key, 10, start + random.nextInt(3) * MINUTE);
            }
            written[d] = writes;
        }
        int ranges = 1 + random.nextInt(12);
        KeyspaceHeatmap.Request request = KeyspaceHeatmap.Request.parse(Long.toString(start - MINUTE),
                Long.toString(start + 3 * MINUTE), "writes", Integer.toString(ranges), NOW);
        List<KeyspaceHeatmap.Range> cut = new KeyspaceHeatmap(null, layout).ranges(activity.window(request.from(), request.to()), request);

        assertThat(cut).as("seed " + seed).hasSize(Math.min(ranges, devices));
        int next = 0;
        for (KeyspaceHeatmap.Range range : cut) {
            assertThat(range.devices()).as("seed " + seed).isBetween(devices / cut.size(), devices / cut.size() + 1);
            assertThat(range.firstDevice()).as("seed " + seed).isEqualTo(String.format("acme/dev-%03d", next));
            assertThat(range.lastDevice()).as("seed " + seed).isEqualTo(String.format("acme/dev-%03d", next + range.devices() - 1));
            long expected = 0;
            for (int d = next; d < next + range.devices(); d++) {
                expected += written[d];
            }
            assertThat(range.total()).as("seed " + seed).isEqualTo(expected);
            assertThat(range.values()).hasSize(4);
            assertThat(range.values()[0]).isZero();
            assertThat(range.values()[1] + range.values()[2] + range.values()[3]).isEqualTo(expected);
            next += range.devices();
        }
        assertThat(next).isEqualTo(devices);
    }
}
