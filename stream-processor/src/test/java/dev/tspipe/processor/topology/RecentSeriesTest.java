package dev.tspipe.processor.topology;

import dev.tspipe.model.keys.SeriesId;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link RecentSeries} against a map of everything remembered: a find returns only what was remembered for exactly
 * those bytes (never another series', whatever the slots' collisions), and after a series is remembered its next find
 * returns it unless another series took its slot. Seeded; {@code -Dtspipe.seed=N} replays a run.
 */
class RecentSeriesTest {

    @Test
    void aFindReturnsOnlyTheSeriesRememberedForTheSameBytes() {
        long seed = Long.getLong("tspipe.seed", System.nanoTime());
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
            // The bytes as a value holds them (the metric's length as Avro writes it between device and metric), at an
            // offset, with other bytes around them.
            byte[] d = device.getBytes(StandardCharsets.UTF_8);
            byte[] m = metric.getBytes(StandardCharsets.UTF_8);
            byte[] t = tenant == null ? new byte[0] : tenant.getBytes(StandardCharsets.UTF_8);
            byte[] metricLength = zigZagVarint(m.length);
            int pad = random.nextInt(4);
            byte[] value = new byte[pad + d.length + metricLength.length + m.length + 5 + t.length + 1];
            random.nextBytes(value);
            int deviceAt = pad;
            int metricAt = deviceAt + d.length + metricLength.length;
            int tenantAt = metricAt + m.length + 5;
            System.arraycopy(d, 0, value, deviceAt, d.length);
            System.arraycopy(metricLength, 0, value, deviceAt + d.length, metricLength.length);
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

    @Test
    void aTasksSeriesReadOneAfterAnotherStayRemembered() {
        // As a task of the end-to-end harness's default run reads them: about 830 series (167 devices x 5 metrics),
        // each once per round, in the same order. Set-associative slots keep nearly all of them; direct-mapped ones
        // lost the tenth that shared a slot with another series (each evicting the other at every reading).
        RecentSeries recent = new RecentSeries();
        String[] metrics = {"temperature", "humidity", "pressure", "voltage", "rssi"};
        int misses = 0;
        int finds = 0;
        for (int round = 0; round < 3; round++) {
            for (int device = 0; device < 167; device++) {
                for (String metric : metrics) {
                    byte[] d = String.format("device-%05d", device).getBytes(StandardCharsets.UTF_8);
                    byte[] m = metric.getBytes(StandardCharsets.UTF_8);
                    byte[] metricLength = zigZagVarint(m.length);
                    byte[] value = new byte[d.length + metricLength.length + m.length];
                    System.arraycopy(d, 0, value, 0, d.length);
                    System.arraycopy(metricLength, 0, value, d.length, metricLength.length);
                    System.arraycopy(m, 0, value, d.length + metricLength.length, m.length);
                    RecentSeries.Known found = recent.find(value, 0, d.length, d.length + metricLength.length, m.length, -1, 0);
                    if (found == null) {
                        recent.remember(SeriesId.of(new String(d, StandardCharsets.UTF_8), metric), value);
                    }
                    if (round > 0) {
                        finds++;
                        misses += found == null ? 1 : 0;
                    }
                }
            }
        }
        assertThat(misses).as("misses of %d finds after the first round", finds).isLessThanOrEqualTo(finds / 100);
    }

    @Test
    void whereTheMetricStartsIsPartOfTheSeries() {
        // "ab" + length 1 + "c" and "a" + length 1 + "bc"? Not the same bytes; but device "a\u0004" with metric "bc"
        // (length 2: zig-zag 4) and device "a" with the metric "\u0004bc"... the device's length tells them apart.
        RecentSeries recent = new RecentSeries();
        byte[] first = {'a', 4, 4, 'b', 'c'};    // device "a\u0004", metric "bc"
        assertThat(recent.find(first, 0, 2, 3, 2, -1, 0)).isNull();
        RecentSeries.Known known = recent.remember(SeriesId.of("a\u0004", "bc"), new byte[]{1});
        assertThat(recent.find(first, 0, 2, 3, 2, -1, 0)).isSameAs(known);
        // The same five bytes read as device "a", then a length byte, then a 3-byte metric: another series.
        assertThat(recent.find(first, 0, 1, 2, 3, -1, 0)).isNull();
    }

    private static byte[] zigZagVarint(int n) {
        int v = n << 1;
        return v < 0x80 ? new byte[]{(byte) v} : new byte[]{(byte) (v | 0x80), (byte) (v >>> 7)};
    }
}
