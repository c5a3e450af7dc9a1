package dev.tspipe.processor.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RocksDbMemoryTest {

    private static final int ROW_BYTES = 100;

    @TempDir
    Path dir;

    private final List<Segment> segments = new ArrayList<>();

    @AfterEach
    void closeSegments() {
        segments.forEach(Segment::close);
    }

    private Segment segmentWithRows(String name, int rows) {
        Segment segment = Segment.open(name, 1, dir.resolve(name).toFile(), true);
        segments.add(segment);
        for (int i = 0; i < rows; i++) {
            segment.put(String.format("dev-%06d#temp#9223370336854775807", i).getBytes(), new byte[ROW_BYTES]);
        }
        return segment;
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
