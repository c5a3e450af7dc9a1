package dev.tspipe.processor.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tspipe.processor.keys.KeyLayout;
import dev.tspipe.processor.keys.RowKey;
import dev.tspipe.processor.keys.SeriesId;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Random;
import java.util.TreeMap;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Seeded random operations against the store and a {@link TreeMap} model with the same expiry rule,
 * compared after every step. {@code -Dtspipe.seed=N} replays one sequence.
 */
class SegmentedKeyValueStoreModelTest {

    private static final long INTERVAL = 1_000;
    private static final long RETENTION = 3_000;
    private static final SegmentedStoreSpec SPEC =
            SegmentedStoreSpec.of("model", Duration.ofMillis(RETENTION), Duration.ofMillis(INTERVAL));
    private static final List<SeriesId> SERIES = List.of(
            SeriesId.of("d1", "t"), SeriesId.of("d1", "h"), SeriesId.of("d10", "t"),
            SeriesId.of("d2", "t"), SeriesId.of("d2", "t2"));
    private static final List<String> PREFIXES = List.of("", "d", "d1", "d1#", "d1#t#", "d10#", "d2#t", "e", "d1#t#92");
    private static final int SEQUENCES = 4;
    private static final int STEPS = 1_000;

    @TempDir
    Path stateDir;

    @Test
    void storeBehavesLikeTheModel() {
        Long fixedSeed = Long.getLong("tspipe.seed");
        long firstSeed = fixedSeed != null ? fixedSeed : new Random().nextLong();
        int sequences = fixedSeed != null ? 1 : SEQUENCES;
        for (int i = 0; i < sequences; i++) {
            long seed = firstSeed + i;
            File dir = stateDir.resolve("seq-" + i).toFile();
            try {
                new Run(seed, dir).execute();
            } catch (AssertionError | RuntimeException e) {
                throw new AssertionError("failed with seed " + seed + " (rerun with -Dtspipe.seed=" + seed + "): "
                        + e.getMessage(), e);
            }
        }
    }

    private static final class Run {
        private final Random random;
        private final File dir;
        private final TreeMap<Bytes, byte[]> model = new TreeMap<>();
        private final List<Bytes> written = new ArrayList<>();
        private long modelStreamTime = -1;
        private long cursor = 5_000;
        private StoreFixture fixture;

        Run(long seed, File dir) {
            this.random = new Random(seed);
            this.dir = dir;
        }

        void execute() {
            fixture = StoreFixture.open(dir, SPEC);
            try {
                for (int step = 0; step < STEPS; step++) {
                    String op = step(step);
                    try {
                        compareAll();
                        checkSegmentDirectories();
                    } catch (AssertionError e) {
                        throw new AssertionError("after step " + step + " (" + op + "): " + e.getMessage(), e);
                    }
                }
            } finally {
                fixture.store.close();
            }
        }

        private String step(int step) {
            int dice = random.nextInt(100);
            if (dice < 40) {
                Bytes key = randomKey();
                byte[] value = ("v" + step).getBytes(StandardCharsets.UTF_8);
                fixture.store.put(key, value);
                modelPut(key, value);
                return "put " + key;
            } else if (dice < 50) {
                Bytes key = existingOrRandomKey();
                fixture.store.put(key, null);
                modelPut(key, null);
                return "delete " + key;
            } else if (dice < 62) {
                Bytes key = existingOrRandomKey();
                assertThat(fixture.store.get(key)).as("get %s", key).isEqualTo(model.get(key));
                return "get " + key;
            } else if (dice < 72) {
                Bytes from = bound();
                Bytes to = bound();
                try (KeyValueIterator<Bytes, byte[]> it = fixture.store.range(from, to)) {
                    assertSame(drain(it), modelRange(from, to, false), "range " + from + " .. " + to);
                }
                return "range";
            } else if (dice < 79) {
                Bytes from = bound();
                Bytes to = bound();
                try (KeyValueIterator<Bytes, byte[]> it = fixture.store.reverseRange(from, to)) {
                    assertSame(drain(it), modelRange(from, to, true), "reverseRange " + from + " .. " + to);
                }
                return "reverseRange";
            } else if (dice < 87) {
                String prefix = PREFIXES.get(random.nextInt(PREFIXES.size()));
                byte[] prefixBytes = prefix.getBytes(StandardCharsets.UTF_8);
                List<KeyValue<Bytes, byte[]>> expected = new ArrayList<>();
                for (Map.Entry<Bytes, byte[]> e : model.entrySet()) {
                    byte[] k = e.getKey().get();
                    if (k.length >= prefixBytes.length && Arrays.equals(k, 0, prefixBytes.length, prefixBytes, 0, prefixBytes.length)) {
                        expected.add(KeyValue.pair(e.getKey(), e.getValue()));
                    }
                }
                try (KeyValueIterator<Bytes, byte[]> it = fixture.store.prefixScan(prefix, new StringSerializer())) {
                    assertSame(drain(it), expected, "prefixScan '" + prefix + "'");
                }
                return "prefixScan";
            } else if (dice < 90) {
                try (KeyValueIterator<Bytes, byte[]> it = fixture.store.reverseAll()) {
                    assertSame(drain(it), modelRange(null, null, true), "reverseAll");
                }
                return "reverseAll";
            } else if (dice < 95) {
                // Advance stream time: a reading ahead of everything seen, which may expire segments.
                cursor = Math.max(cursor, modelStreamTime) + 1 + random.nextInt(1_500);
                Bytes key = key(SERIES.get(random.nextInt(SERIES.size())), cursor);
                byte[] value = ("a" + step).getBytes(StandardCharsets.UTF_8);
                fixture.store.put(key, value);
                modelPut(key, value);
                return "advance to " + cursor;
            } else if (dice < 99 || random.nextInt(3) != 0) {
                try (KeyValueIterator<Bytes, byte[]> it = fixture.store.range(bound(), bound())) {
                    it.hasNext();
                }
                return "range, abandoned";
            } else {
                fixture.store.commit(Map.of());
                fixture.store.close();
                fixture = StoreFixture.open(dir, SPEC);
                assertThat(fixture.store.streamTime().orElse(-1)).as("stream time after reopening").isEqualTo(modelStreamTime);
                return "reopen";
            }
        }

