package dev.tspipe.processor.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** A series buffer's rows encode into the same changelog records as the same rows as a list (seeded, random sizes). */
class ChangelogGroupTest {

    @Test
    void bufferedRowsEncodeAsTheListOfTheirLiveRowsDoesAndDecodeBack() {
        long seed = Long.getLong("tspipe.seed", System.nanoTime());
        Random random = new Random(seed);
        for (int round = 0; round < 300; round++) {
            RowArena arena = new RowArena();
            TimedRows rows = new TimedRows();
            List<ChangelogGroups.Row> live = new ArrayList<>();
            Set<Long> leftOut = new HashSet<>();
            int n = random.nextInt(40);
            long millis = random.nextInt(1_000_000);
            for (int i = 0; i < n; i++) {
                millis += 1 + random.nextInt(1_000);
                // Now and then a row large enough to split the group into several records.
                byte[] row = new byte[random.nextInt(10) == 0 ? 100_000 + random.nextInt(100_000) : random.nextInt(200)];
                random.nextBytes(row);
                rows.put(millis, arena.append(row), row.length);
                if (random.nextInt(4) == 0) {
                    leftOut.add(millis);
                } else {
                    live.add(new ChangelogGroups.Row(millis, row));
                }
            }
            List<byte[]> expected = ChangelogGroups.encode(live);
            List<byte[]> actual = ChangelogGroup.encode(rows, arena.bytes(), leftOut::contains);
            assertThat(actual).as("seed %d, round %d", seed, round).hasSameSizeAs(expected);
            for (int i = 0; i < expected.size(); i++) {
                assertThat(actual.get(i)).as("seed %d, round %d, record %d", seed, round, i).isEqualTo(expected.get(i));
            }
            List<Long> decoded = new ArrayList<>();
            actual.forEach(value -> ChangelogGroups.decode(value).forEach(row -> decoded.add(row.epochMillis())));
            assertThat(decoded).as("seed %d, round %d", seed, round).isEqualTo(live.stream().map(ChangelogGroups.Row::epochMillis).toList());
        }
    }
}
