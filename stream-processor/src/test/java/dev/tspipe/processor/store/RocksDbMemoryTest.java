package dev.tspipe.processor.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tspipe.model.keys.RowKey;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RocksDbMemoryTest {

    private static final int ROW_BYTES = 100;

    @TempDir
    Path dir;

    private static final long DAY = Duration.ofDays(1).toMillis();
    private static final long T0 = 20_000 * DAY;
    private final List<SeriesStore> stores = new ArrayList<>();

    @AfterEach
    void closeStores() {
        stores.forEach(SeriesStore::close);
    }

    /** A raw segment (a column family of a series store) whose memtable holds {@code rows} rows. */
    private Segment segmentWithRows(String name, int rows) {
        SeriesStore store = SeriesStore.open(SeriesStoreSpec.of(Duration.ofDays(7), Duration.ofDays(1),
                Map.of(RollupStep.MINUTE, Duration.ofDays(30), RollupStep.HOUR, Duration.ofDays(30), RollupStep.DAY, Duration.ofDays(30))),
                dir.resolve(name).toFile());
        stores.add(store);
        for (int i = 0; i < rows; i++) {
            store.ingest(RowKey.withTimestamp(String.format("dev-%06d#temp#", i).getBytes(), T0), T0, new byte[ROW_BYTES], 0);
        }
        store.flush((table, key, value, timestamp) -> { });
        SeriesStoreModelTest.commit(store);
        return store.segmentsOf(Table.RAW).get(0);
    }

    @Test
    void flushesTheLargestMemtablesFirstUntilTheRestIsUnderTheTarget() {
        Segment large = segmentWithRows("large", 20_000);
        Segment medium = segmentWithRows("medium", 10_000);
        Segment small = segmentWithRows("small", 100);
        long largeBytes = large.activeMemtableBytes();
        long mediumBytes = medium.activeMemtableBytes();
        long smallBytes = small.activeMemtableBytes();
        assertThat(largeBytes).isGreaterThan(mediumBytes);
        assertThat(mediumBytes).isGreaterThan(smallBytes);

        // Over the trigger; flushing only the large one would leave medium + small, above the target.
        int flushed = RocksDbMemory.flushLargest(List.of(small, medium, large), smallBytes, smallBytes + mediumBytes / 2);

        assertThat(flushed).isEqualTo(2);
        // The flushes run on RocksDB's background threads: a generous guard against a hang, not a speed requirement.
        Awaitility.await().atMost(Duration.ofMinutes(1)).untilAsserted(() -> {
            assertThat(large.longProperty("rocksdb.live-sst-files-size")).isPositive();
            assertThat(medium.longProperty("rocksdb.live-sst-files-size")).isPositive();
        });
        assertThat(small.longProperty("rocksdb.live-sst-files-size")).isZero();
        assertThat(small.activeMemtableBytes()).isEqualTo(smallBytes);
    }

    @Test
    void doesNothingUnderTheTrigger() {
        Segment one = segmentWithRows("one", 1_000);
        Segment two = segmentWithRows("two", 1_000);
        long total = one.activeMemtableBytes() + two.activeMemtableBytes();

        assertThat(RocksDbMemory.flushLargest(List.of(one, two), total, 0)).isZero();

        assertThat(one.longProperty("rocksdb.live-sst-files-size")).isZero();
        assertThat(two.longProperty("rocksdb.live-sst-files-size")).isZero();
    }
}
