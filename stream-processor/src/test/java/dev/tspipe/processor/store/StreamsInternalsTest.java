package dev.tspipe.processor.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tspipe.model.blocks.BlockReader;
import dev.tspipe.model.keys.RowKey;
import dev.tspipe.model.rows.Rollup;
import dev.tspipe.model.rows.RawRow;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the series store relies on in Kafka Streams' internals ({@link StreamsInternals}), through a real
 * task (TopologyTestDriver): the flush hook runs before every commit and its records reach each table's
 * changelog; the commit of the transaction is reported to every table with its offset; the table is found
 * under the layers Kafka Streams puts around it. A Kafka upgrade that changes any of these fails here
 * (a task that reopens its state after a crash is covered by {@code SeriesStoreTest} and the pipeline ITs;
 * the driver deletes its state directory when it closes).
 */
class StreamsInternalsTest {

    private static final String APPLICATION = "internals-test";
    private static final long T0 = 20_000L * 86_400_000L;
    private static final byte[] SERIES = "dev-1#temp#".getBytes(StandardCharsets.UTF_8);

    @TempDir
    Path stateDir;

    /** Stores each input record (key: row key, value: 8-byte double) through the series store. */
    private static final class Ingest implements Processor<byte[], byte[], Void, Void> {
        private SeriesStore store;

        @Override
        public void init(ProcessorContext<Void, Void> context) {
            // The context hands out Kafka Streams' read-write decorator; the table is found under it.
            store = TableStore.seriesStoreOf(context.getStateStore(StoreNames.RAW));
        }

        @Override
        public void process(Record<byte[], byte[]> record) {
            double value = ByteBuffer.wrap(record.value()).getDouble();
            store.ingest(record.key(), RowKey.timestampOf(record.key()), new RawRow(value, Map.of()).toBytes(), value);
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
        Properties props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, APPLICATION);
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
        props.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString());
        props.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
        props.put(StreamsConfig.TRANSACTIONAL_STATE_STORES_CONFIG, true);
        return new TopologyTestDriver(topology, props);
    }

    private static void pipe(TopologyTestDriver driver, long millis, double value) {
        TestInputTopic<byte[], byte[]> in = driver.createInputTopic("in", new ByteArraySerializer(), new ByteArraySerializer());
        in.pipeInput(RowKey.withTimestamp(SERIES, millis), ByteBuffer.allocate(8).putDouble(value).array());
    }

    private static List<TestRecord<byte[], byte[]>> changelog(TopologyTestDriver driver, Table table) {
        TestOutputTopic<byte[], byte[]> topic = driver.createOutputTopic(APPLICATION + "-" + table.storeName() + "-changelog",
                new ByteArrayDeserializer(), new ByteArrayDeserializer());
        return topic.readRecordsToList();
    }

    @Test
    void theFlushHookSendsEachTablesRecordsInsideTheCommitAndTheCommitIsReported() {
        try (TopologyTestDriver driver = driver()) {
            pipe(driver, T0, 1.5);
            pipe(driver, T0 + 1_000, 2.5);

            // The driver commits after every record: two commits, each with one chunk of the raw block of the hour, and
            // one group of the 1-minute table.
            List<TestRecord<byte[], byte[]>> raw = changelog(driver, Table.RAW);
            assertThat(raw).hasSize(2);
            List<KeyValue<byte[], byte[]>> chunks = ChangelogGroups.chunks(
                    raw.stream().map(record -> KeyValue.pair(record.key(), record.value())).toList());
            assertThat(chunks).hasSize(2);
            assertThat(chunks.get(0).key).isEqualTo(RowKey.withTimestamp(SERIES, T0));
            BlockReader chunk = new BlockReader().read(chunks.get(1).value, T0);
            assertThat(chunk.size()).isEqualTo(1);
            assertThat(chunk.timestamp(0)).isEqualTo(T0 + 1_000);
            assertThat(chunk.value(0)).isEqualTo(2.5);
            // Buckets are computed from the blocks until stream time seals them: no records of their own yet.
            assertThat(changelog(driver, Table.MINUTE)).isEmpty();
            assertThat(changelog(driver, Table.HOUR)).isEmpty();
            assertThat(changelog(driver, Table.DAY)).isEmpty();
            // The latest reading is in the raw chunks: a restore takes it from there.
            assertThat(changelog(driver, Table.LATEST)).isEmpty();
            TableStore hourTable = StreamsInternals.find(driver.getKeyValueStore(StoreNames.rollup(RollupStep.HOUR)),
                    TableStore.class).orElseThrow();
            Rollup hour = Rollup.fromBytes(hourTable.get(Bytes.wrap(RowKey.withTimestamp(SERIES, T0))));
            assertThat(hour.count()).isEqualTo(2);
            assertThat(hour.sum()).isEqualTo(4.0);

            // Reported committed, so applied: the table answers reads (through Kafka Streams' store lookup too).
            TableStore rawTable = StreamsInternals.find(driver.getKeyValueStore(StoreNames.RAW), TableStore.class).orElseThrow();
            assertThat(rawTable.get(Bytes.wrap(RowKey.withTimestamp(SERIES, T0 + 1_000)))).isNotNull();
            for (Table table : Table.values()) {
                assertThat(rawTable.seriesStore().committedOffset(table)).as("offset of %s", table).isNotNull();
            }
        }
    }
}
