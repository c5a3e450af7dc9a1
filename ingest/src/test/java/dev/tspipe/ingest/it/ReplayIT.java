package dev.tspipe.ingest.it;

import dev.tspipe.embedded.EmbeddedSchemaRegistry;
import dev.tspipe.embedded.junit.EmbeddedKafkaExtension;
import dev.tspipe.ingest.ReadingGenerator;
import dev.tspipe.ingest.ReadingProducer;
import dev.tspipe.ingest.ReplaySummary;
import dev.tspipe.ingest.Replayer;
import dev.tspipe.processor.topology.PipelineConfig;
import dev.tspipe.processor.topology.Topics;
import dev.tspipe.processor.store.RollupStep;
import dev.tspipe.processor.store.StoreNames;
import dev.tspipe.processor.topology.TspipeStreams;
import dev.tspipe.schemas.Reading;
import dev.tspipe.schemas.serde.AvroSerdeConfig;
import dev.tspipe.schemas.serde.AvroSerializer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StoreQueryParameters;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.QueryableStoreTypes;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link Replayer} on a real broker and registry: three hours of generated readings in an archive
 * topic; replaying one hour re-produces exactly that hour's records, byte for byte; and replaying
 * it twice into the pipeline's input leaves the pipeline's tables as one replay left them.
 */
class ReplayIT {

    @RegisterExtension
    static final EmbeddedKafkaExtension KAFKA = new EmbeddedKafkaExtension();

    private static final String ARCHIVE = "archive";
    private static final int PARTITIONS = 6;
    private static final Instant START = Instant.now().truncatedTo(ChronoUnit.HOURS).minus(4, ChronoUnit.HOURS);
    private static final long FROM = START.plus(1, ChronoUnit.HOURS).toEpochMilli();
    private static final long TO = START.plus(2, ChronoUnit.HOURS).toEpochMilli();

    private static EmbeddedSchemaRegistry registry;
    /** What was written to the archive, as {@link TopicRecords#describe} text. */
    private static final List<String> archived = new ArrayList<>();
    private static final List<Long> archivedTimestamps = new ArrayList<>();

    @TempDir
    Path stateDir;

