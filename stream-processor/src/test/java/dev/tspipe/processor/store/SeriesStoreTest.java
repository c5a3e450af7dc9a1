package dev.tspipe.processor.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tspipe.processor.keys.RowKey;
import dev.tspipe.processor.rows.RawRow;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.errors.ProcessorStateException;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The series store's commit protocol, crash behaviour, partition pruning and expiry. */
class SeriesStoreTest {

    private static final long DAY = Duration.ofDays(1).toMillis();
    private static final long T0 = 20_000 * DAY + 12 * 3_600_000L;
    private static final byte[] SERIES = "dev-1#temp#".getBytes(StandardCharsets.UTF_8);
    private static final SeriesStore.Changelog NOWHERE = (table, key, value, timestamp) -> { };

    @TempDir
    Path dir;

    private static SeriesStoreSpec spec() {
        return SeriesStoreSpec.of(Duration.ofDays(7), Duration.ofDays(1),
                Map.of(RollupStep.MINUTE, Duration.ofDays(30), RollupStep.HOUR, Duration.ofDays(60), RollupStep.DAY, Duration.ofDays(400)));
    }

    private static void ingest(SeriesStore store, long millis, double value) {
        store.ingest(RowKey.withTimestamp(SERIES, millis), millis, new RawRow(value, Map.of()).toBytes(), value);
    }

    private static Double raw(SeriesStore store, long millis) {
        byte[] row = store.get(Table.RAW, RowKey.withTimestamp(SERIES, millis));
        return row == null ? null : RawRow.fromBytes(row).value();
    }

    private static void commit(SeriesStore store, long offset) {
        for (Table table : Table.values()) {
            store.committed(table, offset, false);
        }
    }

    @Test
    void writesReachTheDatabaseOnlyOnceEveryTableReportsTheirCommit() {
        try (SeriesStore store = SeriesStore.open(spec(), dir.toFile())) {
            ingest(store, T0, 1.0);
            store.flush(NOWHERE);
            assertThat(raw(store, T0)).as("sent, not yet committed").isNull();
            for (Table table : List.of(Table.RAW, Table.MINUTE, Table.HOUR, Table.DAY)) {
                store.committed(table, 7L, false);
            }
            assertThat(raw(store, T0)).as("four of five tables reported").isNull();
            store.committed(Table.LATEST, 7L, false);
            assertThat(raw(store, T0)).isEqualTo(1.0);
            assertThat(store.committedOffset(Table.RAW)).isEqualTo(7L);
            assertThat(store.committedOffset(Table.LATEST)).isEqualTo(7L);
        }
    }

    @Test
    void aCrashKeepsWhatWasCommittedWithItsOffsetsAndDropsWhatWasNot() {
        SeriesStore store = SeriesStore.open(spec(), dir.toFile());
        ingest(store, T0, 1.0);
        store.flush(NOWHERE);
        commit(store, 41L);
        ingest(store, T0 + 1_000, 2.0);
        store.flush(NOWHERE); // the transaction of this batch never commits: the process dies
        store.closeAsInACrash(); // memtables not flushed: the reopened store gets its data back from the write-ahead log
        try (SeriesStore reopened = SeriesStore.open(spec(), dir.toFile())) {
            assertThat(raw(reopened, T0)).isEqualTo(1.0);
            assertThat(raw(reopened, T0 + 1_000)).isNull();
            assertThat(reopened.committedOffset(Table.RAW)).isEqualTo(41L);
            assertThat(reopened.streamTime()).hasValue(T0);
        }
    }

    @Test
    void aCommitReportedWhileTheTransactionIsStillOpenDropsTheWritesInsteadOfApplyingThem() {
        // Kafka Streams 4.4 post-commits the tasks it closes even when committing their transaction failed, then closes
        // them dirty (TaskManager.tryCloseCleanActiveTasks): the store is told by the open transaction.
        try (SeriesStore store = SeriesStore.open(spec(), dir.toFile())) {
            ingest(store, T0, 1.0);
            store.flush(NOWHERE);
            commit(store, 3L);
            ingest(store, T0 + 1_000, 2.0);
            store.flush(NOWHERE);
            for (Table table : Table.values()) {
                store.committed(table, 9L, true);
            }
            assertThat(raw(store, T0 + 1_000)).isNull();
            assertThat(store.committedOffset(Table.RAW)).isEqualTo(3L);
            assertThat(store.uncommittedBytes()).isZero();
        }
        try (SeriesStore reopened = SeriesStore.open(spec(), dir.toFile())) {
            assertThat(raw(reopened, T0)).isEqualTo(1.0);
            assertThat(raw(reopened, T0 + 1_000)).isNull();
            assertThat(reopened.streamTime()).hasValue(T0);
        }
    }

