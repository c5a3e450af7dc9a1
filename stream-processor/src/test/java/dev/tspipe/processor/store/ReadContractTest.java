package dev.tspipe.processor.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tspipe.model.keys.RowKey;
import dev.tspipe.model.rows.RawRow;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.BytesSerializer;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The read contract of the store's tables: the same reads (get, ranges with null bounds and with bounds of any bytes,
 * reverse ranges, all, prefix scans) answer what Kafka's own in-memory key-value store answers holding the same rows.
 * The raw table's rows are the readings themselves (written to both, the in-memory store keeping the last value of
 * each key, as a correction does), though the table stores them as blocks; the other tables' rows are copied from the
 * table into an in-memory store, so that their reads are compared for bounds and order. Seeded; the seed is printed.
 */
class ReadContractTest {

    private static final String APPLICATION = "read-contract-test";
    private static final String MEMORY = "contract-raw";
    private static final long HOUR = 3_600_000L;
    private static final long T0 = 20_000L * 86_400_000L;
    private static final List<String> SERIES = List.of("dev-1#temp#", "dev-1#rh#", "dev-10#temp#", "dev-2#temp#");

    @TempDir
    Path stateDir;

    /** Each record (key: row key; value: an 8-byte double and a tag variant) into the series store and into Kafka's store. */
    private static final class Ingest implements Processor<byte[], byte[], Void, Void> {
        private SeriesStore store;
        private KeyValueStore<Bytes, byte[]> memory;

        @Override
        public void init(ProcessorContext<Void, Void> context) {
            store = TableStore.seriesStoreOf(context.getStateStore(StoreNames.RAW));
            memory = context.getStateStore(MEMORY);
        }

        @Override
        public void process(Record<byte[], byte[]> record) {
            ByteBuffer in = ByteBuffer.wrap(record.value());
            double value = in.getDouble();
            int variant = in.get();
            Map<String, String> tags = variant == 0 ? Map.of() : Map.of("site", "s" + variant, "unit", "C");
            byte[] row = new RawRow(value, tags).toBytes();
            store.ingest(record.key(), RowKey.timestampOf(record.key()), row, value);
            memory.put(Bytes.wrap(record.key()), row);
        }
    }

