package dev.tspipe.processor.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.ColumnFamilyOptions;
import org.rocksdb.CompressionType;
import org.rocksdb.DBOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.StringAppendOperator;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;

/** The restore's own write batches: RocksDB's serialized batch format, key order, the last write of each key. */
class RestoreBatchTest {

    @TempDir
    Path dir;

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void itsBatchIsTheOneRocksDbBuildsFromTheSameWritesInKeyOrderWithOnlyTheLastWriteOfEachKey() throws Exception {
        RocksDB.loadLibrary();
        try (DBOptions options = new DBOptions().setCreateIfMissing(true);
             RocksDB db = RocksDB.open(options, dir.toString(),
                     List.of(new ColumnFamilyDescriptor(RocksDB.DEFAULT_COLUMN_FAMILY)), new ArrayList<>())) {
            // Column family ids above 127 take a two-byte varint: a store that has created and dropped many segments.
            List<ColumnFamilyDescriptor> descriptors = new ArrayList<>();
            for (int i = 0; i < 130; i++) {
                descriptors.add(new ColumnFamilyDescriptor(bytes("raw-rows." + i)));
            }
            List<ColumnFamilyHandle> handles = db.createColumnFamilies(descriptors);
            try {
                Segment low = new Segment(Table.RAW, 1, handles.get(0), CompressionType.NO_COMPRESSION, db);
                Segment high = new Segment(Table.RAW, 129, handles.get(129), CompressionType.NO_COMPRESSION, db);
                Segment defaultFamily = new Segment(Table.LATEST, 0, db.getDefaultColumnFamily(), CompressionType.NO_COMPRESSION, db);
                assertThat(high.columnFamilyId).isGreaterThan(127);
                assertThat(defaultFamily.columnFamilyId).isZero();
                byte[] longKey = new byte[300];
                Arrays.fill(longKey, (byte) 'k');
                byte[] longValue = new byte[20_000];
                Arrays.fill(longValue, (byte) 'v');
                byte[] source = bytes("..value-b1..");

                RestoreBatch batch = new RestoreBatch();
                batch.put(high, bytes("b"), bytes("high-b"), 0, 6);
                batch.put(low, bytes("b"), source, 2, 8);
                batch.put(low, bytes("a"), bytes("first-a"), 0, 7);
                batch.put(defaultFamily, bytes("z"), bytes("z-1"), 0, 3);
                batch.put(low, longKey, longValue, 0, longValue.length);
                batch.put(low, bytes("a"), bytes("second-a"), 0, 8);
                batch.delete(high, bytes("gone"));
                batch.put(defaultFamily, bytes("z"), bytes("z-2"), 0, 3);
                batch.put(high, bytes("c"), bytes("put-then-deleted"), 0, 16);
                batch.delete(high, bytes("c"));
                byte[] serialized = batch.serialize();
                assertThat(batch.superseded()).isEqualTo(3);

                try (WriteBatch expected = new WriteBatch()) {
                    expected.put(defaultFamily.handle, bytes("z"), bytes("z-2"));
                    expected.put(low.handle, bytes("a"), bytes("second-a"));
                    expected.put(low.handle, bytes("b"), bytes("value-b1"));
                    expected.put(low.handle, longKey, longValue);
                    expected.put(high.handle, bytes("b"), bytes("high-b"));
                    expected.delete(high.handle, bytes("c"));
                    expected.delete(high.handle, bytes("gone"));
                    assertThat(serialized).isEqualTo(expected.data());
                }
                db.put(high.handle, bytes("c"), bytes("stale"));
                try (WriteBatch restored = new WriteBatch(serialized); WriteOptions write = new WriteOptions()) {
                    db.write(write, restored);
                }
                assertThat(db.get(low.handle, bytes("a"))).isEqualTo(bytes("second-a"));
                assertThat(db.get(low.handle, bytes("b"))).isEqualTo(bytes("value-b1"));
                assertThat(db.get(low.handle, longKey)).isEqualTo(longValue);
                assertThat(db.get(high.handle, bytes("b"))).isEqualTo(bytes("high-b"));
                assertThat(db.get(high.handle, bytes("c"))).isNull();
                assertThat(db.get(defaultFamily.handle, bytes("z"))).isEqualTo(bytes("z-2"));

                batch.clear();
                assertThat(batch.isEmpty()).isTrue();
                assertThat(batch.isFull()).isFalse();
            } finally {
                handles.forEach(ColumnFamilyHandle::close);
            }
        }
    }