    @Test
    void processingAfterAnUnreportedCommitAppliesTheSentWritesAndForgetsTheOffsets() {
        try (SeriesStore store = SeriesStore.open(spec(), dir.toFile())) {
            ingest(store, T0, 1.0);
            store.flush(NOWHERE);
            commit(store, 5L);
            ingest(store, T0 + 1_000, 2.0);
            store.flush(NOWHERE);
            ingest(store, T0 + 2_000, 3.0);
            assertThat(raw(store, T0 + 1_000)).isEqualTo(2.0);
            assertThat(store.committedOffset(Table.RAW)).as("a crash now restores the whole changelog").isNull();
        }
    }

    @Test
    void aRangeOfOneSeriesReadsOnlyThePartitionsThatOverlapIt() {
        try (SeriesStore store = SeriesStore.open(spec(), dir.toFile())) {
            for (int day = 0; day < 5; day++) {
                ingest(store, T0 + day * DAY, day);
            }
            store.flush(NOWHERE);
            commit(store, 0L);
            assertThat(store.partitionsOf(Table.RAW)).hasSize(5);
            byte[] newest = RowKey.withTimestamp(SERIES, T0 + 2 * DAY + 1);
            byte[] afterOldest = java.util.Arrays.copyOf(RowKey.withTimestamp(SERIES, T0 + DAY), newest.length + 1);
            try (KeyValueIterator<Bytes, byte[]> rows = store.range(Table.RAW, newest, afterOldest, false)) {
                assertThat(((PartitionIterator) rows).partitionsRead()).isEqualTo(2);
                List<Long> found = new ArrayList<>();
                rows.forEachRemaining(row -> found.add(RowKey.timestampOf(row.key.get())));
                assertThat(found).containsExactly(T0 + 2 * DAY, T0 + DAY);
            }
            try (KeyValueIterator<Bytes, byte[]> rows = store.range(Table.RAW, null, null, false)) {
                assertThat(((PartitionIterator) rows).partitionsRead()).isEqualTo(5);
            }
        }
    }

    @Test
    void expiredPartitionsAreDroppedWholeAndExpiredRowsAreNeverRead() {
        try (SeriesStore store = SeriesStore.open(spec(), dir.toFile())) {
            ingest(store, T0, 1.0);
            ingest(store, T0 + DAY, 2.0);
            store.flush(NOWHERE);
            commit(store, 0L);
            ingest(store, T0 + 8 * DAY, 3.0);
            assertThat(raw(store, T0)).as("readers see the last commit, by its stream time").isEqualTo(1.0);
            store.flush(NOWHERE);
            commit(store, 1L);
            assertThat(raw(store, T0)).as("expired once the reading that moved stream time is committed").isNull();
            List<Long> partitions = store.partitionsOf(Table.RAW).stream().map(p -> p.id).toList();
            assertThat(partitions).containsExactly((T0 + DAY) / DAY, (T0 + 8 * DAY) / DAY);
            assertThat(raw(store, T0 + DAY)).isEqualTo(2.0);
            assertThat(store.partitionsOf(Table.MINUTE)).hasSize(3);
        }
    }

    @Test
    void aChangelogOfTheFormerStoresIsRefusedWithWhatToDo() {
        try (SeriesStore store = SeriesStore.open(spec(), dir.toFile())) {
            byte[] oldStyleKey = RowKey.withTimestamp(SERIES, T0);
            assertThatThrownBy(() -> store.restore(Table.RAW, List.of(KeyValue.pair(oldStyleKey, new RawRow(1.0, Map.of()).toBytes()))))
                    .isInstanceOf(ProcessorStateException.class)
                    .hasMessageContaining("reset the application");
        }
    }
}
