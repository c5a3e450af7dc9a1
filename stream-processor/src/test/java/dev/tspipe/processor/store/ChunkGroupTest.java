package dev.tspipe.processor.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The raw changelog's groups of chunks: what is added is read back in order, and a damaged group is refused. */
class ChunkGroupTest {

    private record Entry(byte[] key, byte[] chunk) {
    }

    private static List<Entry> read(byte[] value) {
        List<Entry> entries = new ArrayList<>();
        ChunkGroup.forEachChunk(value, (key, source, offset, length) ->
                entries.add(new Entry(key, Arrays.copyOfRange(source, offset, offset + length))));
        return entries;
    }

    @Test
    void theChunksAddedAreReadBackInOrderWithTheirKeysAndTheNewestReadingIsTheRecordsTime() {
        long seed = Long.getLong("tspipe.seed", System.nanoTime());
        Random random = new Random(seed);
        ChunkGroup group = new ChunkGroup();
        for (int round = 0; round < 200; round++) {
            List<Entry> added = new ArrayList<>();
            long newest = Long.MIN_VALUE;
            int n = 1 + random.nextInt(60);
            for (int i = 0; i < n; i++) {
                // Lengths across the varints' one- and two-byte forms, now and then one of three bytes.
                byte[] key = new byte[1 + random.nextInt(200)];
                byte[] chunk = new byte[random.nextInt(20) == 0 ? 20_000 + random.nextInt(20_000) : 1 + random.nextInt(300)];
                random.nextBytes(key);
                random.nextBytes(chunk);
                long millis = random.nextLong();
                group.add(key, chunk, millis);
                added.add(new Entry(key, chunk));
                newest = Math.max(newest, millis);
            }
            assertThat(group.isEmpty()).isFalse();
            assertThat(group.newestMillis()).as("seed %d, round %d", seed, round).isEqualTo(newest);
            List<Entry> read = read(group.take());
            assertThat(group.isEmpty()).as("take starts it again").isTrue();
            assertThat(read).as("seed %d, round %d", seed, round).hasSameSizeAs(added);
            for (int i = 0; i < added.size(); i++) {
                assertThat(read.get(i).key()).as("seed %d, round %d, key %d", seed, round, i).isEqualTo(added.get(i).key());
                assertThat(read.get(i).chunk()).as("seed %d, round %d, chunk %d", seed, round, i).isEqualTo(added.get(i).chunk());
            }
        }
    }

    /** The bound is checked before a chunk is added (issue 49, item 8): a group passes it only with one chunk alone. */
    @Test
    void aGroupStopsBeforeItsBoundAndItsKeyIsNoBlocksKey() {
        ChunkGroup group = new ChunkGroup();
        byte[] key = "dev-1#temp#12345678".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        while (!group.wouldOverflow(key.length, 1_000)) {
            group.add(key, new byte[1_000], 0);
        }
        assertThat(group.take().length).isBetween(ChunkGroup.MAX_BYTES - 1_100, ChunkGroup.MAX_BYTES);
        assertThat(group.wouldOverflow(key.length, ChunkGroup.MAX_BYTES * 2)).as("an empty group takes any chunk").isFalse();
        group.add(key, new byte[ChunkGroup.MAX_BYTES * 2], 0);
        assertThat(group.wouldOverflow(key.length, 1)).isTrue();
        group.clear();
        assertThat(ChunkGroup.isGroupKey(ChunkGroup.KEY)).isTrue();
        assertThat(ChunkGroup.isGroupKey(key)).isFalse();
    }

    @Test
    void aTruncatedGroupOrAnotherVersionIsRefusedWithWhereItEnds() {
        ChunkGroup group = new ChunkGroup();
        group.add(new byte[] {'k'}, new byte[] {1, 2, 3}, 0);
        byte[] value = group.take();
        assertThatThrownBy(() -> read(Arrays.copyOf(value, value.length - 1)))
                .hasMessageContaining("chunk group truncated: a chunk of 3 bytes at offset 4 of 6");
        assertThatThrownBy(() -> read(Arrays.copyOf(value, 3)))
                .hasMessageContaining("chunk group truncated: the length of a chunk at offset 3");
        byte[] other = value.clone();
        other[0] = 2;
        assertThatThrownBy(() -> read(other)).hasMessageContaining("chunk group of format version 2, expected 1");
    }
}