    @Test
    void mergesOfOneKeyInARowAreWrittenAsOneMergeOfTheirValuesAndReadTheSame() throws Exception {
        RocksDB.loadLibrary();
        try (StringAppendOperator append = new StringAppendOperator("");
             ColumnFamilyOptions appending = new ColumnFamilyOptions().setMergeOperator(append);
             DBOptions options = new DBOptions().setCreateIfMissing(true);
             RocksDB db = RocksDB.open(options, dir.toString(),
                     List.of(new ColumnFamilyDescriptor(RocksDB.DEFAULT_COLUMN_FAMILY)), new ArrayList<>())) {
            ColumnFamilyHandle handle = db.createColumnFamily(new ColumnFamilyDescriptor(bytes("raw-rows.1"), appending));
            try {
                Segment raw = new Segment(Table.RAW, 1, handle, CompressionType.NO_COMPRESSION, db);
                db.put(handle, bytes("a"), bytes("[stored]"));
                RestoreBatch batch = new RestoreBatch();
                batch.chunk(raw, bytes("a"), bytes("..[1]"), 2, 3, StreamTime.NONE, false);
                batch.chunk(raw, bytes("b"), bytes("[x]"), 0, 3, StreamTime.NONE, false);
                batch.chunk(raw, bytes("a"), bytes("[2]"), 0, 3, StreamTime.NONE, false);
                batch.chunk(raw, bytes("a"), bytes("[3]"), 0, 3, StreamTime.NONE, false);
                // Merges followed by a put of their key: the put replaces them all.
                batch.chunk(raw, bytes("c"), bytes("[gone]"), 0, 6, StreamTime.NONE, false);
                batch.chunk(raw, bytes("c"), bytes("[gone too]"), 0, 10, StreamTime.NONE, false);
                batch.put(raw, bytes("c"), bytes("[whole]"), 0, 7);
                batch.chunk(raw, bytes("c"), bytes("[after]"), 0, 7, StreamTime.NONE, false);
                byte[] serialized = batch.serialize();
                assertThat(batch.superseded()).isEqualTo(2);
                assertThat(batch.coalesced()).isEqualTo(2);
                try (WriteBatch expected = new WriteBatch()) {
                    expected.merge(handle, bytes("a"), bytes("[1][2][3]"));
                    expected.merge(handle, bytes("b"), bytes("[x]"));
                    expected.put(handle, bytes("c"), bytes("[whole]"));
                    expected.merge(handle, bytes("c"), bytes("[after]"));
                    assertThat(serialized).isEqualTo(expected.data());
                }
                try (WriteBatch restored = new WriteBatch(serialized); WriteOptions write = new WriteOptions()) {
                    db.write(write, restored);
                }
                assertThat(db.get(handle, bytes("a"))).isEqualTo(bytes("[stored][1][2][3]"));
                assertThat(db.get(handle, bytes("b"))).isEqualTo(bytes("[x]"));
                assertThat(db.get(handle, bytes("c"))).isEqualTo(bytes("[whole][after]"));
            } finally {
                handle.close();
            }
        }
    }

    /** Short keys, keys sharing their first 8 bytes, zero bytes: where the sort's shortcuts could go wrong. */
    private static byte[] randomKey(Random random) {
        byte[] key = new byte[random.nextInt(14)];
        for (int b = 0; b < key.length; b++) {
            key[b] = b < 6 && random.nextBoolean() ? (byte) 'k' : (byte) (random.nextInt(3) * 127);
        }
        return key;
    }

