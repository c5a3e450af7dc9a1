package dev.tspipe.processor.topology;

import dev.tspipe.model.keys.RowKey;
import dev.tspipe.model.keys.SeriesId;
import dev.tspipe.processor.store.KeyspaceActivity.Counter;
import dev.tspipe.processor.store.KeyspaceActivity;
import dev.tspipe.processor.store.SeriesStore;
import dev.tspipe.processor.store.StoreNames;
import dev.tspipe.processor.store.Table;
import dev.tspipe.processor.store.TableStore;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

/**
 * The key-space heatmap's counters, exactly: every reading the topology stores counts once as a write of its row's
 * bytes, in the wall-clock minute of the task (the driver's mock clock), for its device; every row the queryable
 * tables return counts once as a read. Checked against counts kept by the test, with seeded random writes.
 */
class KeyspaceTopologyTest extends TopologyTestBase {

    private static final long MINUTE = KeyspaceActivity.MINUTE_MS;

    @Test
    void writesAndReadsAreCountedPerDeviceAndMinute() {
        long seed = Long.getLong("tspipe.seed", System.nanoTime());
        try {
            check(new Random(seed));
        } catch (AssertionError e) {
            fail("seed " + seed + ": " + e.getMessage(), e);
        }
    }

    private void check(Random random) {
        KeyValueStore<Bytes, byte[]> raw = store(StoreNames.RAW);
        SeriesStore store = TableStore.seriesStoreOf(raw);
        long firstMinute = Math.floorDiv(System.currentTimeMillis(), MINUTE);
        List<String> devices = List.of("pump-7", "a", "sensor-10", "sensor-9", "z-last", "b#c", "µ-device");
        // Expected: per device (by its key prefix), per minute offset, rows and bytes written.
        Map<String, long[][]> written = new HashMap<>();
        List<byte[]> storedKeys = new ArrayList<>();
        for (int minute = 0; minute < 3; minute++) {
            if (minute > 0) {
                driver.advanceWallClockTime(Duration.ofMinutes(1));
            }
            int readings = 20 + random.nextInt(40);
            for (int i = 0; i < readings; i++) {
                String device = devices.get(random.nextInt(devices.size()));
                long timestamp = T0 + random.nextInt(600) * 1_000L;
                boolean otherKey = random.nextInt(5) == 0;
                double value = random.nextInt(3);
                if (otherKey) {
                    // Keyed by something else: repartitioned by device, stored (and counted) once, by the second decode.
                    sendKeyed("not-the-device", reading(device, "temp", timestamp, value));
                } else {
                    send(reading(device, "temp", timestamp, value));
                }
                byte[] key = RowKey.encode(config.keyLayout(), SeriesId.of(device, "temp"), timestamp);
                byte[] row = store.get(Table.RAW, key);
                assertThat(row).as("stored row of " + device).isNotNull();
                storedKeys.add(key);
                long[][] counts = written.computeIfAbsent(device, d -> new long[3][2]);
                counts[minute][0]++;
                counts[minute][1] += key.length + row.length;
            }
            // A reading too old for the raw lifecycle is refused before it is stored: not a write.
            send(reading(devices.get(0), "temp", T0 - config.rawRetentionMs() - 3_600_000L, 1.0));
        }

        // Reads through the queryable table (as the HTTP API reads): a get and a scan of each of some devices.
        Map<String, long[]> read = new HashMap<>();
        for (int i = 0; i < 10; i++) {
            byte[] key = storedKeys.get(random.nextInt(storedKeys.size()));
            byte[] value = raw.get(Bytes.wrap(key));
            String device = RowKey.fromBytes(key, config.keyLayout()).series().device();
            long[] counts = read.computeIfAbsent(device, d -> new long[2]);
            counts[0]++;
            counts[1] += key.length + value.length;
        }
        for (String device : List.of("sensor-10", "b#c")) {
            var range = RowKey.deviceRange(config.keyLayout(), null, device);
            try (KeyValueIterator<Bytes, byte[]> rows = raw.range(Bytes.wrap(range.from()), Bytes.wrap(range.toExclusive()))) {
                while (rows.hasNext()) {
                    KeyValue<Bytes, byte[]> row = rows.next();
                    long[] counts = read.computeIfAbsent(device, d -> new long[2]);
                    counts[0]++;
                    counts[1] += row.key.get().length + row.value.length;
                }
            }
        }

        KeyspaceActivity.Window window = store.keyspace().window((firstMinute - 2) * MINUTE, (firstMinute + 4) * MINUTE);
        assertThat(window.startMs()).isEqualTo((firstMinute - 2) * MINUTE);
        // The driver's clock started in the minute of the test's start or, when a minute began in between, the one before.
        int firstColumn = 2;
        for (KeyspaceActivity.DeviceCounts counts : window.devices()) {
            if (counts.count(1, Counter.WRITE_ROWS) > 0) {
                firstColumn = 1;
            }
        }

        // Devices in row-key order, each exactly once.
        TreeMap<byte[], String> byKey = new TreeMap<>(Arrays::compareUnsigned);
        for (String device : written.keySet()) {
            byKey.put(RowKey.deviceRange(config.keyLayout(), null, device).from(), device);
        }
        read.keySet().forEach(device -> byKey.put(RowKey.deviceRange(config.keyLayout(), null, device).from(), device));
        List<String> order = new ArrayList<>();
        for (KeyspaceActivity.DeviceCounts counts : window.devices()) {
            order.add(byKey.get(counts.devicePrefix()));
        }
        assertThat(order).containsExactlyElementsOf(byKey.values());

        for (KeyspaceActivity.DeviceCounts counts : window.devices()) {
            String device = byKey.get(counts.devicePrefix());
            long[][] expected = written.getOrDefault(device, new long[3][2]);
            for (int minute = 0; minute < 3; minute++) {
                int column = firstColumn + minute;
                assertThat(counts.count(column, Counter.WRITE_ROWS)).as(device + " rows written in minute " + minute)
                        .isEqualTo(expected[minute][0]);
                assertThat(counts.count(column, Counter.WRITE_BYTES)).as(device + " bytes written in minute " + minute)
                        .isEqualTo(expected[minute][1]);
            }
            long rowsRead = 0;
            long bytesRead = 0;
            for (int column = 0; column < window.minutes(); column++) {
                rowsRead += counts.count(column, Counter.READ_ROWS);
                bytesRead += counts.count(column, Counter.READ_BYTES);
            }
            long[] expectedRead = read.getOrDefault(device, new long[2]);
            assertThat(rowsRead).as(device + " rows read").isEqualTo(expectedRead[0]);
            assertThat(bytesRead).as(device + " bytes read").isEqualTo(expectedRead[1]);
        }
    }

    private void sendKeyed(String key, dev.tspipe.schemas.Reading reading) {
        readings.pipeInput(key.getBytes(StandardCharsets.UTF_8), bytes(reading));
    }
}
