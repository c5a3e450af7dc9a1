package dev.tspipe.processor.badinput;

import dev.tspipe.model.keys.KeyLayout;
import dev.tspipe.model.keys.RowKey;
import dev.tspipe.model.keys.SeriesId;
import dev.tspipe.model.rows.LatestReading;
import dev.tspipe.model.rows.RawRow;
import dev.tspipe.processor.store.StoreNames;
import dev.tspipe.processor.topology.DeadLetters;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What the corpus demands of the pipeline, checked the same way on the TopologyTestDriver and on
 * the real broker: every bad record is exactly one dead letter with its reason, its original key,
 * value and headers, and the place it was read; every good record is stored.
 */
public final class CorpusExpectations {

    /** A record as sent, and where it landed. */
    public record Sent(BadInputCorpus.Input input, String topic, int partition, long offset) {
        String where() {
            return topic + "/" + partition + "/" + offset;
        }
    }

    /** A record read from the dead-letter topic. */
    public record Letter(byte[] key, byte[] value, Headers headers) {
    }

    /** Reads of the stores, by row key. */
    public interface Rows {
        byte[] raw(byte[] rowKey);

        byte[] latest(byte[] seriesPrefix);

        long rawRowCount();

        /** The rows of the stores that {@code stores} opens by name (the test driver's, or interactive queries). */
        static Rows of(Function<String, ReadOnlyKeyValueStore<Bytes, byte[]>> stores) {
            return new Rows() {
                @Override
                public byte[] raw(byte[] rowKey) {
                    return stores.apply(StoreNames.RAW).get(Bytes.wrap(rowKey));
                }

                @Override
                public byte[] latest(byte[] seriesPrefix) {
                    return stores.apply(StoreNames.LATEST).get(Bytes.wrap(seriesPrefix));
                }

                @Override
                public long rawRowCount() {
                    long count = 0;
                    try (KeyValueIterator<Bytes, byte[]> all = stores.apply(StoreNames.RAW).all()) {
                        for (; all.hasNext(); all.next()) {
                            count++;
                        }
                    }
                    return count;
                }
            };
        }
    }

    private CorpusExpectations() {
    }

    /** The reason of each bad record, by case name: what the dead letters must say. */
    public static Map<String, String> expectedReasons(List<Sent> sent) {
        Map<String, String> reasons = new LinkedHashMap<>();
        sent.stream().filter(s -> s.input().bad()).forEach(s ->
                reasons.put(s.input().name(), ((BadInputCorpus.Rejected) s.input().expected()).reason()));
        return reasons;
    }

    public static void assertDeadLetters(List<Sent> sent, List<Letter> letters) {
        Map<String, Sent> bySource = sent.stream().filter(s -> s.input().bad())
                .collect(Collectors.toMap(Sent::where, Function.identity()));
        Map<String, String> reasons = new LinkedHashMap<>();
        List<String> problems = new ArrayList<>();
        for (Letter letter : letters) {
            String where = text(letter.headers(), DeadLetters.SOURCE_TOPIC) + "/" + text(letter.headers(), DeadLetters.SOURCE_PARTITION)
                    + "/" + text(letter.headers(), DeadLetters.SOURCE_OFFSET);
            Sent source = bySource.get(where);
            if (source == null) {
                problems.add("a dead letter names " + where + ", where no bad record was sent (reason "
                        + text(letter.headers(), DeadLetters.REASON) + ")");
                continue;
            }
            String name = source.input().name();
            if (reasons.put(name, text(letter.headers(), DeadLetters.REASON)) != null) {
                problems.add(name + ": more than one dead letter");
            }
            problems.addAll(differences(source, letter));
        }
        assertThat(reasons).as("dead-letter reasons by case").containsExactlyInAnyOrderEntriesOf(expectedReasons(sent));
        assertThat(problems).as("dead letters that differ from the record sent").isEmpty();
    }