    @Test
    void randomWritesComeOutSortedWithTheLastWriteOfEachKeyAsRocksDbWouldHaveBuiltThem() throws Exception {
        RocksDB.loadLibrary();
        long seed = Long.getLong("tspipe.seed", System.nanoTime());
        Random random = new Random(seed);
        try (DBOptions options = new DBOptions().setCreateIfMissing(true);
             RocksDB db = RocksDB.open(options, dir.toString(),
                     List.of(new ColumnFamilyDescriptor(RocksDB.DEFAULT_COLUMN_FAMILY)), new ArrayList<>())) {
            List<ColumnFamilyHandle> handles = db.createColumnFamilies(List.of(
                    new ColumnFamilyDescriptor(bytes("a.1")), new ColumnFamilyDescriptor(bytes("a.2"))));
            try {
                List<Segment> families = List.of(
                        new Segment(Table.RAW, 1, handles.get(0), CompressionType.NO_COMPRESSION, db),
                        new Segment(Table.RAW, 2, handles.get(1), CompressionType.NO_COMPRESSION, db),
                        new Segment(Table.LATEST, 0, db.getDefaultColumnFamily(), CompressionType.NO_COMPRESSION, db));
                RestoreBatch batch = new RestoreBatch();
                // Per column family: key -> the last value written (null: deleted), in unsigned key order.
                Map<Segment, TreeMap<byte[], byte[]>> expected = new HashMap<>();
                int writes = 1 + random.nextInt(3_000);
                // Half the time the writes come as changelog groups do, commit after commit: runs of ascending keys of
                // one column family, which the sort finds and merges.
                List<byte[]> ascending = new ArrayList<>();
                if (random.nextBoolean()) {
                    TreeMap<byte[], Boolean> distinct = new TreeMap<>(Arrays::compareUnsigned);
                    for (int k = 1 + random.nextInt(400); k > 0; k--) {
                        distinct.put(randomKey(random), true);
                    }
                    ascending.addAll(distinct.keySet());
                }
                int cursor = 0;
                for (int i = 0; i < writes; i++) {
                    Segment family;
                    byte[] key;
                    if (ascending.isEmpty()) {
                        family = families.get(random.nextInt(families.size()));
                        key = randomKey(random);
                    } else {
                        family = families.get(0);
                        cursor += 1 + random.nextInt(3);
                        if (cursor >= ascending.size()) {
                            cursor = random.nextInt(2);
                        }
                        key = ascending.get(Math.min(cursor, ascending.size() - 1));
                    }
                    TreeMap<byte[], byte[]> rows = expected.computeIfAbsent(family, f -> new TreeMap<>(Arrays::compareUnsigned));
                    if (random.nextInt(8) == 0) {
                        batch.delete(family, key);
                        rows.put(key, null);
                    } else {
                        byte[] source = new byte[2 + random.nextInt(20)];
                        random.nextBytes(source);
                        int offset = random.nextInt(2);
                        int length = random.nextInt(source.length - offset + 1);
                        batch.put(family, key, source, offset, length);
                        rows.put(key, Arrays.copyOfRange(source, offset, offset + length));
                    }
                }
                try (WriteBatch reference = new WriteBatch()) {
                    int rowsExpected = 0;
                    for (Segment family : families.stream().sorted((a, b) -> Integer.compare(a.columnFamilyId, b.columnFamilyId)).toList()) {
                        for (Map.Entry<byte[], byte[]> row : expected.getOrDefault(family, new TreeMap<>()).entrySet()) {
                            if (row.getValue() == null) {
                                reference.delete(family.handle, row.getKey());
                            } else {
                                reference.put(family.handle, row.getKey(), row.getValue());
                            }
                            rowsExpected++;
                        }
                    }
                    int maxBatchBytes = 12 + random.nextInt(400);
                    List<byte[]> batches = batch.serialize(maxBatchBytes);
                    assertThat(batch.superseded()).isEqualTo(writes - rowsExpected);
                    // Several batches: their records, one after the other, are the one batch's; each within the bound
                    // unless it holds a single row.
                    ByteArrayOutputStream records = new ByteArrayOutputStream();
                    int count = 0;
                    for (byte[] serialized : batches) {
                        try (WriteBatch each = new WriteBatch(serialized)) {
                            assertThat(serialized.length <= maxBatchBytes || each.count() == 1)
                                    .as("batch of %d bytes and %d rows, bound %d", serialized.length, each.count(), maxBatchBytes).isTrue();
                            count += each.count();
                        }
                        records.write(serialized, 12, serialized.length - 12);
                    }
                    byte[] whole = reference.data();
                    assertThat(count).as("seed %d (rerun with -Dtspipe.seed=%d)", seed, seed).isEqualTo(reference.count());
                    assertThat(records.toByteArray()).as("seed %d", seed).isEqualTo(Arrays.copyOfRange(whole, 12, whole.length));
                }
            } finally {
                handles.forEach(ColumnFamilyHandle::close);
            }
        }
    }
}
