package dev.tspipe.model.blocks;

import dev.tspipe.model.rows.RawRow;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.function.Consumer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;

class BlockCodecTest {

    private static final long HOUR = 3_600_000;
    private static final long BLOCK = 1_764_547_200_000L; // 2025-12-01T00:00Z
    private static final byte[] UNIT_CELSIUS = tags(Map.of("unit", "°C"));
    private static final byte[] NO_TAGS = tags(Map.of());

    @Test
    void aChunkOfSensorReadingsIsWrittenAsDocumented() {
        // The worked example of docs/storage.md: three readings of 21.37, 21.4 and 21.4 °C, 54 s apart, the last 1 ms late.
        ChunkWriter writer = new ChunkWriter().start(BLOCK);
        writer.add(BLOCK + 1_000, 21.37, UNIT_CELSIUS);
        writer.add(BLOCK + 55_000, 21.4, UNIT_CELSIUS);
        writer.add(BLOCK + 109_001, 21.4, UNIT_CELSIUS);
        byte[] chunk = writer.toChunk();

        assertThat(HexFormat.ofDelimiter(" ").formatHex(chunk)).isEqualTo(
                "10 03 01 0a 01 04 75 6e 69 74 03 c2 b0 43 e8 07 02 b2 21 e0 cb 06 00 01 02 e6 00");
        // 10: version 1, decimal values; 03 readings; 01 tag set of 0a = 10 bytes: 01 tag, 04 "unit", 03 "°C";
        // e8 07: the first at +1,000 ms; 02: two decimals; b2 21: zigzag 2,137; e0 cb 06: zigzag 54,000, the first delta;
        // Rice parameters 00 (times) and 01 (values); 02 bytes of bits: the second value, zigzag +3 = 6 with k = 1:
        // 1110 0; the third time, zigzag +1 (54,001 after 54,000) = 2 with k = 0: 110; the third value, 0: 0 0; padding
        BlockReader reader = new BlockReader().read(chunk, BLOCK);
        assertThat(reader.size()).isEqualTo(3);
        assertThat(reader.value(0)).isEqualTo(21.37);
        assertThat(reader.timestamp(2)).isEqualTo(BLOCK + 109_001);
        assertThat(RawRow.fromBytes(reader.rawRow(1))).isEqualTo(new RawRow(21.4, Map.of("unit", "°C")));
    }

    @Test
    void valuesThatAreNotShortDecimalsAreWrittenAsXorOfTheirBits() {
        double[] values = {Math.PI, -0.0, Double.NaN, Double.longBitsToDouble(0x7ff8_0000_0000_0abcL), Double.POSITIVE_INFINITY,
                Double.MIN_VALUE, -Double.MAX_VALUE, 0.1 + 0.2, 1e300, 0.0};
        ChunkWriter writer = new ChunkWriter().start(BLOCK);
        for (int i = 0; i < values.length; i++) {
            writer.add(BLOCK + i * 1000L, values[i], NO_TAGS);
        }
        byte[] chunk = writer.toChunk();
        assertThat(chunk[0]).isEqualTo((byte) 0x11);
        BlockReader reader = new BlockReader().read(chunk, BLOCK);
        for (int i = 0; i < values.length; i++) {
            assertThat(Double.doubleToRawLongBits(reader.value(i))).as("value %d", i).isEqualTo(Double.doubleToRawLongBits(values[i]));
        }
    }

    @Test
    void decimalsAreFoundBitForBit() {
        assertThat(ChunkWriter.decimalsOf(21.37)).isEqualTo(2);
        assertThat(ChunkWriter.decimalsOf(1013.2)).isEqualTo(1);
        assertThat(ChunkWriter.decimalsOf(-67)).isEqualTo(0);
        assertThat(ChunkWriter.decimalsOf(3.305)).isEqualTo(3);
        assertThat(ChunkWriter.decimalsOf(0.1 + 0.2)).isEqualTo(-1);
        assertThat(ChunkWriter.decimalsOf(-0.0)).isEqualTo(-1);
        assertThat(ChunkWriter.decimalsOf(0x1p53)).isEqualTo(-1);
        assertThat(ChunkWriter.decimalsOf(Double.NaN)).isEqualTo(-1);
    }