    private static List<String> differences(Sent source, Letter letter) {
        String name = source.input().name();
        List<String> problems = new ArrayList<>();
        if (!Arrays.equals(letter.key(), source.input().key())) {
            problems.add(name + ": key " + hex(letter.key()) + ", sent " + hex(source.input().key()));
        }
        if (!Arrays.equals(letter.value(), source.input().value())) {
            problems.add(name + ": value of " + length(letter.value()) + " bytes differs from the " + length(source.input().value())
                    + " bytes sent");
        }
        List<String> kept = producerHeaders(Arrays.asList(letter.headers().toArray()));
        List<String> sentHeaders = producerHeaders(source.input().headers());
        if (!kept.equals(sentHeaders)) {
            problems.add(name + ": headers " + kept + ", sent " + sentHeaders);
        }
        for (String tspipe : List.of(DeadLetters.REASON, DeadLetters.MESSAGE, DeadLetters.STAGE, DeadLetters.SOURCE_TOPIC,
                DeadLetters.SOURCE_PARTITION, DeadLetters.SOURCE_OFFSET)) {
            int count = 0;
            for (Header ignored : letter.headers().headers(tspipe)) {
                count++;
            }
            if (count != 1) {
                problems.add(name + ": " + count + " headers " + tspipe);
            }
        }
        String reason = ((BadInputCorpus.Rejected) source.input().expected()).reason();
        String stage = reason.equals("expired") || reason.equals("future") ? "ingest" : "decode";
        if (!stage.equals(text(letter.headers(), DeadLetters.STAGE))) {
            problems.add(name + ": stage " + text(letter.headers(), DeadLetters.STAGE) + ", expected " + stage);
        }
        String message = text(letter.headers(), DeadLetters.MESSAGE);
        if (message == null || message.isBlank()) {
            problems.add(name + ": no message");
        }
        return problems;
    }

    /** The headers a producer set, in order: everything but tspipe's own ({@code tspipe.*}). */
    private static List<String> producerHeaders(List<Header> headers) {
        return headers.stream().filter(h -> !h.key().startsWith("tspipe."))
                .map(h -> h.key() + "=" + hex(h.value())).toList();
    }

    /** Every record expected stored is in the raw rows and the latest table, and nothing else is. */
    public static void assertStored(List<Sent> sent, KeyLayout layout, Rows rows) {
        List<String> problems = new ArrayList<>();
        Map<SeriesId, Long> newest = new HashMap<>();
        long expectedRows = 0;
        for (Sent s : sent) {
            if (!(s.input().expected() instanceof BadInputCorpus.Stored stored)) {
                continue;
            }
            expectedRows++;
            newest.merge(stored.series(), stored.epochMillis(), Math::max);
            byte[] row = rows.raw(RowKey.encode(layout, stored.series(), stored.epochMillis()));
            if (row == null) {
                problems.add(s.input().name() + ": no raw row");
            } else if (Double.doubleToRawLongBits(RawRow.fromBytes(row).value()) != Double.doubleToRawLongBits(stored.value())) {
                problems.add(s.input().name() + ": raw row value " + RawRow.fromBytes(row).value() + ", sent " + stored.value());
            }
        }
        newest.forEach((series, epochMillis) -> {
            byte[] latest = rows.latest(RowKey.seriesPrefix(layout, series));
            if (latest == null || LatestReading.fromBytes(latest).epochMillis() != epochMillis) {
                problems.add(series + ": latest " + (latest == null ? "missing" : LatestReading.fromBytes(latest).epochMillis())
                        + ", expected " + epochMillis);
            }
        });
        assertThat(problems).as("records that should have been stored").isEmpty();
        assertThat(rows.rawRowCount()).as("raw rows: one per stored record, none of a bad one").isEqualTo(expectedRows);
    }

    /** Every record expected stored is visible (to wait for it before asserting). */
    public static boolean allStored(List<Sent> sent, KeyLayout layout, Rows rows) {
        return sent.stream().map(s -> s.input().expected())
                .filter(BadInputCorpus.Stored.class::isInstance).map(BadInputCorpus.Stored.class::cast)
                .allMatch(stored -> rows.raw(RowKey.encode(layout, stored.series(), stored.epochMillis())) != null);
    }

    private static String text(Headers headers, String name) {
        return DeadLetters.text(headers, name);
    }

    private static String hex(byte[] bytes) {
        return bytes == null ? "null" : bytes.length > 32 ? bytes.length + " bytes" : HexFormat.of().formatHex(bytes);
    }

    private static String length(byte[] bytes) {
        return bytes == null ? "null" : Integer.toString(bytes.length);
    }
}
