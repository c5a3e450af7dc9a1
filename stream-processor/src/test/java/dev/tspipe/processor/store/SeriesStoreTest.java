package dev.tspipe.processor.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tspipe.model.blocks.BlockReader;
import dev.tspipe.model.blocks.ChunkWriter;
import dev.tspipe.model.keys.RowKey;
import dev.tspipe.model.rows.LatestReading;
import dev.tspipe.model.rows.RawRow;
import dev.tspipe.model.rows.Rollup;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.errors.ProcessorStateException;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The series store's commit protocol, crash behaviour, segment pruning and expiry. */
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

    /** Kafka Streams reports a commit whose transaction did not commit (the task is then closed dirty). */
    private static void commitWithTheTransactionStillOpen(SeriesStore store, long offset) {
        for (Table table : Table.values()) {
            store.committed(table, offset, true);
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
            commitWithTheTransactionStillOpen(store, 9L);
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

    /**
     * Stream time goes back with a dropped commit (issue 49, item 3): Kafka Streams may hand the same open store on
     * instead of closing it, and a stream time left at the dropped reading's would have the next commit expire the
     * committed readings for readers (and the topology refuse valid readings as expired). Before: stream time stayed at
     * {@code T0 + 8 days} and the reading at {@code T0} was gone after the next commit.
     */
    @Test
    void aDroppedCommitTakesItsStreamTimeBackWithIt() {
        try (SeriesStore store = SeriesStore.open(spec(), dir.toFile())) {
            ingest(store, T0, 1.0);
            store.flush(NOWHERE);
            commit(store, 3L);
            ingest(store, T0 + 8 * DAY, 2.0);
            store.flush(NOWHERE);
            commitWithTheTransactionStillOpen(store, 9L);
            assertThat(store.streamTime()).hasValue(T0);
            ingest(store, T0 + 1_000, 3.0);
            store.flush(NOWHERE);
            commit(store, 4L);
            assertThat(store.streamTime()).hasValue(T0 + 1_000);
            assertThat(raw(store, T0)).isEqualTo(1.0);
            assertThat(raw(store, T0 + 8 * DAY)).isNull();
        }
    }

    /** A flush that fails forgets its readings, and the stream time they advanced with them (issue 49, item 3). */
    @Test
    void aFailedFlushTakesTheStreamTimeOfItsReadingsBack() {
        SeriesStore.Changelog failing = (table, key, value, timestamp) -> {
            throw new IllegalStateException("the producer is closed");
        };
        try (SeriesStore store = SeriesStore.open(spec(), dir.toFile())) {
            ingest(store, T0, 1.0);
            store.flush(NOWHERE);
            commit(store, 3L);
            ingest(store, T0 + 8 * DAY, 2.0);
            assertThat(store.streamTime()).hasValue(T0 + 8 * DAY);
            assertThatThrownBy(() -> store.flush(failing)).isInstanceOf(IllegalStateException.class);
            assertThat(store.streamTime()).hasValue(T0);
            assertThat(store.segmentsOf(Table.RAW)).as("the segment the failed flush created is dropped again")
                    .extracting(segment -> segment.id).containsExactly(T0 / DAY);
            ingest(store, T0 + 1_000, 3.0);
            store.flush(NOWHERE);
            commit(store, 4L);
            assertThat(raw(store, T0)).isEqualTo(1.0);
            assertThat(raw(store, T0 + 1_000)).isEqualTo(3.0);
        }
    }

    /**
     * Kafka Streams 4.4 reports each table's commit with {@code {changelog partition: offset}} (-4 where its changelog has
     * no record yet, which the store keeps and gives back, read by Kafka Streams as "unknown"), and with an empty map to
     * a store it marked corrupted (issue 49, item 6). A table reported without an offset still completes the commit, its
     * own offset unknown and the others' kept. Before, {@code TableStore} ignored the empty map: the commit waited for the
     * next reading, which applied it without any table's offset, so that a crash then restored every changelog whole.
     */
    @Test
    void aTableReportedWithoutAnOffsetCompletesTheCommitAndTheOtherTablesKeepTheirOffsets() {
        org.apache.kafka.common.TopicPartition partition = new org.apache.kafka.common.TopicPartition("c", 0);
        assertThat(TableStore.reportedOffset(Map.of())).isNull();
        assertThat(TableStore.reportedOffset(Map.of(partition, -4L))).isEqualTo(-4L);
        assertThat(TableStore.reportedOffset(Map.of(partition, 41L))).isEqualTo(41L);
        try (SeriesStore store = SeriesStore.open(spec(), dir.toFile())) {
            ingest(store, T0, 1.0);
            store.flush(NOWHERE);
            for (Table table : Table.values()) {
                store.committed(table, table == Table.LATEST ? TableStore.reportedOffset(Map.of())
                        : TableStore.reportedOffset(Map.of(partition, 41L)), false);
            }
            assertThat(raw(store, T0)).as("applied at the fifth report").isEqualTo(1.0);
            assertThat(store.committedOffset(Table.LATEST)).isNull();
            assertThat(store.committedOffset(Table.RAW)).isEqualTo(41L);
            assertThat(store.committedOffset(Table.HOUR)).isEqualTo(41L);
        }
    }

    @Test
    void aChunkAfterADroppedCommitDoesNotInheritTheTagSetsOfTheChunkThatWasDropped() {
        Map<String, String> celsius = Map.of("unit", "°C");
        Map<String, String> kelvin = Map.of("unit", "K");
        try (SeriesStore store = SeriesStore.open(spec(), dir.toFile())) {
            store.ingest(RowKey.withTimestamp(SERIES, T0), T0, new RawRow(1.0, celsius).toBytes(), 1.0);
            store.flush(NOWHERE);
            commit(store, 3L);
            // A chunk of other tag sets, flushed, then dropped with its transaction.
            store.ingest(RowKey.withTimestamp(SERIES, T0 + 1_000), T0 + 1_000, new RawRow(2.0, kelvin).toBytes(), 2.0);
            store.flush(NOWHERE);
            commitWithTheTransactionStillOpen(store, 9L);
            // The next chunk has the dropped one's sets: it must write them out, the block's last chunk being the first.
            store.ingest(RowKey.withTimestamp(SERIES, T0 + 2_000), T0 + 2_000, new RawRow(3.0, kelvin).toBytes(), 3.0);
            store.flush(NOWHERE);
            commit(store, 11L);
            assertThat(RawRow.fromBytes(store.get(Table.RAW, RowKey.withTimestamp(SERIES, T0)))).isEqualTo(new RawRow(1.0, celsius));
            assertThat(store.get(Table.RAW, RowKey.withTimestamp(SERIES, T0 + 1_000))).isNull();
            assertThat(RawRow.fromBytes(store.get(Table.RAW, RowKey.withTimestamp(SERIES, T0 + 2_000)))).isEqualTo(new RawRow(3.0, kelvin));
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
    void aLargeCommitIsAppliedInSeveralBatchesAllAtTheCommitReportAndAllOfItSurvivesACrashAfterIt() {
        SeriesStore store = SeriesStore.open(spec(), dir.toFile());
        int series = 300;
        int readings = 20;
        for (int s = 0; s < series; s++) {
            byte[] prefix = ("dev-" + s + "#temp#").getBytes(StandardCharsets.UTF_8);
            for (int i = 0; i < readings; i++) {
                long millis = T0 + i * 1_000L;
                // A tag set per reading: its block's chunk holds each (a long one), so the commit is large.
                Map<String, String> tags = Map.of("site", "a".repeat(60) + i);
                store.ingest(RowKey.withTimestamp(prefix, millis), millis, new RawRow(s + i / 100.0, tags).toBytes(), s + i / 100.0);
            }
        }
        store.flush(NOWHERE);
        assertThat(store.sentBatches()).as("batches of at most %d bytes", CommitProtocol.FLUSH_BATCH_BYTES).isGreaterThan(1);
        byte[] first = RowKey.withTimestamp("dev-0#temp#".getBytes(StandardCharsets.UTF_8), T0);
        assertThat(store.get(Table.RAW, first)).as("no batch is applied before the report").isNull();
        commit(store, 12L);
        store.closeAsInACrash();
        try (SeriesStore reopened = SeriesStore.open(spec(), dir.toFile())) {
            for (int s = 0; s < series; s++) {
                byte[] prefix = ("dev-" + s + "#temp#").getBytes(StandardCharsets.UTF_8);
                for (int i = 0; i < readings; i++) {
                    byte[] row = reopened.get(Table.RAW, RowKey.withTimestamp(prefix, T0 + i * 1_000L));
                    assertThat(row).as("series %d reading %d", s, i).isNotNull();
                    assertThat(RawRow.fromBytes(row).value()).isEqualTo(s + i / 100.0);
                }
                Rollup minute = Rollup.fromBytes(reopened.get(Table.MINUTE, RowKey.withTimestamp(prefix, RollupStep.MINUTE.bucketStart(T0))));
                assertThat(minute.count()).as("series %d", s).isEqualTo(readings);
            }
            assertThat(reopened.committedOffset(Table.RAW)).isEqualTo(12L);
        }
    }

    @Test
    void aBlockTheSeriesHasLeftIsWrittenAgainAsOneChunkWhileItsChangelogKeepsTheChunks() {
        long hour = T0 - T0 % 3_600_000L;
        byte[] block = RowKey.withTimestamp(SERIES, hour);
        List<KeyValue<byte[], byte[]>> changelog = new ArrayList<>();
        SeriesStore.Changelog raw = (table, key, value, timestamp) -> {
            if (table == Table.RAW) {
                changelog.add(KeyValue.pair(key, value));
            }
        };
        try (SeriesStore store = SeriesStore.open(spec(), dir.resolve("live").toFile())) {
            for (int i = 0; i < 3; i++) {
                ingest(store, hour + i * 1_000L, i + 0.5);
                store.flush(raw);
                commit(store, i);
            }
            assertThat(new BlockReader().read(store.storedBlock(block), hour).chunks()).as("a chunk per commit").isEqualTo(3);
            // The next hour's first reading, and a late one in the block left.
            ingest(store, hour + 3_600_000L, 9.5);
            ingest(store, hour + 10_000L, 7.5);
            store.flush(raw);
            commit(store, 3);
            assertBlock(store, block, hour, 2, "the block written again as one chunk, and the late reading's chunk after it");
        }
        // The seal is local: the changelog holds the three chunks, the late chunk and the next block's chunk, no whole
        // block, in one record per flush.
        assertThat(changelog).as("a record per flush").hasSize(4);
        List<KeyValue<byte[], byte[]>> chunks = ChangelogGroups.chunks(changelog);
        assertThat(chunks).hasSize(5);
        assertThat(chunks).noneMatch(record -> record.value[0] == CommitProtocol.WHOLE_BLOCK);
        assertThat(chunks).filteredOn(record -> Arrays.equals(record.key, block)).as("the block's four chunks").hasSize(4);
        try (SeriesStore restored = SeriesStore.open(spec(), dir.resolve("restored").toFile())) {
            restored.restore(Table.RAW, changelog);
            commit(restored, 9);
            assertBlock(restored, block, hour, 4, "the chunks as the commits sent them");
            assertThat(restored.streamTime()).hasValue(hour + 3_600_000L);
        }
    }

    @Test
    void anOpenBlockOfManyChunksIsWrittenAgainAndItsChunksLeaveOutTheSetsOfTheChunkBefore() {
        long hour = T0 - T0 % 3_600_000L;
        byte[] block = RowKey.withTimestamp(SERIES, hour);
        Map<String, String> celsius = Map.of("unit", "°C");
        List<KeyValue<byte[], byte[]>> changelog = new ArrayList<>();
        SeriesStore.Changelog raw = (table, key, value, timestamp) -> {
            if (table == Table.RAW) {
                changelog.add(KeyValue.pair(key, value));
            }
        };
        List<Integer> chunks = new ArrayList<>();
        try (SeriesStore store = SeriesStore.open(spec(), dir.resolve("live").toFile())) {
            for (int i = 0; i < 7; i++) {
                // The fourth reading has other tags: its chunk and the one after it write their sets out.
                Map<String, String> tags = i == 3 ? Map.of("unit", "K") : celsius;
                store.ingest(RowKey.withTimestamp(SERIES, hour + i * 1_000L), hour + i * 1_000L,
                        new RawRow(i + 0.5, tags).toBytes(), i + 0.5);
                store.flush(raw);
                commit(store, i);
                chunks.add(new BlockReader().read(store.storedBlock(block), hour).chunks());
            }
            // Rewritten as one chunk by the flush that found four, then appended to: 1, 2, 3, 4, 2, 3, 4.
            assertThat(chunks).containsExactly(1, 2, 3, 4, 2, 3, 4);
            assertRows(store, hour, 7);
        }
        assertThat(changelog).hasSize(7);
        List<Boolean> inherited = ChangelogGroups.chunks(changelog).stream().map(record -> (record.value[0] & 0x02) != 0).toList();
        assertThat(inherited).containsExactly(false, true, true, false, false, true, true);
        try (SeriesStore restored = SeriesStore.open(spec(), dir.resolve("restored").toFile())) {
            restored.restore(Table.RAW, changelog);
            commit(restored, 9);
            assertThat(new BlockReader().read(restored.storedBlock(block), hour).chunks()).isEqualTo(7);
            assertRows(restored, hour, 7);
        }
    }

    /** A changelog that keeps the records of every table, in the order sent. */
    private static final class Recorded implements SeriesStore.Changelog {
        final Map<Table, List<KeyValue<byte[], byte[]>>> records = new java.util.EnumMap<>(Table.class);

        @Override
        public void send(Table table, byte[] key, byte[] value, long timestamp) {
            records.computeIfAbsent(table, t -> new ArrayList<>()).add(KeyValue.pair(key, value));
        }

        List<KeyValue<byte[], byte[]>> of(Table table) {
            return records.getOrDefault(table, List.of());
        }
    }

    private static LatestReading latest(SeriesStore store, byte[] prefix) {
        byte[] latest = store.get(Table.LATEST, prefix);
        return latest == null ? null : LatestReading.fromBytes(latest);
    }

    @Test
    void theLatestReadingIsRestoredFromTheRawChunksWithTheTagSetsTheyInheritAndNoLatestRecordIsSent() {
        long hour = T0 - T0 % 3_600_000L;
        Recorded changelog = new Recorded();
        try (SeriesStore store = SeriesStore.open(spec(), dir.resolve("live").toFile())) {
            for (int i = 0; i < 7; i++) {
                Map<String, String> tags = i == 3 ? Map.of("unit", "K") : Map.of("unit", "°C");
                store.ingest(RowKey.withTimestamp(SERIES, hour + i * 1_000L), hour + i * 1_000L,
                        new RawRow(i + 0.5, tags).toBytes(), i + 0.5);
                store.flush(changelog);
                commit(store, i);
            }
        }
        assertThat(changelog.of(Table.LATEST)).as("no latest record: nothing is sealed").isEmpty();
        List<KeyValue<byte[], byte[]>> raw = changelog.of(Table.RAW);
        List<Boolean> inherited = ChangelogGroups.chunks(raw).stream().map(record -> (record.value[0] & 0x02) != 0).toList();
        assertThat(inherited).as("as anOpenBlockOfManyChunks... found").containsExactly(false, true, true, false, false, true, true);
        // Record by record, each written: a chunk that inherits takes the sets of the chunk before it, as restored.
        try (SeriesStore restored = SeriesStore.open(spec(), dir.resolve("restored").toFile())) {
            for (int i = 0; i < 7; i++) {
                restored.restore(Table.RAW, List.of(raw.get(i)));
                commit(restored, i);
                assertThat(latest(restored, SERIES)).as("after record %d", i).isEqualTo(new LatestReading(hour + i * 1_000L,
                        new RawRow(i + 0.5, i == 3 ? Map.of("unit", "K") : Map.of("unit", "°C"))));
            }
        }
        // The chunk before it restored by another store object (a restart): the reading's tags are read from its block.
        try (SeriesStore restored = SeriesStore.open(spec(), dir.resolve("restarted").toFile())) {
            restored.restore(Table.RAW, raw.subList(0, 5));
            commit(restored, 4);
        }
        try (SeriesStore restored = SeriesStore.open(spec(), dir.resolve("restarted").toFile())) {
            restored.restore(Table.RAW, List.of(raw.get(5)));
            commit(restored, 5);
            assertThat(latest(restored, SERIES)).isEqualTo(new LatestReading(hour + 5_000L, new RawRow(5.5, Map.of("unit", "°C"))));
        }
    }

    @Test
    void aRestoredChunkReplacesTheLatestReadingOnlyWithOneAsNewOrNewer() {
        try (SeriesStore store = SeriesStore.open(spec(), dir.toFile())) {
            store.restore(Table.RAW, List.of(rawGroup(T0 + 5_000, 5.0)));
            commit(store, 0);
            store.restore(Table.RAW, List.of(rawGroup(T0, 1.0)));
            commit(store, 1);
            assertThat(latest(store, SERIES).epochMillis()).as("an older chunk").isEqualTo(T0 + 5_000);
        }
        try (SeriesStore store = SeriesStore.open(spec(), dir.toFile())) {
            // What the table holds is read, not known from the restore before.
            store.restore(Table.RAW, List.of(rawGroup(T0 + 1_000, 2.0)));
            commit(store, 2);
            assertThat(latest(store, SERIES).row().value()).isEqualTo(5.0);
            store.restore(Table.RAW, List.of(rawGroup(T0 + 5_000, 6.0)));
            commit(store, 3);
            assertThat(latest(store, SERIES).row().value()).as("a correction of the newest reading").isEqualTo(6.0);
            // Both in one batch: the later of the two.
            store.restore(Table.RAW, List.of(rawGroup(T0 + 6_000, 7.0), rawGroup(T0 + 6_000, 8.0), rawGroup(T0 + 3_000, 9.0)));
            commit(store, 4);
            assertThat(latest(store, SERIES)).isEqualTo(new LatestReading(T0 + 6_000, new RawRow(8.0, Map.of())));
            assertThat(store.ingest(RowKey.withTimestamp(SERIES, T0 + 6_000), T0 + 6_000, new RawRow(8.0, Map.of()).toBytes(), 8.0))
                    .isEqualTo(SeriesStore.Outcome.DUPLICATE);
        }
    }

    @Test
    void aBatchOfTheLatestChangelogWithABadRecordIsLeftOutWhole() {
        byte[] row = new RawRow(1.0, Map.of()).toBytes();
        KeyValue<byte[], byte[]> good = KeyValue.pair(SERIES, ByteBuffer.allocate(8 + row.length).putLong(T0).put(row).array());
        try (SeriesStore store = SeriesStore.open(spec(), dir.toFile())) {
            assertThatThrownBy(() -> store.restore(Table.LATEST, List.of(good, KeyValue.pair(SERIES, new byte[3]))))
                    .isInstanceOf(ProcessorStateException.class).hasMessageContaining("not a latest reading");
            commit(store, 0);
            assertThat(latest(store, SERIES)).as("the good record of the batch that failed").isNull();
            store.restore(Table.LATEST, List.of(good));
            commit(store, 1);
            assertThat(latest(store, SERIES)).isEqualTo(new LatestReading(T0, new RawRow(1.0, Map.of())));
        }
    }

    @Test
    void theSealSendsTheLatestReadingOfASeriesWhoseReadingsItTookAllAndARestoreKeepsIt() {
        byte[] silent = "dev-2#temp#".getBytes(StandardCharsets.UTF_8);
        Recorded changelog = new Recorded();
        try (SeriesStore store = SeriesStore.open(spec(), dir.resolve("live").toFile())) {
            store.ingest(RowKey.withTimestamp(silent, T0), T0, new RawRow(1.0, Map.of("unit", "°C")).toBytes(), 1.0);
            ingest(store, T0, 1.0);
            store.flush(changelog);
            commit(store, 0);
            ingest(store, T0 + 8 * DAY, 2.0);
            store.flush(changelog);
            commit(store, 1);
            // This flush seals what the applied stream time expired: both series' first block.
            ingest(store, T0 + 8 * DAY + 1_000, 3.0);
            store.flush(changelog);
            commit(store, 2);
        }
        assertThat(changelog.of(Table.LATEST)).extracting(record -> new String(record.key, StandardCharsets.UTF_8))
                .as("the seal, and the series whose readings it all took").containsExactlyInAnyOrder("\0sealed-through", "dev-2#temp#");
        try (SeriesStore restored = SeriesStore.open(spec(), dir.resolve("restored").toFile())) {
            for (Table table : Table.values()) {
                restored.restore(table, changelog.of(table));
            }
            commit(restored, 9);
            assertThat(latest(restored, silent)).isEqualTo(new LatestReading(T0, new RawRow(1.0, Map.of("unit", "°C"))));
            assertThat(latest(restored, SERIES)).isEqualTo(new LatestReading(T0 + 8 * DAY + 1_000, new RawRow(3.0, Map.of())));
        }
    }

    @Test
    void aFlushOfManySeriesSendsItsChunksInSeveralGroupsThatRestoreEveryReading() {
        Random random = new Random(7);
        int seriesCount = 3_000;
        Recorded changelog = new Recorded();
        Map<Integer, double[]> values = new java.util.HashMap<>();
        try (SeriesStore store = SeriesStore.open(spec(), dir.resolve("live").toFile())) {
            for (int s = 0; s < seriesCount; s++) {
                byte[] prefix = ("dev-" + s + "#temp#").getBytes(StandardCharsets.UTF_8);
                double[] series = new double[30];
                for (int i = 0; i < series.length; i++) {
                    // Values of no common decimal form: XOR-coded, several bytes a reading.
                    series[i] = random.nextDouble();
                    long millis = T0 + i * 1_000L;
                    store.ingest(RowKey.withTimestamp(prefix, millis), millis, new RawRow(series[i], Map.of()).toBytes(), series[i]);
                }
                values.put(s, series);
            }
            store.flush(changelog);
            commit(store, 0);
        }
        List<KeyValue<byte[], byte[]>> raw = changelog.of(Table.RAW);
        assertThat(raw.size()).as("records of the one flush").isGreaterThan(2);
        assertThat(raw).allMatch(record -> ChunkGroup.isGroupKey(record.key) && record.value.length < ChunkGroup.MAX_BYTES + 1_000);
        assertThat(ChangelogGroups.chunks(raw)).as("a chunk per series").hasSize(seriesCount);
        try (SeriesStore restored = SeriesStore.open(spec(), dir.resolve("restored").toFile())) {
            restored.restore(Table.RAW, raw);
            commit(restored, 1);
            for (int s = 0; s < seriesCount; s += 97) {
                byte[] prefix = ("dev-" + s + "#temp#").getBytes(StandardCharsets.UTF_8);
                double[] series = values.get(s);
                for (int i = 0; i < series.length; i++) {
                    byte[] row = restored.get(Table.RAW, RowKey.withTimestamp(prefix, T0 + i * 1_000L));
                    assertThat(RawRow.fromBytes(row).value()).as("series %d, reading %d", s, i).isEqualTo(series[i]);
                }
                assertThat(latest(restored, prefix).row().value()).isEqualTo(series[series.length - 1]);
            }
        }
    }

    /** The readings of that test, {@code count} of them one second apart, each with its value and tags. */
    private static void assertRows(SeriesStore store, long hour, int count) {
        for (int i = 0; i < count; i++) {
            byte[] row = store.get(Table.RAW, RowKey.withTimestamp(SERIES, hour + i * 1_000L));
            assertThat(RawRow.fromBytes(row)).as("reading %d", i)
                    .isEqualTo(new RawRow(i + 0.5, i == 3 ? Map.of("unit", "K") : Map.of("unit", "°C")));
        }
    }

    /** The block of that test, of {@code chunks} chunks, with every reading readable. */
    private static void assertBlock(SeriesStore store, byte[] block, long hour, int chunks, String why) {
        BlockReader stored = new BlockReader().read(store.storedBlock(block), hour);
        assertThat(stored.chunks()).as(why).isEqualTo(chunks);
        assertThat(stored.size()).isEqualTo(4);
        for (int i = 0; i < 3; i++) {
            assertThat(raw(store, hour + i * 1_000L)).isEqualTo(i + 0.5);
        }
        assertThat(raw(store, hour + 10_000L)).isEqualTo(7.5);
        assertThat(raw(store, hour + 3_600_000L)).isEqualTo(9.5);
    }

    @Test
    void aRangeOfOneSeriesReadsOnlyThePartitionsThatOverlapIt() {
        try (SeriesStore store = SeriesStore.open(spec(), dir.toFile())) {
            for (int day = 0; day < 5; day++) {
                ingest(store, T0 + day * DAY, day);
            }
            store.flush(NOWHERE);
            commit(store, 0L);
            assertThat(store.segmentsOf(Table.RAW)).hasSize(5);
            byte[] newest = RowKey.withTimestamp(SERIES, T0 + 2 * DAY + 1);
            byte[] afterOldest = java.util.Arrays.copyOf(RowKey.withTimestamp(SERIES, T0 + DAY), newest.length + 1);
            try (KeyValueIterator<Bytes, byte[]> rows = store.range(Table.RAW, newest, afterOldest, false)) {
                assertThat(((SegmentReads.ReadIterator) rows).segmentsRead()).isEqualTo(2);
                List<Long> found = new ArrayList<>();
                rows.forEachRemaining(row -> found.add(RowKey.timestampOf(row.key.get())));
                assertThat(found).containsExactly(T0 + 2 * DAY, T0 + DAY);
            }
            try (KeyValueIterator<Bytes, byte[]> rows = store.range(Table.RAW, null, null, false)) {
                assertThat(((SegmentReads.ReadIterator) rows).segmentsRead()).isEqualTo(5);
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
            byte[] minute = RowKey.withTimestamp(SERIES, RollupStep.MINUTE.bucketStart(T0));
            assertThat(Rollup.fromBytes(store.get(Table.MINUTE, minute)).sum()).as("computed from its block").isEqualTo(1.0);
            assertThat(store.segmentsOf(Table.MINUTE)).as("nothing sealed yet").isEmpty();
            // The next flush seals what the applied stream time expired; the raw segment goes once it is all sealed.
            ingest(store, T0 + 8 * DAY, 4.0);
            store.flush(NOWHERE);
            commit(store, 2L);
            List<Long> segments = store.segmentsOf(Table.RAW).stream().map(p -> p.id).toList();
            assertThat(segments).containsExactly((T0 + DAY) / DAY, (T0 + 8 * DAY) / DAY);
            assertThat(raw(store, T0 + DAY)).isEqualTo(2.0);
            assertThat(store.segmentsOf(Table.MINUTE)).as("the sealed bucket's segment").hasSize(1);
            assertThat(Rollup.fromBytes(store.get(Table.MINUTE, minute)).sum()).as("sealed").isEqualTo(1.0);
            assertThat(hour(store, T0 - T0 % 3_600_000L)).isEqualTo(1.0);
            assertThat(hour(store, T0 + 8 * DAY - (T0 + 8 * DAY) % 3_600_000L)).as("corrected").isEqualTo(4.0);
        }
    }

    /**
     * A rollup read that a seal overtakes counts every reading of its view (issue 49, item 1): the seal that crosses a
     * day folds the day's blocks into the rollup tables and makes their raw segment droppable, while a read opened
     * before it computes those hours from the blocks. The segment stays until the read closes. Before: the drop
     * released the read's raw iterator, and the hours between the two seals came from neither side (the hour read
     * answered [2.0], the newest hour alone, for the seven hours of its commit).
     */
    @Test
    void aRollupReadThatASealOvertakesStillCountsEveryReadingOfItsCommit() {
        try (SeriesStore store = SeriesStore.open(spec(), dir.toFile())) {
            long dayStart = T0 - T0 % DAY;
            for (int hour = 0; hour < 6; hour++) {
                ingest(store, T0 + hour * 3_600_000L, 1.0);
            }
            store.flush(NOWHERE);
            commit(store, 0L);
            ingest(store, T0 + 8 * DAY, 2.0);
            store.flush(NOWHERE);
            commit(store, 1L);
            assertThat(store.sealedBefore()).as("not sealed yet: the next flush seals").isEmpty();

            try (KeyValueIterator<Bytes, byte[]> hours = store.range(Table.HOUR, null, null, false);
                 KeyValueIterator<Bytes, byte[]> days = store.range(Table.DAY, null, null, false)) {
                ingest(store, T0 + 8 * DAY + 1, 3.0);
                store.flush(NOWHERE);
                commit(store, 2L);
                assertThat(store.sealedBefore()).as("the day of the six readings is sealed").hasValue(T0 + DAY);
                assertThat(store.segmentsOf(Table.RAW).stream().map(s -> s.id)).doesNotContain(dayStart / DAY);
                assertThat(store.segmentsWaitingForReads()).as("its raw segment waits for the open reads").isEqualTo(1);

                List<Double> hourSums = new ArrayList<>();
                hours.forEachRemaining(row -> hourSums.add(Rollup.fromBytes(row.value).sum()));
                assertThat(hourSums).as("newest first: the reading of the view's commit, then the six sealed hours")
                        .containsExactly(2.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0);
                List<Double> daySums = new ArrayList<>();
                days.forEachRemaining(row -> daySums.add(Rollup.fromBytes(row.value).sum()));
                assertThat(daySums).containsExactly(2.0, 6.0);
            }
            assertThat(store.openReads()).isZero();
            ingest(store, T0 + 8 * DAY + 2, 4.0);
            store.flush(NOWHERE);
            commit(store, 3L);
            assertThat(store.segmentsWaitingForReads()).as("dropped at the commit after the reads closed").isZero();
            assertThat(hour(store, T0 - T0 % 3_600_000L)).as("a read now takes the sealed hour").isEqualTo(1.0);
        }
    }

    /**
     * A read while the stream thread is between two batches of one commit sees none of the commit (issue 49, item 2):
     * it reads the snapshot of the commit before. Before: the rows of the first batch were there (335 of the 600 raw
     * rows and latest readings looked up), none of the rest.
     */
    @Test
    void aReadBetweenTwoBatchesOfACommitSeesNoneOfIt() {
        SeriesStore store = SeriesStore.open(spec(), dir.toFile());
        ingest(store, T0, 1.0);
        store.flush(NOWHERE);
        commit(store, 0L);
        int series = 300;
        int readings = 20;
        for (int s = 0; s < series; s++) {
            byte[] prefix = ("big-" + s + "#temp#").getBytes(StandardCharsets.UTF_8);
            for (int i = 0; i < readings; i++) {
                long millis = T0 + i * 1_000L;
                Map<String, String> tags = Map.of("site", "a".repeat(60) + i);
                store.ingest(RowKey.withTimestamp(prefix, millis), millis, new RawRow(s, tags).toBytes(), s);
            }
        }
        store.flush(NOWHERE);
        assertThat(store.sentBatches()).isGreaterThan(1);
        Map<Table, Long> offsets = new java.util.EnumMap<>(Table.class);
        for (Table table : Table.values()) {
            offsets.put(table, 12L);
        }
        store.committedUpToBatch(offsets, 1);
        int seen = 0;
        for (int s = 0; s < series; s++) {
            byte[] prefix = ("big-" + s + "#temp#").getBytes(StandardCharsets.UTF_8);
            seen += store.get(Table.RAW, RowKey.withTimestamp(prefix, T0)) == null ? 0 : 1;
            seen += store.get(Table.LATEST, prefix) == null ? 0 : 1;
        }
        int rangeRows = 0;
        try (KeyValueIterator<Bytes, byte[]> rows = store.range(Table.RAW, null, null, false)) {
            while (rows.hasNext()) {
                rows.next();
                rangeRows++;
            }
        }
        store.closeAsInACrash();
        assertThat(seen).as("rows and latest readings of the commit half applied").isZero();
        assertThat(rangeRows).as("only the reading of the commit before").isEqualTo(1);
    }

    /**
     * A read that holds its view longer than the bound while a seal waits to drop a segment it lists is revoked: the
     * segment is dropped, and the read's next use fails with the reason (the query server's 503), never a short answer.
     */
    @Test
    void aReadHeldPastTheBoundIsRevokedWithAReasonAndTheSegmentIsDropped() {
        try (SeriesStore store = SeriesStore.open(spec().withMaxReadHold(Duration.ofNanos(1)), dir.toFile())) {
            ingest(store, T0, 1.0);
            ingest(store, T0 + 3_600_000L, 1.0);
            store.flush(NOWHERE);
            commit(store, 0L);
            ingest(store, T0 + 8 * DAY, 2.0);
            store.flush(NOWHERE);
            commit(store, 1L);
            KeyValueIterator<Bytes, byte[]> held = store.range(Table.HOUR, null, null, false);
            assertThat(held.hasNext()).isTrue();
            held.next();
            ingest(store, T0 + 8 * DAY + 1, 3.0);
            store.flush(NOWHERE);
            commit(store, 2L);
            assertThat(store.segmentsWaitingForReads()).isZero();
            assertThatThrownBy(held::hasNext).isInstanceOf(org.apache.kafka.streams.errors.InvalidStateStoreException.class)
                    .hasMessageContaining("was open longer than 0 ms").hasMessageContaining("retry the read");
            held.close();
            assertThat(store.openReads()).isZero();
            assertThat(hour(store, T0 - T0 % 3_600_000L)).isEqualTo(1.0);
        }
    }

    /**
     * A reading before the seal is refused by the store itself, not only by the topology's check against stream time
     * (issue 49, item 5): its buckets are sealed into the rollup tables, and the flush drops a raw row there while the
     * commit would still write the reading as its series' latest. Before, the store answered {@code STORED}.
     */
    @Test
    void aReadingBeforeTheSealIsRefusedAndBecomesNoSeriesLatest() {
        byte[] other = "dev-2#temp#".getBytes(StandardCharsets.UTF_8);
        try (SeriesStore store = SeriesStore.open(spec(), dir.toFile())) {
            ingest(store, T0, 1.0);
            store.flush(NOWHERE);
            commit(store, 0L);
            ingest(store, T0 + 8 * DAY, 2.0);
            store.flush(NOWHERE);
            commit(store, 1L);
            ingest(store, T0 + 8 * DAY + 1, 3.0);
            store.flush(NOWHERE);
            commit(store, 2L);
            assertThat(store.sealedBefore()).as("the first block is sealed").isPresent();
            assertThat(store.sealedBefore().getAsLong()).isGreaterThan(T0);

            byte[] row = new RawRow(5.0, Map.of()).toBytes();
            assertThat(store.ingest(RowKey.withTimestamp(other, T0), T0, row, 5.0)).isEqualTo(SeriesStore.Outcome.SEALED);
            assertThat(store.ingest(RowKey.withTimestamp(SERIES, T0), T0, row, 5.0)).isEqualTo(SeriesStore.Outcome.SEALED);
            store.flush(NOWHERE);
            commit(store, 3L);
            assertThat(store.get(Table.LATEST, other)).as("no latest reading from a refused one").isNull();
            assertThat(hour(store, T0 - T0 % 3_600_000L)).as("the sealed hour unchanged").isEqualTo(1.0);
            long after = store.sealedBefore().getAsLong();
            assertThat(store.ingest(RowKey.withTimestamp(other, after), after, row, 5.0)).isEqualTo(SeriesStore.Outcome.STORED);
        }
    }

    /**
     * A changelog record of the raw table: a chunk of readings of {@code SERIES}, timestamp and value per reading in
     * that order, all in one block (of the first one), under the block's key.
     */
    private static KeyValue<byte[], byte[]> rawGroup(Object... millisAndValues) {
        long block = BlockRows.blockStart((Long) millisAndValues[0], spec().rawBlockMs());
        ChunkWriter chunk = new ChunkWriter().start(block);
        for (int i = 0; i < millisAndValues.length; i += 2) {
            chunk.add((Long) millisAndValues[i], (Double) millisAndValues[i + 1], new RawRow(0, Map.of()).toBytes(), 8, 4);
        }
        return KeyValue.pair(RowKey.withTimestamp(SERIES, block), chunk.toChunk());
    }

    private static KeyValue<byte[], byte[]> hourBucket(long start, double value) {
        return KeyValue.pair(RowKey.withTimestamp(SERIES, start), Rollup.of(value, start).toBytes());
    }

    private static Double hour(SeriesStore store, long start) {
        byte[] bucket = store.get(Table.HOUR, RowKey.withTimestamp(SERIES, start));
        return bucket == null ? null : Rollup.fromBytes(bucket).sum();
    }

    @Test
    void restoredRowsAreWrittenWithTheOffsetsOfTheCommitReportAndACrashBeforeItReplaysThem() {
        long hourStart = T0 - T0 % 3_600_000L;
        SeriesStore store = SeriesStore.open(spec(), dir.toFile());
        store.restore(Table.RAW, List.of(rawGroup(T0, 1.0, T0 + 1_000, 2.0)));
        store.restore(Table.HOUR, List.of(hourBucket(hourStart, 1.0)));
        // A later commit's value of the same bucket, in the next restore batch: the later one wins.
        store.restore(Table.HOUR, List.of(hourBucket(hourStart, 3.0)));
        assertThat(raw(store, T0)).as("collected, written at the next commit report").isNull();
        commit(store, 5L);
        assertThat(raw(store, T0)).isEqualTo(1.0);
        assertThat(raw(store, T0 + 1_000)).isEqualTo(2.0);
        assertThat(hour(store, hourStart)).isEqualTo(3.0);
        assertThat(store.committedOffset(Table.RAW)).isEqualTo(5L);
        store.restore(Table.RAW, List.of(rawGroup(T0 + 2_000, 4.0)));
        store.closeAsInACrash();
        try (SeriesStore reopened = SeriesStore.open(spec(), dir.toFile())) {
            assertThat(raw(reopened, T0)).isEqualTo(1.0);
            assertThat(hour(reopened, hourStart)).isEqualTo(3.0);
            assertThat(reopened.committedOffset(Table.RAW)).as("the restart restores from here again").isEqualTo(5L);
            assertThat(raw(reopened, T0 + 2_000)).as("not reported committed: restored again after the restart").isNull();
            assertThat(reopened.streamTime()).hasValue(T0 + 1_000);
        }
    }

    @Test
    void aCleanCloseWritesTheRestoredRowsItHasCollected() {
        try (SeriesStore store = SeriesStore.open(spec(), dir.toFile())) {
            store.restore(Table.RAW, List.of(rawGroup(T0, 1.0)));
            commit(store, 2L);
            store.restore(Table.RAW, List.of(rawGroup(T0 + 1_000, 2.0)));
        }
        try (SeriesStore reopened = SeriesStore.open(spec(), dir.toFile())) {
            assertThat(raw(reopened, T0 + 1_000)).isEqualTo(2.0);
            assertThat(reopened.committedOffset(Table.RAW)).as("rows ahead of the offsets: restored again, harmlessly").isEqualTo(2L);
            assertThat(reopened.streamTime()).hasValue(T0 + 1_000);
        }
    }

    @Test
    void restoredRowsAreWrittenBeforeTheStreamThreadReadsOrWrites() {
        // A standby promoted to active, or a restore followed by processing before Kafka Streams reported a commit.
        try (SeriesStore store = SeriesStore.open(spec(), dir.toFile())) {
            byte[] row = new RawRow(1.0, Map.of()).toBytes();
            byte[] latest = ByteBuffer.allocate(8 + row.length).putLong(T0).put(row).array();
            store.restore(Table.RAW, List.of(rawGroup(T0, 1.0)));
            store.restore(Table.LATEST, List.of(KeyValue.pair(SERIES, latest)));
            assertThat(store.ingest(RowKey.withTimestamp(SERIES, T0), T0, row, 1.0)).isEqualTo(SeriesStore.Outcome.DUPLICATE);
            assertThat(raw(store, T0)).isEqualTo(1.0);
        }
    }

    @Test
    void aRestoreBatchThatFailsHalfWayIsLeftOutWholeAndTheBatchesBeforeItAreStillWritten() {
        try (SeriesStore store = SeriesStore.open(spec(), dir.toFile())) {
            store.restore(Table.RAW, List.of(rawGroup(T0, 1.0)));
            byte[] oldStyleKey = RowKey.withTimestamp(SERIES, T0 + 2_000);
            assertThatThrownBy(() -> store.restore(Table.RAW, List.of(rawGroup(T0 + 1_000, 2.0),
                    KeyValue.pair(oldStyleKey, new RawRow(3.0, Map.of()).toBytes()))))
                    .isInstanceOf(ProcessorStateException.class);
            commit(store, 1L);
            assertThat(raw(store, T0)).isEqualTo(1.0);
            assertThat(raw(store, T0 + 1_000)).isNull();
            // Nor the stream time it advanced (issue 49, item 4): a batch of readings days ahead, then a bad record.
            assertThatThrownBy(() -> store.restore(Table.RAW, List.of(rawGroup(T0 + 8 * DAY, 4.0),
                    KeyValue.pair(oldStyleKey, new RawRow(3.0, Map.of()).toBytes()))))
                    .isInstanceOf(ProcessorStateException.class);
            assertThat(store.streamTime()).hasValue(T0);
            assertThat(store.segmentsOf(Table.RAW)).as("nor the segment it created for its rows")
                    .extracting(segment -> segment.id).containsExactly(T0 / DAY);
            commit(store, 2L);
            assertThat(raw(store, T0)).isEqualTo(1.0);
        }
    }

    @Test
    void aChangelogOfTheFormerStoresIsRefusedWithWhatToDo() {
        try (SeriesStore store = SeriesStore.open(spec(), dir.toFile())) {
            // Engine v1: a record per raw row.
            byte[] oldStyleKey = RowKey.withTimestamp(SERIES, T0);
            assertThatThrownBy(() -> store.restore(Table.RAW, List.of(KeyValue.pair(oldStyleKey, new RawRow(1.0, Map.of()).toBytes()))))
                    .isInstanceOf(ProcessorStateException.class)
                    .hasMessageContaining("reset the application");
            // Engine v2: a group of raw rows per series and commit, keyed by the series prefix.
            byte[] group = ChangelogGroups.encode(List.of(new ChangelogGroups.Row(T0, new RawRow(1.0, Map.of()).toBytes()))).get(0);
            assertThatThrownBy(() -> store.restore(Table.RAW, List.of(KeyValue.pair(SERIES, group))))
                    .isInstanceOf(ProcessorStateException.class)
                    .hasMessageContaining("before tspipe's storage engine v3");
            // A group under a block's key.
            assertThatThrownBy(() -> store.restore(Table.RAW, List.of(KeyValue.pair(oldStyleKey, group))))
                    .isInstanceOf(ProcessorStateException.class)
                    .hasMessageContaining("not a chunk of a raw block");
            // A group of chunks of an unknown version, and one cut short: named as such, not a bare error.
            assertThatThrownBy(() -> store.restore(Table.RAW, List.of(KeyValue.pair(ChunkGroup.KEY, new byte[] {9, 1, 2}))))
                    .isInstanceOf(ProcessorStateException.class)
                    .hasMessageContaining("a group of chunks that cannot be read (chunk group of format version 9")
                    .hasMessageContaining("reset the application");
            byte[] cut = {1, 20, 'k'};
            assertThatThrownBy(() -> store.restore(Table.RAW, List.of(KeyValue.pair(ChunkGroup.KEY, cut))))
                    .isInstanceOf(ProcessorStateException.class)
                    .hasMessageContaining("chunk group truncated");
            commit(store, 1L);
            assertThat(raw(store, T0)).isNull();
        }
    }

    @Test
    void aStoreOfStorageEngineV2IsRefusedWithItsVersionAndWhatToDo() throws Exception {
        // What engine v2 left: a database with the tables' column families and stream time, and no format version.
        try (org.rocksdb.Options options = new org.rocksdb.Options().setCreateIfMissing(true);
             org.rocksdb.RocksDB db = org.rocksdb.RocksDB.open(options, dir.toString())) {
            db.put("stream-time".getBytes(StandardCharsets.US_ASCII), ByteBuffer.allocate(8).putLong(T0).array());
        }
        assertThatThrownBy(() -> SeriesStore.open(spec(), dir.toFile()))
                .isInstanceOf(ProcessorStateException.class)
                .hasMessageContaining("format version 2")
                .hasMessageContaining("reads and writes version " + SeriesDatabase.FORMAT_VERSION)
                .hasMessageContaining("reset the application");
        // A store this version made opens again.
        java.nio.file.Path fresh = dir.resolve("fresh");
        SeriesStore.open(spec(), fresh.toFile()).close();
        SeriesStore.open(spec(), fresh.toFile()).close();
    }

    @Test
    void deviceVolumesEstimateEachDevicesRowsInMemtablesAndInFiles() {
        // Raw rows are blocks of an hour: readings an hour apart, a block each.
        int[] readings = {600, 60, 6};
        try (SeriesStore store = SeriesStore.open(spec(), dir.toFile())) {
            for (int d = 0; d < readings.length; d++) {
                byte[] series = ("dev-" + d + "#temp#").getBytes(StandardCharsets.UTF_8);
                for (int i = 0; i < readings[d]; i++) {
                    long millis = T0 + i * 3_600_000L;
                    store.ingest(RowKey.withTimestamp(series, millis), millis, new RawRow(i, Map.of()).toBytes(), i);
                }
            }
            store.flush(NOWHERE);
            commit(store, 1L);
            List<SeriesStore.DeviceVolume> inMemory = store.deviceVolumes(Table.RAW);
            assertThat(inMemory).extracting(v -> new String(v.devicePrefix(), StandardCharsets.UTF_8))
                    .containsExactly("dev-0#", "dev-1#", "dev-2#");
            System.out.println("device volumes in the memtable: " + inMemory.stream().map(v -> v.rows() + " rows "
                    + v.bytes() + " bytes").toList());
            // RocksDB counts a range of a memtable from its skip list (InlineSkipList::EstimateCount: the nodes stepped
            // over at each level, each worth 4^level rows, branching factor 4), so a count is off by whole steps of the
            // upper levels whatever the range's size: of 666 rows (about 4^4.7), a device of 60 rows was counted 84 and
            // one of 600 counted 432. The bound is therefore a quarter plus 4^4 = 256 rows: enough to tell a device
            // whose memtable rows are counted (dev-0 at least 194) from one whose rows are not (0).
            for (int d = 0; d < readings.length; d++) {
                assertThat(inMemory.get(d).rows()).as("rows of dev-" + d + " in the memtable")
                        .isBetween(Math.max(0, Math.round(readings[d] * 0.75) - 256), Math.round(readings[d] * 1.25) + 256);
            }
        }
        // Closing flushes the memtables: the rows are in a file now.
        try (SeriesStore store = SeriesStore.open(spec(), dir.toFile())) {
            List<SeriesStore.DeviceVolume> inFiles = store.deviceVolumes(Table.RAW);
            System.out.println("device volumes in files: " + inFiles.stream().map(v -> v.rows() + " rows " + v.bytes()
                    + " bytes").toList());
            assertThat(inFiles.get(0).rows()).as("rows of dev-0 in files").isBetween(300L, 1_200L);
            assertThat(inFiles.get(0).bytes()).isGreaterThan(inFiles.get(1).bytes());
        }
    }
}
