package dev.tspipe.processor.store;

import dev.tspipe.model.keys.KeyLayout;
import dev.tspipe.model.keys.RowKey;
import dev.tspipe.model.keys.SeriesId;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class KeyspaceActivityTest {

    private static final long T = 1_800_000_000_000L - 1_800_000_000_000L % KeyspaceActivity.MINUTE_MS;

    @Test
    void aDeviceIsItsKeysUpToItsSegmentInEveryLayoutAndTable() {
        for (KeyLayout layout : new KeyLayout[] {KeyLayout.DEFAULT, KeyLayout.MULTI_TENANT, new KeyLayout(true, true),
                new KeyLayout(false, true)}) {
            SeriesId series = layout.multiTenant() ? SeriesId.of("acme", "pump#7", "temp.c") : SeriesId.of("pump#7", "temp.c");
            byte[] device = RowKey.deviceRange(layout, series.tenant(), series.device()).from();
            byte[] row = RowKey.encode(layout, series, T);
            byte[] latest = RowKey.seriesPrefix(layout, series);
            assertThat(KeyspaceActivity.devicePrefixLength(row, true)).as(layout + " row").isEqualTo(device.length);
            assertThat(KeyspaceActivity.devicePrefixLength(latest, false)).as(layout + " latest").isEqualTo(device.length);
        }
        assertThat(KeyspaceActivity.devicePrefixLength("no-delimiter".getBytes(), false)).isZero();
    }

    @Test
    void keepsTheLastHourAndIgnoresOlderMinutes() {
        KeyspaceActivity activity = new KeyspaceActivity();
        byte[] key = RowKey.encode(KeyLayout.DEFAULT, SeriesId.of("d", "m"), T);
        for (int minute = 0; minute < 90; minute++) {
            activity.written(key, 100, T + minute * KeyspaceActivity.MINUTE_MS);
        }
        assertThat(activity.minutes().firstKey()).isEqualTo(T / KeyspaceActivity.MINUTE_MS + 30);
        assertThat(activity.minutes()).hasSize(KeyspaceActivity.MINUTES);

        activity.written(key, 100, T);      // late: its minute is gone
        activity.read(key, true, 7, T + 89 * KeyspaceActivity.MINUTE_MS + 1);
        KeyspaceActivity.Window window = activity.window(T, T + 90 * KeyspaceActivity.MINUTE_MS);
        assertThat(window.minutes()).isEqualTo(KeyspaceActivity.MINUTES);
        assertThat(window.startMs()).isEqualTo(T + 30 * KeyspaceActivity.MINUTE_MS);
        KeyspaceActivity.DeviceCounts device = window.devices().get(0);
        long written = 0;
        for (int minute = 0; minute < window.minutes(); minute++) {
            written += device.count(minute, KeyspaceActivity.Counter.WRITE_ROWS);
        }
        assertThat(written).isEqualTo(60);
        assertThat(device.count(59, KeyspaceActivity.Counter.WRITE_BYTES)).isEqualTo(100);
        assertThat(device.count(59, KeyspaceActivity.Counter.READ_ROWS)).isEqualTo(1);
        assertThat(device.count(59, KeyspaceActivity.Counter.READ_BYTES)).isEqualTo(7);
    }

    @Test
    void aSeriesRunCountsAsItsReadingsOneByOne() {
        KeyspaceActivity byReading = new KeyspaceActivity();
        KeyspaceActivity byRun = new KeyspaceActivity();
        SeriesId series = SeriesId.of("acme", "pump#7", "temp.c");
        byte[] prefix = RowKey.seriesPrefix(KeyLayout.MULTI_TENANT, series);
        for (int i = 0; i < 5; i++) {
            byte[] rowKey = RowKey.encode(KeyLayout.MULTI_TENANT, series, T + i * 1_000L);
            byReading.written(rowKey, rowKey.length + 20, T + 5);
        }
        byRun.writtenInSeries(prefix, 5, 5L * (prefix.length + RowKey.TIMESTAMP_DIGITS + 20), T + 5);
        KeyspaceActivity.DeviceCounts one = byReading.window(T, T + KeyspaceActivity.MINUTE_MS).devices().get(0);
        KeyspaceActivity.DeviceCounts run = byRun.window(T, T + KeyspaceActivity.MINUTE_MS).devices().get(0);
        assertThat(run.devicePrefix()).isEqualTo(one.devicePrefix());
        assertThat(run.counts()).isEqualTo(one.counts());
        assertThat(run.count(0, KeyspaceActivity.Counter.WRITE_ROWS)).isEqualTo(5);
    }
}
