package dev.tspipe.processor.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tspipe.model.keys.RowKey;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import org.apache.kafka.common.utils.Bytes;
import org.junit.jupiter.api.Test;

/** {@link SeriesTable} finds what a {@code HashMap} of prefixes finds, from row keys, across growth and clears (seeded). */
class SeriesTableTest {

    @Test
    void findsTheBufferOfEveryRowKeysSeriesAndNothingElse() {
        long seed = Long.getLong("tspipe.seed", System.nanoTime());
        Random random = new Random(seed);
        SeriesTable<SeriesBuffer> table = new SeriesTable<>();
        Map<Bytes, SeriesBuffer> model = new HashMap<>();
        for (int step = 0; step < 200_000; step++) {
            // Few distinct prefixes of few lengths, so that lookups hit, miss, collide and share beginnings.
            byte[] prefix = ("d" + random.nextInt(3_000) + "#m" + random.nextInt(3) + "#").getBytes(StandardCharsets.UTF_8);
            byte[] rowKey = RowKey.withTimestamp(prefix, random.nextLong(RowKey.MAX_EPOCH_MILLIS + 1));
            SeriesBuffer expected = model.get(Bytes.wrap(prefix));
            assertThat(table.get(rowKey)).as("seed %d, step %d", seed, step).isSameAs(expected);
            assertThat(table.getByPrefix(prefix)).as("seed %d, step %d, by prefix", seed, step).isSameAs(expected);
            if (expected == null && random.nextInt(3) > 0) {
                SeriesBuffer buffer = new SeriesBuffer(prefix);
                table.add(buffer);
                model.put(Bytes.wrap(prefix), buffer);
            }
            if (random.nextInt(50_000) == 0) {
                table.clear();
                model.clear();
            }
            assertThat(table.size()).as("seed %d, step %d", seed, step).isEqualTo(model.size());
        }
    }
}