    @Test
    void theLastReadingOfATimestampIsTheReadingAcrossChunks() {
        byte[] first = chunk(w -> {
            w.add(BLOCK + 10, 1.5, UNIT_CELSIUS);
            w.add(BLOCK + 20, 2.5, UNIT_CELSIUS);
        });
        byte[] correction = chunk(w -> w.add(BLOCK + 10, 9.25, NO_TAGS));
        BlockReader reader = new BlockReader().read(concat(first, correction, first, correction), BLOCK);
        assertThat(reader.chunks()).isEqualTo(4);
        assertThat(reader.size()).isEqualTo(2);
        assertThat(reader.value(0)).isEqualTo(9.25);
        assertThat(reader.tagsLength(0)).isEqualTo(NO_TAGS.length);
        assertThat(reader.value(1)).isEqualTo(2.5);
    }

    @Test
    void randomBlocksReadBackAsAMapOfTheirLastWrites() {
        long seed = new SplittableRandom().nextLong();
        try {
            SplittableRandom random = new SplittableRandom(seed);
            for (int round = 0; round < 2_000; round++) {
                checkRandomBlock(random);
            }
        } catch (AssertionError | RuntimeException e) {
            throw new AssertionError("seed " + seed + ": " + e.getMessage(), e);
        }
    }

    private static void checkRandomBlock(SplittableRandom random) {
        byte[][] tagSets = {UNIT_CELSIUS, NO_TAGS, tags(Map.of("unit", "hPa", "site", "b-7")), tags(Map.of("k", "v".repeat(random.nextInt(1, 300))))};
        int distinctTags = random.nextInt(1, tagSets.length + 1);
        TreeMap<Long, double[]> oracle = new TreeMap<>();
        TreeMap<Long, byte[]> oracleTags = new TreeMap<>();
        List<byte[]> chunks = new ArrayList<>();
        ChunkWriter writer = new ChunkWriter();
        int chunkCount = random.nextInt(1, 6);
        byte[] previousSets = null;
        long time = BLOCK + random.nextLong(HOUR / 2);
        int decimals = random.nextInt(0, 5);
        double value = Math.rint(random.nextDouble(-1e6, 1e6)) / Math.pow(10, decimals);
        for (int c = 0; c < chunkCount; c++) {
            writer.start(BLOCK);
            TreeMap<Long, Double> ownReadings = new TreeMap<>();
            int readings = random.nextInt(1, 200);
            for (int r = 0; r < readings; r++) {
                long at = switch (random.nextInt(10)) {
                    case 0 -> oracle.isEmpty() ? time : oracle.firstKey() + random.nextLong(Math.max(1, time - oracle.firstKey() + 1)); // late, or a correction
                    case 1 -> time; // the same timestamp again
                    case 2 -> time = Math.min(BLOCK + HOUR - 1, time + random.nextLong(1, 5_000_000)); // a gap past any bucket
                    default -> time = Math.min(BLOCK + HOUR - 1, time + 10_000 + random.nextLong(-100, 100));
                };
                value = switch (random.nextInt(12)) {
                    case 0 -> Double.longBitsToDouble(random.nextLong());
                    case 1 -> value;
                    case 2 -> -0.0;
                    default -> Math.rint(value * Math.pow(10, decimals) + random.nextInt(-50, 50)) / Math.pow(10, decimals);
                };
                byte[] tags = tagSets[random.nextInt(distinctTags)];
                writer.add(at, value, tags);
                oracle.put(at, new double[] {value});
                ownReadings.put(at, value);
                oracleTags.put(at, tags);
            }
            // As the store writes its open block: a chunk leaves out the tag sets of the chunk before it.
            byte[] chunk = random.nextBoolean() ? writer.toChunk(previousSets) : writer.toChunk();
            previousSets = writer.tagSets();
            chunks.add(chunk);
            // Read on its own (as a restore reads a changelog record), a chunk keeps its times and values.
            BlockReader alone = new BlockReader().read(chunk, BLOCK);
            assertThat(alone.size()).isEqualTo(ownReadings.size());
            int j = 0;
            for (Map.Entry<Long, Double> own : ownReadings.entrySet()) {
                assertThat(alone.timestamp(j)).isEqualTo(own.getKey());
                assertThat(Double.doubleToRawLongBits(alone.value(j++))).isEqualTo(Double.doubleToRawLongBits(own.getValue()));
            }
        }
        byte[] block = concat(chunks.toArray(byte[][]::new));
        BlockReader reader = new BlockReader().read(block, BLOCK);
        assertThat(reader.size()).isEqualTo(oracle.size());
        int i = 0;
        for (Map.Entry<Long, double[]> expected : oracle.entrySet()) {
            assertThat(reader.timestamp(i)).isEqualTo(expected.getKey());
            assertThat(Double.doubleToRawLongBits(reader.value(i))).isEqualTo(Double.doubleToRawLongBits(expected.getValue()[0]));
            assertThat(Arrays.copyOfRange(reader.tagBytes(), reader.tagsOffset(i), reader.tagsOffset(i) + reader.tagsLength(i)))
                    .isEqualTo(oracleTags.get(expected.getKey()));
            assertThat(reader.indexOf(expected.getKey())).isEqualTo(i);
            i++;
        }
    }