    private TopologyTestDriver driver() {
        SeriesStoreSpec spec = SeriesStoreSpec.of(Duration.ofDays(7), Duration.ofDays(1),
                Map.of(RollupStep.MINUTE, Duration.ofDays(30), RollupStep.HOUR, Duration.ofDays(60), RollupStep.DAY, Duration.ofDays(400)));
        Topology topology = new Topology();
        topology.addSource("in", new ByteArrayDeserializer(), new ByteArrayDeserializer(), "in");
        topology.addProcessor("ingest", Ingest::new, "in");
        for (Table table : Table.values()) {
            topology.addStateStore(TableStore.builder(table, spec), "ingest");
        }
        topology.addStateStore(Stores.keyValueStoreBuilder(Stores.inMemoryKeyValueStore(MEMORY), Serdes.Bytes(), Serdes.ByteArray())
                .withLoggingDisabled(), "ingest");
        Properties props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, APPLICATION);
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
        props.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString());
        props.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
        props.put(StreamsConfig.TRANSACTIONAL_STATE_STORES_CONFIG, true);
        return new TopologyTestDriver(topology, props);
    }

    @Test
    void everyTableAnswersReadsAsKafkasInMemoryStoreDoesWithTheSameRows() {
        long seed = System.nanoTime();
        System.out.println("ReadContractTest seed " + seed);
        Random random = new Random(seed);
        try (TopologyTestDriver driver = driver()) {
            TestInputTopic<byte[], byte[]> in = driver.createInputTopic("in", new ByteArraySerializer(), new ByteArraySerializer());
            List<byte[]> keys = new ArrayList<>();
            for (int i = 0; i < 600; i++) {
                byte[] prefix = SERIES.get(random.nextInt(SERIES.size())).getBytes(StandardCharsets.UTF_8);
                // Over three days, a third of the readings in a few hours (blocks of many chunks), some again at the
                // time of an earlier one (a duplicate or a correction), some out of order.
                long millis = !keys.isEmpty() && random.nextInt(8) == 0 ? RowKey.timestampOf(keys.get(random.nextInt(keys.size())))
                        : random.nextInt(3) == 0 ? T0 + random.nextInt((int) (3 * HOUR)) : T0 + (long) (random.nextDouble() * 72 * HOUR);
                byte[] key = RowKey.withTimestamp(prefix, millis);
                keys.add(key);
                double value = random.nextInt(3) == 0 ? random.nextGaussian() : Math.round(random.nextGaussian() * 100) / 10.0;
                in.pipeInput(key, ByteBuffer.allocate(9).putDouble(value).put((byte) random.nextInt(3)).array());
            }
            KeyValueStore<Bytes, byte[]> rawMemory = driver.getKeyValueStore(MEMORY);
            String context = "seed " + seed;
            for (Table table : Table.values()) {
                TableStore stored = StreamsInternals.find(driver.getKeyValueStore(table.storeName()), TableStore.class).orElseThrow();
                KeyValueStore<Bytes, byte[]> expected = table == Table.RAW ? rawMemory : copy(driver, table, stored);
                List<byte[]> tableKeys = keysOf(expected);
                assertThat(tableKeys).as("%s holds rows (%s)", table, context).isNotEmpty();
                for (byte[] key : tableKeys) {
                    assertThat(stored.get(Bytes.wrap(key))).as("get %s of %s (%s)", hex(key), table, context).isEqualTo(expected.get(Bytes.wrap(key)));
                }
                if (table.timeKeyed()) {
                    for (int i = 0; i < 200; i++) {
                        // (the latest table's keys are series prefixes: not time-keyed)
                        // Row keys of times not stored: in a block, between blocks, of no series.
                        byte[] prefix = RowKey.seriesPrefixOf(tableKeys.get(random.nextInt(tableKeys.size())));
                        byte[] absent = RowKey.withTimestamp(prefix, T0 + (long) (random.nextDouble() * 80 * HOUR));
                        assertThat(stored.get(Bytes.wrap(absent))).as("get %s of %s (%s)", hex(absent), table, context)
                                .isEqualTo(expected.get(Bytes.wrap(absent)));
                    }
                }
                compare("all of " + table, stored.all(), expected.all(), context);
                compare("reverseAll of " + table, stored.reverseAll(), expected.reverseAll(), context);
                for (int i = 0; i < 400; i++) {
                    Bytes from = bound(random, tableKeys);
                    Bytes to = bound(random, tableKeys);
                    String what = table + " [" + hex(from) + ", " + hex(to) + "]";
                    compare("range " + what, stored.range(from, to), expected.range(from, to), context);
                    compare("reverseRange " + what, stored.reverseRange(from, to), expected.reverseRange(from, to), context);
                    Bytes prefix = prefix(random, tableKeys);
                    compare("prefixScan " + table + " " + hex(prefix), stored.prefixScan(prefix, new BytesSerializer()),
                            expected.prefixScan(prefix, new BytesSerializer()), context);
                }
            }
        }
    }

    /** A bound of a range: none, a stored key, a key next to one (one byte more or less, or changed), or any bytes. */
    private static Bytes bound(Random random, List<byte[]> keys) {
        byte[] key = keys.get(random.nextInt(keys.size())).clone();
        return switch (random.nextInt(8)) {
            case 0 -> null;
            case 1, 2 -> Bytes.wrap(key);
            case 3 -> Bytes.wrap(java.util.Arrays.copyOf(key, key.length + 1));
            case 4 -> Bytes.wrap(java.util.Arrays.copyOf(key, 1 + random.nextInt(key.length)));
            case 5 -> {
                key[key.length - 1 - random.nextInt(Math.min(key.length, RowKey.TIMESTAMP_DIGITS))] += (byte) (random.nextBoolean() ? 1 : -1);
                yield Bytes.wrap(key);
            }
            case 6 -> {
                if (key.length <= RowKey.TIMESTAMP_DIGITS) {
                    yield Bytes.wrap(key);
                }
                // A row key of another time of the same series: a block boundary, the middle of a block.
                long millis = T0 + (random.nextBoolean() ? random.nextInt(80) * HOUR : (long) (random.nextDouble() * 80 * HOUR));
                yield Bytes.wrap(RowKey.withTimestamp(RowKey.seriesPrefixOf(key), millis));
            }
            default -> {
                byte[] any = new byte[random.nextInt(40)];
                random.nextBytes(any);
                yield Bytes.wrap(any);
            }
        };
    }

    /**
     * A prefix of a stored key (a device's, a series', a series and some digits), or of no key; never empty (Kafka's
     * in-memory store fails on an empty prefix, where the series store scans everything).
     */
    private static Bytes prefix(Random random, List<byte[]> keys) {
        byte[] key = keys.get(random.nextInt(keys.size()));
        if (random.nextInt(10) == 0) {
            return Bytes.wrap("nothing#".getBytes(StandardCharsets.UTF_8));
        }
        return Bytes.wrap(java.util.Arrays.copyOf(key, 1 + random.nextInt(key.length)));
    }

    /** The rows of a table, read with {@code all()}, in a fresh in-memory store of Kafka's. */
    private static KeyValueStore<Bytes, byte[]> copy(TopologyTestDriver driver, Table table, TableStore stored) {
        KeyValueStore<Bytes, byte[]> memory = Stores.inMemoryKeyValueStore("copy-" + table.storeName()).get();
        memory.init(new org.apache.kafka.streams.processor.api.MockProcessorContext<>().getStateStoreContext(), memory);
        try (KeyValueIterator<Bytes, byte[]> rows = stored.all()) {
            rows.forEachRemaining(row -> memory.put(row.key, row.value));
        }
        return memory;
    }

    private static List<byte[]> keysOf(KeyValueStore<Bytes, byte[]> store) {
        List<byte[]> keys = new ArrayList<>();
        try (KeyValueIterator<Bytes, byte[]> rows = store.all()) {
            rows.forEachRemaining(row -> keys.add(row.key.get()));
        }
        return keys;
    }

    private static void compare(String what, KeyValueIterator<Bytes, byte[]> actual, KeyValueIterator<Bytes, byte[]> expected, String context) {
        assertThat(rows(actual)).as("%s (%s)", what, context).containsExactlyElementsOf(rows(expected));
    }

    private static List<String> rows(KeyValueIterator<Bytes, byte[]> iterator) {
        List<String> rows = new ArrayList<>();
        try (iterator) {
            while (iterator.hasNext()) {
                KeyValue<Bytes, byte[]> row = iterator.next();
                rows.add(hex(row.key) + "=" + HexFormat.of().formatHex(row.value));
            }
        }
        return rows;
    }

    private static String hex(Bytes bytes) {
        return bytes == null ? "null" : hex(bytes.get());
    }

    private static String hex(byte[] bytes) {
        StringBuilder out = new StringBuilder();
        for (byte b : bytes) {
            int u = b & 0xFF;
            out.append(u >= 0x20 && u < 0x7F ? String.valueOf((char) u) : String.format("\\x%02X", u));
        }
        return out.toString();
    }
}