    @BeforeAll
    static void fillTheArchive() {
        registry = EmbeddedSchemaRegistry.builder().bootstrapServers(KAFKA.broker().bootstrapServers()).start();
        KAFKA.broker().createTopic(ARCHIVE, PARTITIONS);
        ReadingGenerator generator = new ReadingGenerator(ReadingGenerator.Options.of(40, 5, 3, START).withSeed(99));
        AvroSerializer<Reading> avro = new AvroSerializer<>();
        avro.configure(Map.of(AvroSerdeConfig.SCHEMA_REGISTRY_URL, registry.url()), false);
        Map<String, Object> config = KAFKA.broker().clientConfig();
        config.putAll(ReadingProducer.defaults());
        // Written with headers, to see that a replay keeps them; in time order, so each partition is in time order.
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(config, new ByteArraySerializer(), new ByteArraySerializer())) {
            for (int i = 0; i < 3 * 3_600 * 3; i++) {
                Reading reading = generator.next();
                byte[] key = ReadingProducer.distributionKey(reading).getBytes(StandardCharsets.UTF_8);
                byte[] value = avro.serialize("readings", reading);
                long timestamp = reading.getTimestamp().toEpochMilli();
                RecordHeader header = new RecordHeader("origin", ("archive-" + i).getBytes(StandardCharsets.UTF_8));
                producer.send(new ProducerRecord<>(ARCHIVE, null, timestamp, key, value, List.of(header)));
                archived.add(TopicRecords.describe(key, value, List.of(header), timestamp));
                archivedTimestamps.add(timestamp);
            }
            producer.flush();
        }
    }

    @AfterAll
    static void stopRegistry() {
        registry.close();
    }

    private static List<String> archivedWithin(long from, long to) {
        List<String> within = new ArrayList<>();
        for (int i = 0; i < archived.size(); i++) {
            if (archivedTimestamps.get(i) >= from && archivedTimestamps.get(i) < to) {
                within.add(archived.get(i));
            }
        }
        return within;
    }

    private static Replayer replayer() {
        return new Replayer(KAFKA.broker().clientConfig());
    }

    @Test
    void replayingAnHourReproducesExactlyTheRecordsOfThatHourByteForByte() {
        KAFKA.broker().createTopic("replayed", PARTITIONS);

        ReplaySummary summary = replayer().replay(Replayer.Options.of(ARCHIVE, "replayed", FROM, TO));

        List<String> expected = archivedWithin(FROM, TO);
        assertThat(expected).hasSize(3 * 3_600);
        assertThat(summary.replayed()).isEqualTo(expected.size());
        assertThat(summary.failed()).isZero();
        assertThat(summary.replayedByPartition()).containsOnlyKeys(0, 1, 2, 3, 4, 5);
        List<ConsumerRecord<byte[], byte[]>> replayed = TopicRecords.readAll(KAFKA.broker(), "replayed");
        assertThat(replayed.stream().map(TopicRecords::describe).sorted().toList()).isEqualTo(expected.stream().sorted().toList());
    }

    @Test
    void onlyTheAskedPartitionsAreReplayed() {
        KAFKA.broker().createTopic("replayed-partial", PARTITIONS);

        ReplaySummary summary = replayer().replay(Replayer.Options.of(ARCHIVE, "replayed-partial", FROM, TO).withPartitions(List.of(1, 4)));

        assertThat(summary.replayedByPartition()).containsOnlyKeys(1, 4);
        assertThat(TopicRecords.readAll(KAFKA.broker(), "replayed-partial")).hasSize((int) summary.replayed());
        assertThat(summary.replayed()).isBetween(1L, 3L * 3_600 - 1);
    }

    @Test
    void historyWrittenAfterNewerDataIsFoundWhenScanningToTheEnd() {
        String mixed = "mixed";
        KAFKA.broker().createTopic(mixed, 1);
        KAFKA.broker().createTopic("replayed-mixed", 1);
        Map<String, Object> config = KAFKA.broker().clientConfig();
        List<String> expected = new ArrayList<>();
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(config, new ByteArraySerializer(), new ByteArraySerializer())) {
            // Live data after the range first, then history of the range imported later.
            for (int i = 0; i < 10; i++) {
                producer.send(new ProducerRecord<>(mixed, 0, TO + 60_000 + i, ("live-" + i).getBytes(), new byte[] {1}));
            }
            for (int i = 0; i < 10; i++) {
                long timestamp = FROM + i * 60_000L;
                producer.send(new ProducerRecord<>(mixed, 0, timestamp, ("history-" + i).getBytes(), new byte[] {2}));
                expected.add(TopicRecords.describe(("history-" + i).getBytes(), new byte[] {2}, List.of(), timestamp));
            }
            producer.flush();
        }

        ReplaySummary stopsEarly = replayer().replay(Replayer.Options.of(mixed, "replayed-mixed", FROM, TO));
        assertThat(stopsEarly.replayed()).isZero();

        ReplaySummary scanned = replayer().replay(Replayer.Options.of(mixed, "replayed-mixed", FROM, TO).scanningToEnd());
        assertThat(scanned.replayed()).isEqualTo(10);
        assertThat(TopicRecords.readAll(KAFKA.broker(), "replayed-mixed").stream().map(TopicRecords::describe).sorted().toList())
                .isEqualTo(expected.stream().sorted().toList());
    }

    @Test
    void replayingTwiceLeavesThePipelinesTablesAsReplayingOnce() throws Exception {
        String applicationId = "replay-twice";
        String input = applicationId + "-readings";
        KAFKA.broker().createTopic(input, PARTITIONS);
        KAFKA.broker().createTopic(applicationId + "-dlq", 1);
        KAFKA.broker().createTopic(Topics.DEVICES, 1);
        Map<String, Object> pipeline = Map.of(
                PipelineConfig.SCHEMA_REGISTRY_URL, registry.url(),
                PipelineConfig.READINGS_TOPIC, input,
                PipelineConfig.DLQ_TOPIC, applicationId + "-dlq");
        Map<String, Object> streamsSettings = Map.of(
                StreamsConfig.APPLICATION_ID_CONFIG, applicationId,
                StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, KAFKA.broker().bootstrapServers(),
                StreamsConfig.STATE_DIR_CONFIG, stateDir.toString(),
                StreamsConfig.NUM_STREAM_THREADS_CONFIG, 1,
                StreamsConfig.REPLICATION_FACTOR_CONFIG, 1);

        try (KafkaStreams streams = TspipeStreams.create(new PipelineConfig(pipeline), streamsSettings)) {
            streams.start();

            ReplaySummary first = replayer().replay(Replayer.Options.of(ARCHIVE, input, FROM, TO));
            awaitConsumed(applicationId, input, first.replayed());
            Map<String, Map<String, String>> once = snapshot(streams);

            ReplaySummary second = replayer().replay(Replayer.Options.of(ARCHIVE, input, FROM, TO));
            awaitConsumed(applicationId, input, first.replayed() + second.replayed());
            Map<String, Map<String, String>> twice = snapshot(streams);

            assertThat(second.replayed()).isEqualTo(first.replayed()).isEqualTo(3 * 3_600);
            assertThat(once.get(StoreNames.RAW)).hasSize(3 * 3_600);
            assertThat(once.get(StoreNames.rollup(RollupStep.HOUR))).hasSize(40 * 5);
            for (String store : once.keySet()) {
                assertThat(twice.get(store)).as("store %s after the second replay", store).isEqualTo(once.get(store));
            }
        }
    }

    /** Waits until the application has committed every record of the input topic ({@code expected} in all). */
    private static void awaitConsumed(String applicationId, String topic, long expected) throws Exception {
        try (Admin admin = Admin.create(KAFKA.broker().clientConfig())) {
            await(Duration.ofSeconds(90), "the pipeline to commit " + expected + " records of " + topic, () -> {
                try {
                    Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets(applicationId)
                            .partitionsToOffsetAndMetadata().get(10, TimeUnit.SECONDS);
                    long total = committed.entrySet().stream().filter(e -> e.getKey().topic().equals(topic) && e.getValue() != null)
                            .mapToLong(e -> e.getValue().offset()).sum();
                    return total >= expected;
                } catch (Exception e) {
                    return false;
                }
            });
        }
    }

    /** Every entry of the raw-rows, rollup and latest stores, hex-encoded, by store name. */
    private static Map<String, Map<String, String>> snapshot(KafkaStreams streams) {
        List<String> stores = new ArrayList<>(List.of(StoreNames.RAW, StoreNames.LATEST));
        for (RollupStep step : RollupStep.values()) {
            stores.add(StoreNames.rollup(step));
        }
        Map<String, Map<String, String>> snapshot = new HashMap<>();
        HexFormat hex = HexFormat.of();
        for (String name : stores) {
            Map<String, String> entries = new TreeMap<>();
            await(Duration.ofSeconds(30), "store " + name + " to be queryable", () -> {
                try {
                    ReadOnlyKeyValueStore<Bytes, byte[]> store = streams.store(
                            StoreQueryParameters.fromNameAndType(name, QueryableStoreTypes.keyValueStore()));
                    entries.clear();
                    try (KeyValueIterator<Bytes, byte[]> all = store.all()) {
                        all.forEachRemaining(kv -> entries.put(hex.formatHex(kv.key.get()), hex.formatHex(kv.value)));
                    }
                    return true;
                } catch (InvalidStateStoreException notYet) {
                    return false;
                }
            });
            snapshot.put(name, entries);
        }
        return snapshot;
    }

    private static void await(Duration timeout, String what, Supplier<Boolean> condition) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.get()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out after " + timeout + " waiting for " + what);
            }
            try {
                Thread.sleep(200);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError(e);
            }
        }
    }
}