    @Test
    void aChunkWithTheTagSetsOfTheChunkBeforeItLeavesThemOut() {
        ChunkWriter writer = new ChunkWriter().start(BLOCK);
        writer.add(BLOCK + 1_000, 21.5, UNIT_CELSIUS);
        byte[] first = writer.toChunk();
        byte[] sets = writer.tagSets();
        writer.start(BLOCK).add(BLOCK + 2_000, 21.6, UNIT_CELSIUS);
        byte[] explicit = writer.toChunk();
        byte[] inherited = writer.toChunk(sets);
        assertThat(inherited[0] & ChunkWriter.INHERITED_TAG_SETS).as("header bit").isNotZero();
        assertThat(explicit.length - inherited.length).as("the sets' bytes left out, their count kept").isEqualTo(sets.length - 1);

        BlockReader block = new BlockReader().read(concat(first, inherited), BLOCK);
        assertThat(block.size()).isEqualTo(2);
        for (int i = 0; i < 2; i++) {
            assertThat(Arrays.copyOfRange(block.tagBytes(), block.tagsOffset(i), block.tagsOffset(i) + block.tagsLength(i)))
                    .isEqualTo(UNIT_CELSIUS);
        }
        // Without the chunk before it (the broker deleted it), its readings read without tags, never fail.
        BlockReader alone = new BlockReader().read(inherited, BLOCK);
        assertThat(alone.value(0)).isEqualTo(21.6);
        assertThat(alone.tagsLength(0)).isEqualTo(NO_TAGS.length);
        // Other sets than the chunk before: written out.
        writer.start(BLOCK).add(BLOCK + 3_000, 21.7, NO_TAGS);
        assertThat(writer.toChunk(sets)[0] & ChunkWriter.INHERITED_TAG_SETS).isZero();
    }

    @Test
    void aChunkReadAfterTheSetsOfTheChunkBeforeItTakesThemAndTellsTheSetsTheNextOneMayInherit() {
        ChunkWriter writer = new ChunkWriter().start(BLOCK);
        writer.add(BLOCK + 1_000, 21.5, UNIT_CELSIUS);
        byte[] first = writer.toChunk();
        BlockReader reader = new BlockReader().read(first, BLOCK);
        byte[] sets = reader.lastTagSets();
        assertThat(sets).as("the sets field of a chunk that writes its sets out").isEqualTo(writer.tagSets());
        writer.start(BLOCK).add(BLOCK + 2_000, 21.6, UNIT_CELSIUS);
        byte[] inherited = writer.toChunk(sets);

        reader.readAfter(sets, inherited, 0, inherited.length, BLOCK);
        assertThat(Arrays.copyOfRange(reader.tagBytes(), reader.tagsOffset(0), reader.tagsOffset(0) + reader.tagsLength(0)))
                .isEqualTo(UNIT_CELSIUS);
        assertThat(reader.lastTagSets()).as("inherited, so the same").isEqualTo(sets);
        // Read without them: no tags, and no sets to inherit.
        reader.read(inherited, BLOCK);
        assertThat(reader.tagsLength(0)).isEqualTo(NO_TAGS.length);
        assertThat(reader.lastTagSets()).isNull();
        // After sets of another count: not the chunk it follows, so no tags either.
        writer.start(BLOCK).add(BLOCK + 1_000, 1, NO_TAGS);
        writer.add(BLOCK + 2_000, 2, UNIT_CELSIUS);
        writer.toChunk();
        reader.readAfter(writer.tagSets(), inherited, 0, inherited.length, BLOCK);
        assertThat(reader.tagsLength(0)).isEqualTo(NO_TAGS.length);
        assertThat(reader.lastTagSets()).isNull();
        // A chunk that writes its sets out after the sets given: its own.
        writer.start(BLOCK).add(BLOCK + 3_000, 21.7, NO_TAGS);
        byte[] own = writer.toChunk();
        reader.readAfter(sets, own, 0, own.length, BLOCK);
        assertThat(reader.lastTagSets()).isEqualTo(writer.tagSets());
    }

