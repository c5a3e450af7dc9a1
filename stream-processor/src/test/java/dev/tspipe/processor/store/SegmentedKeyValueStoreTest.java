package dev.tspipe.processor.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tspipe.processor.keys.KeyLayout;
import dev.tspipe.processor.keys.RowKey;
import dev.tspipe.processor.keys.SeriesId;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.apache.kafka.streams.processor.internals.RecordBatchingStateRestoreCallback;
import org.apache.kafka.streams.query.KeyQuery;
import org.apache.kafka.streams.query.PositionBound;
import org.apache.kafka.streams.query.QueryConfig;
import org.apache.kafka.streams.query.QueryResult;
import org.apache.kafka.streams.query.RangeQuery;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rocksdb.CompressionType;

class SegmentedKeyValueStoreTest {

    private static final long DAY = Duration.ofDays(1).toMillis();
    private static final SegmentedStoreSpec SPEC = SegmentedStoreSpec.of("raw-rows", Duration.ofDays(7), Duration.ofDays(1));
    private static final SeriesId TEMP = SeriesId.of("sensor-1", "temp");
    private static final long T0 = 1_700_000_000_000L - 1_700_000_000_000L % DAY;

    @TempDir
    Path stateDir;

    private StoreFixture fixture;

    @BeforeEach
    void open() {
        fixture = StoreFixture.open(stateDir.toFile(), SPEC);
    }

    @AfterEach
    void close() {
        fixture.store.close();
    }

    private static Bytes key(SeriesId series, long ts) {
        return Bytes.wrap(RowKey.encode(KeyLayout.DEFAULT, series, ts));
    }

