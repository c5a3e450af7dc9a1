package dev.tspipe.processor.topology;

import dev.tspipe.processor.keys.SeriesId;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link RecentSeries} against a map of everything remembered: a find returns only what was remembered for exactly
 * those bytes (never another series', whatever the slots' collisions), and after a series is remembered its next find
 * returns it unless another series took its slot. Seeded; {@code -Dtspipe.test.seed=N} replays a run.
 */
class RecentSeriesTest {

    @Test
    void aFindReturnsOnlyTheSeriesRememberedForTheSameBytes() {
        long seed = Long.getLong("tspipe.test.seed", System.nanoTime());
        Random random = new Random(seed);
        RecentSeries recent = new RecentSeries();
        Map<String, RecentSeries.Known> remembered = new HashMap<>();
        // More series than slots, so that slots are shared and entries evicted; series that differ only in their
        // device, only in their metric or only in their tenant (none, empty, or bytes like the device's), so that
        // such near twins share slots too.
        int series = RecentSeries.SLOTS * 3;
        int hits = 0;
        for (int step = 0; step < 300_000; step++) {
            int n = random.nextInt(series);
            int i = n / 3;
            String device = n % 3 == 0 ? "d" + i : "d";
            String metric = n % 3 == 1 ? "m" + i : "m";
            String tenant = n % 3 != 2 || i % 4 == 0 ? null : i % 4 == 1 ? "" : i % 4 == 2 ? "d" + i : "t" + i;
            // The bytes as a value holds them, at an offset, with other bytes around them.
            byte[] d = device.getBytes(StandardCharsets.UTF_8);
            byte[] m = metric.getBytes(StandardCharsets.UTF_8);
            byte[] t = tenant == null ? new byte[0] : tenant.getBytes(StandardCharsets.UTF_8);
            int pad = random.nextInt(4);
            byte[] value = new byte[pad + d.length + 3 + m.length + 5 + t.length + 1];
            random.nextBytes(value);
            int deviceAt = pad;
            int metricAt = deviceAt + d.length + 3;
            int tenantAt = metricAt + m.length + 5;
            System.arraycopy(d, 0, value, deviceAt, d.length);
            System.arraycopy(m, 0, value, metricAt, m.length);
            System.arraycopy(t, 0, value, tenantAt, t.length);
            String identity = device + "\u0000" + metric + "\u0000" + tenant;

            RecentSeries.Known found = recent.find(value, deviceAt, d.length, metricAt, m.length,
                    tenant == null ? -1 : tenantAt, t.length);
            if (found != null) {
                hits++;
                assertThat(found).as("seed %d, step %d: %s", seed, step, identity).isSameAs(remembered.get(identity));
            } else {
                RecentSeries.Known known = recent.remember(new SeriesId(tenant, device, metric), identity.getBytes(StandardCharsets.UTF_8));
                remembered.put(identity, known);
                assertThat(recent.find(value, deviceAt, d.length, metricAt, m.length, tenant == null ? -1 : tenantAt, t.length))
                        .as("seed %d, step %d: found right after it was remembered", seed, step).isSameAs(known);
            }
        }
        // Not vacuous: both hits and misses happened.
        assertThat(hits).as("seed %d: hits", seed).isBetween(30_000, 290_000);
    }
}