        private void modelPut(Bytes key, byte[] value) {
            long ts = SegmentedKeyValueStore.timestampOf(key.get());
            if (modelStreamTime >= 0 && ts < modelStreamTime - RETENTION) {
                return;
            }
            if (value == null) {
                model.remove(key);
                return;
            }
            model.put(key, value);
            if (ts > modelStreamTime) {
                modelStreamTime = ts;
                long limit = modelStreamTime - RETENTION;
                model.keySet().removeIf(k -> SegmentedKeyValueStore.timestampOf(k.get()) < limit);
            }
        }

        private List<KeyValue<Bytes, byte[]>> modelRange(Bytes from, Bytes to, boolean reverse) {
            if (from != null && to != null && from.compareTo(to) > 0) {
                return List.of();
            }
            NavigableMap<Bytes, byte[]> view = model;
            if (from != null) {
                view = view.tailMap(from, true);
            }
            if (to != null) {
                view = view.headMap(to, true);
            }
            if (reverse) {
                view = view.descendingMap();
            }
            List<KeyValue<Bytes, byte[]>> out = new ArrayList<>();
            view.forEach((k, v) -> out.add(KeyValue.pair(k, v)));
            return out;
        }

        private void compareAll() {
            try (KeyValueIterator<Bytes, byte[]> it = fixture.store.all()) {
                assertSame(drain(it), modelRange(null, null, false), "all");
            }
            assertThat(fixture.store.streamTime().orElse(-1)).as("stream time").isEqualTo(modelStreamTime);
        }

        private void checkSegmentDirectories() {
            File storeDir = new File(dir, SPEC.name());
            File[] segmentDirs = storeDir.listFiles(f -> f.isDirectory() && f.getName().matches("[0-9]+"));
            assertThat(segmentDirs).isNotNull();
            for (File segmentDir : segmentDirs) {
                long id = Long.parseLong(segmentDir.getName());
                assertThat((id + 1) * INTERVAL).as("end of the span of segment directory %s", id)
                        .isGreaterThan(modelStreamTime - RETENTION);
            }
        }

        private Bytes randomKey() {
            long low = Math.max(0, cursor - 4_500);
            long ts = low + random.nextInt((int) (cursor + 800 - low));
            return key(SERIES.get(random.nextInt(SERIES.size())), ts);
        }

        private Bytes existingOrRandomKey() {
            if (!written.isEmpty() && random.nextBoolean()) {
                return written.get(random.nextInt(written.size()));
            }
            return randomKey();
        }

        private Bytes bound() {
            int dice = random.nextInt(10);
            if (dice == 0) {
                return null;
            }
            if (dice < 5 && !written.isEmpty()) {
                return written.get(random.nextInt(written.size()));
            }
            if (dice < 7) {
                // A bound that is not a key: a series prefix or a key with a byte too many.
                byte[] prefix = RowKey.seriesPrefix(KeyLayout.DEFAULT, SERIES.get(random.nextInt(SERIES.size())));
                return Bytes.wrap(random.nextBoolean() ? prefix : Arrays.copyOf(randomKey().get(), prefix.length + 20));
            }
            return randomKey();
        }

        private Bytes key(SeriesId series, long ts) {
            Bytes key = Bytes.wrap(RowKey.encode(KeyLayout.DEFAULT, series, ts));
            written.add(key);
            if (written.size() > 400) {
                written.remove(random.nextInt(written.size()));
            }
            return key;
        }
    }

    private static List<KeyValue<Bytes, byte[]>> drain(KeyValueIterator<Bytes, byte[]> it) {
        List<KeyValue<Bytes, byte[]>> out = new ArrayList<>();
        while (it.hasNext()) {
            Bytes peeked = it.peekNextKey();
            KeyValue<Bytes, byte[]> next = it.next();
            assertThat(next.key).isEqualTo(peeked);
            out.add(next);
        }
        return out;
    }

    private static void assertSame(List<KeyValue<Bytes, byte[]>> actual, List<KeyValue<Bytes, byte[]>> expected, String what) {
        assertThat(actual.stream().map(kv -> kv.key + "=" + new String(kv.value, StandardCharsets.UTF_8)).toList())
                .as(what)
                .containsExactlyElementsOf(expected.stream().map(kv -> kv.key + "=" + new String(kv.value, StandardCharsets.UTF_8)).toList());
    }
}