    private static byte[] value(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private File segmentDir(long ts) {
        return stateDir.resolve(SPEC.name()).resolve(Long.toString(ts / DAY)).toFile();
    }

    @Test
    void refusesKeysThatDoNotEndWithAReversedTimestamp() {
        assertThatThrownBy(() -> fixture.store.put(Bytes.wrap(value("short")), value("v")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'short'");
        assertThatThrownBy(() -> fixture.store.put(Bytes.wrap(value("sensor-1#temp#922337033685477580x")), value("v")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("sensor-1#temp#922337033685477580x");
        assertThatThrownBy(() -> fixture.store.get(Bytes.wrap(value("a\u0001b9999999999999999999"))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("a\\x01b9999999999999999999");
    }

    @Test
    void oldestSegmentDirectoryIsDeletedOnceItsWholeSpanExpiresAndReopeningRestoresStreamTimeAndRows() {
        fixture.store.put(key(TEMP, T0 + 5), value("day0"));
        fixture.store.put(key(TEMP, T0 + DAY + 5), value("day1"));
        assertThat(segmentDir(T0)).isDirectory();
        assertThat(segmentDir(T0 + DAY)).isDirectory();

        // Stream time at T0 + 7 days + 10: the day-0 row is expired (before T0 + 10) but its segment's
        // span is not all expired yet, so the directory stays; reads no longer return the row.
        fixture.store.put(key(TEMP, T0 + 7 * DAY + 10), value("day7"));
        assertThat(fixture.store.get(key(TEMP, T0 + 5))).isNull();
        assertThat(segmentDir(T0)).isDirectory();

        // Past retention + one interval: the whole span of day 0 is expired, the directory goes.
        fixture.store.put(key(TEMP, T0 + 8 * DAY), value("day8"));
        assertThat(segmentDir(T0)).doesNotExist();
        assertThat(segmentDir(T0 + DAY)).isDirectory();
        assertThat(fixture.store.segmentStatistics()).extracting(SegmentStatistics::segmentId)
                .containsExactly(T0 / DAY + 1, T0 / DAY + 7, T0 / DAY + 8);

        fixture.store.commit(Map.of());
        fixture.store.close();
        fixture = StoreFixture.open(stateDir.toFile(), SPEC);
        assertThat(fixture.store.streamTime()).hasValue(T0 + 8 * DAY);
        assertThat(fixture.store.get(key(TEMP, T0 + DAY + 5))).isEqualTo(value("day1"));
        assertThat(fixture.store.get(key(TEMP, T0 + 8 * DAY))).isEqualTo(value("day8"));
        // Stream time is known before any new row: an expired row is still refused after the restart.
        fixture.store.put(key(TEMP, T0 + 2), value("late"));
        assertThat(fixture.store.get(key(TEMP, T0 + 2))).isNull();
        assertThat(segmentDir(T0)).doesNotExist();
    }

    @Test
    void rangesMergeSegmentsInByteOrderAndSkipExpiredRows() {
        SeriesId d1 = SeriesId.of("d1", "t");
        SeriesId d10 = SeriesId.of("d10", "t");
        List<Bytes> keys = new ArrayList<>();
        for (int day = 0; day < 5; day++) {
            for (SeriesId series : List.of(d1, d10)) {
                Bytes k = key(series, T0 + day * DAY + day);
                fixture.store.put(k, value("v" + day));
                keys.add(k);
            }
        }
        keys.sort(null);
        List<Bytes> forward = new ArrayList<>();
        try (KeyValueIterator<Bytes, byte[]> it = fixture.store.range(keys.get(1), keys.get(8))) {
            it.forEachRemaining(kv -> forward.add(kv.key));
        }
        assertThat(forward).containsExactlyElementsOf(keys.subList(1, 9));
        List<Bytes> reverse = new ArrayList<>();
        try (KeyValueIterator<Bytes, byte[]> it = fixture.store.reverseRange(null, keys.get(3))) {
            it.forEachRemaining(kv -> reverse.add(kv.key));
        }
        assertThat(reverse).containsExactly(keys.get(3), keys.get(2), keys.get(1), keys.get(0));
        try (KeyValueIterator<Bytes, byte[]> it = fixture.store.range(keys.get(8), keys.get(1))) {
            assertThat(it.hasNext()).as("from > to").isFalse();
        }

        // Stream time to T0 + 4 days + 4 + 7 days - DAY + 2: rows of day 0 expire, day 1 not yet.
        fixture.store.put(key(d1, T0 + 10 * DAY + 2), value("later"));
        try (KeyValueIterator<Bytes, byte[]> it = fixture.store.prefixScan("d1#", new org.apache.kafka.common.serialization.StringSerializer())) {
            List<String> values = new ArrayList<>();
            it.forEachRemaining(kv -> values.add(new String(kv.value, StandardCharsets.UTF_8)));
            assertThat(values).containsExactly("later", "v4", "v3");
        }
    }

    @Test
    void anOpenIteratorSurvivesTheDropOfASegmentAndClosingTheStoreClosesIt() {
        fixture.store.put(key(TEMP, T0), value("old"));
        fixture.store.put(key(TEMP, T0 + 3 * DAY), value("newer"));
        KeyValueIterator<Bytes, byte[]> scan = fixture.store.reverseAll();
        fixture.store.put(key(TEMP, T0 + 9 * DAY), value("newest"));
        assertThat(segmentDir(T0)).doesNotExist();
        List<String> seen = new ArrayList<>();
        scan.forEachRemaining(kv -> seen.add(new String(kv.value, StandardCharsets.UTF_8)));
        assertThat(seen).containsExactly("newer");
        scan.close();

        KeyValueIterator<Bytes, byte[]> open = fixture.store.all();
        assertThat(open.peekNextKey()).isEqualTo(key(TEMP, T0 + 9 * DAY));
        fixture.store.close();
        assertThat(fixture.store.isOpen()).isFalse();
        assertThatThrownBy(open::hasNext).isInstanceOf(InvalidStateStoreException.class);
        fixture = StoreFixture.open(stateDir.toFile(), SPEC);
    }

    @Test
    void statisticsPerSegmentWithHotAndColdCompression() {
        for (int i = 0; i < 100; i++) {
            fixture.store.put(key(SeriesId.of("d" + i, "t"), T0 + i), value("x".repeat(50)));
            fixture.store.put(key(SeriesId.of("d" + i, "t"), T0 + DAY + i), value("y".repeat(50)));
        }
        fixture.store.commit(Map.of());
        List<SegmentStatistics> statistics = fixture.store.segmentStatistics();
        assertThat(statistics).hasSize(2);
        SegmentStatistics first = statistics.get(0);
        assertThat(first.segmentId()).isEqualTo(T0 / DAY);
        assertThat(first.startMillis()).isEqualTo(T0);
        assertThat(first.endMillis()).isEqualTo(T0 + DAY);
        assertThat(first.estimatedRows()).isEqualTo(100);
        assertThat(first.liveSstBytes()).isPositive();
        assertThat(fixture.store.approximateNumEntries()).isEqualTo(200);
        // Both opened as the newest segment of their time; on reopening, only the newest stays hot.
        assertThat(statistics).extracting(SegmentStatistics::compression)
                .containsExactly(CompressionType.LZ4_COMPRESSION, CompressionType.LZ4_COMPRESSION);
        fixture.store.close();
        fixture = StoreFixture.open(stateDir.toFile(), SPEC);
        assertThat(fixture.store.segmentStatistics()).extracting(SegmentStatistics::compression)
                .containsExactly(CompressionType.ZSTD_COMPRESSION, CompressionType.LZ4_COMPRESSION);
        assertThat(fixture.store.segmentStatistics()).extracting(SegmentStatistics::bottommostCompression)
                .containsOnly(CompressionType.ZSTD_COMPRESSION);
    }

    private void putHundredRowsAndCommit() {
        for (int i = 0; i < 100; i++) {
            fixture.store.put(key(SeriesId.of("d" + i, "t"), T0 + i), value("x".repeat(50)));
        }
        fixture.store.commit(Map.of());
    }

    @Test
    void atLeastOnceEveryCommitPersistsExactlyOnceOnlyClosingDoes() {
        putHundredRowsAndCommit();
        assertThat(fixture.store.segmentStatistics().get(0).liveSstBytes()).isPositive();
        assertThat(stateDir.resolve(SPEC.name()).resolve(SegmentedKeyValueStore.STREAM_TIME_FILE)).exists();
        fixture.store.close();

        Path eosDir = stateDir.resolve("eos");
        fixture = StoreFixture.open(eosDir.toFile(), SPEC, StreamsConfig.EXACTLY_ONCE_V2);
        putHundredRowsAndCommit();
        // Kafka Streams keeps no checkpoint while an exactly-once task runs: nothing needs to be durable yet.
        assertThat(fixture.store.segmentStatistics().get(0).liveSstBytes()).isZero();
        assertThat(eosDir.resolve(SPEC.name()).resolve(SegmentedKeyValueStore.STREAM_TIME_FILE)).doesNotExist();
        fixture.store.close();
        assertThat(eosDir.resolve(SPEC.name()).resolve(SegmentedKeyValueStore.STREAM_TIME_FILE)).hasContent(Long.toString(T0 + 99));

        fixture = StoreFixture.open(eosDir.toFile(), SPEC, StreamsConfig.EXACTLY_ONCE_V2);
        assertThat(fixture.store.approximateNumEntries()).isEqualTo(100);
        assertThat(fixture.store.get(key(SeriesId.of("d7", "t"), T0 + 7))).isEqualTo(value("x".repeat(50)));
        assertThat(fixture.store.streamTime()).hasValue(T0 + 99);
    }

    @Test
    void restorationGoesThroughThePutPathAndSkipsExpiredRows() {
        assertThat(fixture.restoreCallback).isInstanceOf(RecordBatchingStateRestoreCallback.class);
        String topic = "app-raw-rows-changelog";
        List<ConsumerRecord<byte[], byte[]>> batch = List.of(
                new ConsumerRecord<>(topic, 0, 0, key(TEMP, T0 + 9 * DAY).get(), value("new")),
                new ConsumerRecord<>(topic, 0, 1, key(TEMP, T0).get(), value("expired")),
                new ConsumerRecord<>(topic, 0, 2, key(TEMP, T0 + 8 * DAY).get(), value("kept")),
                new ConsumerRecord<>(topic, 0, 3, key(TEMP, T0 + 8 * DAY + 1).get(), value("gone")),
                new ConsumerRecord<>(topic, 0, 4, key(TEMP, T0 + 8 * DAY + 1).get(), null));
        ((RecordBatchingStateRestoreCallback) fixture.restoreCallback).restoreBatch(batch);
        assertThat(fixture.store.streamTime()).hasValue(T0 + 9 * DAY);
        try (KeyValueIterator<Bytes, byte[]> it = fixture.store.all()) {
            List<KeyValue<Bytes, byte[]>> rows = new ArrayList<>();
            it.forEachRemaining(rows::add);
            assertThat(rows).extracting(kv -> new String(kv.value, StandardCharsets.UTF_8)).containsExactly("new", "kept");
        }
        assertThat(segmentDir(T0)).doesNotExist();
    }

    @Test
    void answersIqv2KeyAndRangeQueriesAndTracksThePosition() {
        fixture.processorContext.setRecordMetadata("readings", 3, 41);
        fixture.store.put(key(TEMP, T0 + 1), value("a"));
        fixture.processorContext.setRecordMetadata("readings", 3, 42);
        fixture.store.put(key(TEMP, T0 + DAY), value("b"));
        assertThat(fixture.store.getPosition().getPartitionPositions("readings")).isEqualTo(Map.of(3, 42L));

        QueryResult<byte[]> one = fixture.store.query(KeyQuery.withKey(key(TEMP, T0 + 1)),
                PositionBound.unbounded(), new QueryConfig(false));
        assertThat(one.isSuccess()).isTrue();
        assertThat(one.getResult()).isEqualTo(value("a"));

        QueryResult<KeyValueIterator<Bytes, byte[]>> range = fixture.store.query(
                RangeQuery.<Bytes, byte[]>withRange(key(TEMP, T0 + DAY), key(TEMP, T0)), PositionBound.unbounded(),
                new QueryConfig(false));
        assertThat(range.isSuccess()).isTrue();
        try (KeyValueIterator<Bytes, byte[]> it = range.getResult()) {
            List<String> values = new ArrayList<>();
            it.forEachRemaining(kv -> values.add(new String(kv.value, StandardCharsets.UTF_8)));
            assertThat(values).containsExactly("b", "a");
        }
    }
}
