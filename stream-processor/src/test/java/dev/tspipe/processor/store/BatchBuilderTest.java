package dev.tspipe.processor.store;

import dev.tspipe.model.keys.RowKey;
import org.junit.jupiter.api.Test;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.WriteBatch;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/** RocksDB reads a {@link BatchBuilder}'s bytes as the puts, merges and deletes that were added, in order (seeded, random sizes and ids). */
class BatchBuilderTest {

    /** A put (or a merge), or a delete when {@code value} is null. */
    private record Put(int columnFamily, byte[] key, byte[] value, boolean merge) {
        Put(int columnFamily, byte[] key, byte[] value) {
            this(columnFamily, key, value, false);
        }

        @Override
        public boolean equals(Object other) {
            return other instanceof Put p && p.columnFamily == columnFamily && Arrays.equals(p.key, key)
                    && Arrays.equals(p.value, value) && p.merge == merge;
        }

        @Override
        public int hashCode() {
            return columnFamily * 31 + Arrays.hashCode(key);
        }

        @Override
        public String toString() {
            return (merge ? "merge" : "put") + "(cf " + columnFamily + ", " + key.length + " key bytes, " + value.length + " value bytes)";
        }
    }

    @Test
    void rocksDbReadsThePutsBack() throws RocksDBException {
        RocksDB.loadLibrary();
        long seed = Long.getLong("tspipe.seed", System.nanoTime());
        Random random = new Random(seed);
        BatchBuilder reused = new BatchBuilder(1_000);
        for (int round = 0; round < 50; round++) {
            // A new builder, or one that earlier rounds built batches with (a flush reuses the thread's).
            BatchBuilder builder = random.nextBoolean() ? new BatchBuilder(random.nextInt(100_000)) : reused;
            builder.reset();
            List<Put> puts = new ArrayList<>();
            int n = random.nextInt(2_000);
            for (int i = 0; i < n; i++) {
                // Ids and lengths across varint byte boundaries (127/128, 16383/16384).
                int cf = random.nextInt(4) == 0 ? 0 : random.nextInt(random.nextBoolean() ? 200 : 20_000);
                byte[] key = bytes(random, random.nextInt(random.nextInt(10) == 0 ? 20_000 : 200));
                byte[] value = random.nextInt(5) == 0 ? null : bytes(random, random.nextInt(random.nextInt(10) == 0 ? 20_000 : 200));
                if (value == null) {
                    builder.delete(cf, key);
                } else if (random.nextInt(3) == 0) {
                    // A row key written from its series prefix and timestamp.
                    byte[] prefix = bytes(random, 1 + random.nextInt(100));
                    long millis = random.nextLong(RowKey.MAX_EPOCH_MILLIS + 1);
                    key = RowKey.withTimestamp(prefix, millis);
                    byte[] source = new byte[value.length + 5];
                    System.arraycopy(value, 0, source, 5, value.length);
                    builder.putRow(cf, prefix, millis, source, 5, value.length);
                } else if (random.nextInt(4) == 0) {
                    // A chunk appended to a block.
                    byte[] source = new byte[value.length + 2];
                    System.arraycopy(value, 0, source, 1, value.length);
                    builder.merge(cf, key, source, 1, value.length);
                    puts.add(new Put(cf, key, value, true));
                    continue;
                } else if (random.nextBoolean()) {
                    builder.put(cf, key, value);
                } else {
                    // A slice of a larger array, as a restore passes the rows of a changelog group.
                    byte[] source = new byte[value.length + 7];
                    System.arraycopy(value, 0, source, 3, value.length);
                    builder.put(cf, key, source, 3, value.length);
                }
                puts.add(new Put(cf, key, value));
            }
            List<Put> read = new ArrayList<>();
            try (WriteBatch batch = builder.build(); WriteBatch.Handler handler = new WriteBatch.Handler() {
                @Override
                public void put(int columnFamilyId, byte[] key, byte[] value) {
                    read.add(new Put(columnFamilyId, key, value));
                }

                @Override
                public void put(byte[] key, byte[] value) {
                    read.add(new Put(0, key, value));
                }

                @Override
                public void merge(int columnFamilyId, byte[] key, byte[] value) {
                    read.add(new Put(columnFamilyId, key, value, true));
                }

                @Override
                public void merge(byte[] key, byte[] value) {
                    read.add(new Put(0, key, value, true));
                }

                @Override
                public void delete(int columnFamilyId, byte[] key) {
                    read.add(new Put(columnFamilyId, key, null));
                }

                @Override
                public void delete(byte[] key) {
                    read.add(new Put(0, key, null));
                }

                @Override
                public void singleDelete(int columnFamilyId, byte[] key) {
                    throw new AssertionError("singleDelete");
                }

                @Override
                public void singleDelete(byte[] key) {
                    throw new AssertionError("singleDelete");
                }

                @Override
                public void deleteRange(int columnFamilyId, byte[] beginKey, byte[] endKey) {
                    throw new AssertionError("deleteRange");
                }

                @Override
                public void deleteRange(byte[] beginKey, byte[] endKey) {
                    throw new AssertionError("deleteRange");
                }

                @Override
                public void logData(byte[] blob) {
                    throw new AssertionError("logData");
                }

                @Override
                public void putBlobIndex(int columnFamilyId, byte[] key, byte[] value) {
                    throw new AssertionError("putBlobIndex");
                }

                @Override
                public void markBeginPrepare() {
                }

                @Override
                public void markEndPrepare(byte[] xid) {
                }

                @Override
                public void markNoop(boolean emptyBatch) {
                }

                @Override
                public void markRollback(byte[] xid) {
                }

                @Override
                public void markCommit(byte[] xid) {
                }

                @Override
                public void markCommitWithTimestamp(byte[] xid, byte[] ts) {
                }
            }) {
                assertThat(batch.count()).as("seed %d", seed).isEqualTo(n);
                batch.iterate(handler);
            }
            assertThat(read).as("seed %d, round %d", seed, round).containsExactlyElementsOf(puts);
        }
    }

    private static byte[] bytes(Random random, int length) {
        byte[] bytes = new byte[length];
        random.nextBytes(bytes);
        return bytes;
    }
}