    @Test
    void aTruncatedChunkIsRefusedWithItsOffset() {
        ChunkWriter writer = new ChunkWriter().start(BLOCK);
        for (int i = 0; i < 50; i++) {
            writer.add(BLOCK + i * 997L, i % 3 == 0 ? Math.E * i : i / 4.0, i % 2 == 0 ? UNIT_CELSIUS : NO_TAGS);
        }
        byte[] chunk = writer.toChunk();
        for (int length = 1; length < chunk.length; length++) {
            int cut = length;
            assertThatThrownBy(() -> new BlockReader().read(chunk, 0, cut, BLOCK))
                    .as("cut at %d of %d", cut, chunk.length)
                    .isInstanceOf(MalformedBlockException.class)
                    .satisfies(e -> assertThat(((MalformedBlockException) e).offset()).isBetween(0, cut));
        }
    }

    @Test
    void anUnknownChunkFormatIsRefusedByName() {
        byte[] chunk = chunk(w -> w.add(BLOCK, 1, NO_TAGS));
        chunk[0] = 0x20;
        assertThatThrownBy(() -> new BlockReader().read(chunk, BLOCK))
                .isInstanceOf(MalformedBlockException.class)
                .hasMessageContaining("unknown chunk header 0x20")
                .hasMessageContaining("chunk format 1");
    }

    @Test
    void corruptedBytesAreRefusedOrReadNeverCrash() {
        long seed = new SplittableRandom().nextLong();
        SplittableRandom random = new SplittableRandom(seed);
        ChunkWriter writer = new ChunkWriter();
        for (int round = 0; round < 5_000; round++) {
            writer.start(BLOCK);
            int readings = random.nextInt(1, 40);
            for (int i = 0; i < readings; i++) {
                writer.add(BLOCK + i * 1_000L + random.nextInt(50), random.nextBoolean() ? random.nextInt(1000) / 10.0 : random.nextDouble(),
                        random.nextBoolean() ? UNIT_CELSIUS : NO_TAGS);
            }
            byte[] chunk = writer.toChunk();
            for (int flips = random.nextInt(1, 4); flips > 0; flips--) {
                chunk[random.nextInt(chunk.length)] ^= (byte) (1 << random.nextInt(8));
            }
            try {
                new BlockReader().read(chunk, BLOCK);
            } catch (MalformedBlockException expected) {
                assertThat(expected.offset()).isBetween(0, chunk.length);
            } catch (RuntimeException e) {
                fail("seed " + seed + ", round " + round + ": " + HexFormat.of().formatHex(chunk) + " failed with " + e, e);
            }
        }
    }

    @Test
    void aReadingBeforeItsBlocksStartIsRefused() {
        assertThatThrownBy(() -> new ChunkWriter().start(BLOCK).add(BLOCK - 1, 1, NO_TAGS))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("before its block's start");
    }

    private static byte[] chunk(Consumer<ChunkWriter> readings) {
        ChunkWriter writer = new ChunkWriter().start(BLOCK);
        readings.accept(writer);
        return writer.toChunk();
    }

    static byte[] tags(Map<String, String> tags) {
        byte[] row = new RawRow(0, tags).toBytes();
        return Arrays.copyOfRange(row, 8, row.length);
    }

    private static byte[] concat(byte[]... parts) {
        int length = 0;
        for (byte[] part : parts) {
            length += part.length;
        }
        byte[] all = new byte[length];
        int at = 0;
        for (byte[] part : parts) {
            System.arraycopy(part, 0, all, at, part.length);
            at += part.length;
        }
        return all;
    }
}
