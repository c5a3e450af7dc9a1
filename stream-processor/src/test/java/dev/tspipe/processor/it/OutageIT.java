package dev.tspipe.processor.it;

import dev.tspipe.embedded.EmbeddedKafka;
import dev.tspipe.embedded.EmbeddedSchemaRegistry;
import dev.tspipe.embedded.FreePorts;
import dev.tspipe.schemas.Reading;
import dev.tspipe.schemas.serde.AvroSerdeConfig;
import dev.tspipe.schemas.serde.AvroSerializer;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.streams.KafkaStreams;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A node under a 60-second outage of the schema registry, then a restart of the broker (with the
 * registry) under it: processing pauses and resumes by itself, and the tables end exactly as an
 * independent computation of the input says (nothing lost, nothing counted twice, every bad record
 * in the dead-letter topic once). The pause is real: the readings sent during the outage carry a
 * schema id that the node has not seen, so it cannot decode them until the registry is back.
 *
 * <p>The times from each return to matching tables are printed (figures for docs/reliability.md); the
 * test asserts the outcome, not the time (generous limits only guard against a hang).
 */
class OutageIT {

    private static final Duration REGISTRY_OUTAGE = Duration.ofSeconds(60);
    private static final Duration BROKER_OUTAGE = Duration.ofSeconds(5);
    private static final Duration HANG_GUARD = Duration.ofMinutes(3);
    /** The reading schema with one more field (a BACKWARD-compatible change): a schema id the node has not seen. */
    private static final Schema READING_V2 = withExtraField(Reading.getClassSchema());

    @TempDir
    Path dir;

    private final List<AutoCloseable> open = new ArrayList<>();
    /** The bytes each input was sent as (the dead letters must hold exactly those). */
    private final Map<GeneratedData.Input, byte[]> sent = new java.util.IdentityHashMap<>();
    private EmbeddedKafka kafka;
    private EmbeddedSchemaRegistry registry;
    private int brokerPort;
    private int controllerPort;
    private int registryPort;

    @AfterEach
    void closeAll() throws Exception {
        for (int i = open.size() - 1; i >= 0; i--) {
            open.get(i).close();
        }
        if (registry != null) {
            registry.close();
        }
        if (kafka != null) {
            kafka.close();
        }
    }

    @Test
    void aRegistryOutageAndABrokerRestartPauseProcessingAndLoseNothing() throws Exception {
        brokerPort = FreePorts.next();
        controllerPort = FreePorts.next();
        registryPort = FreePorts.next();
        startBroker();
        startRegistry();
        GeneratedData data = GeneratedData.generate(seed(), 15_000, 50, 3);
        int third = data.inputs.size() / 3;
        PipelineHarness harness = new PipelineHarness(kafka, registry.url(), "outage-it");
        KafkaStreams streams = harness.start(dir.resolve("state"));
        open.add(streams);
        AvroSerializer<Object> avro = new AvroSerializer<>();
        avro.configure(Map.of(AvroSerdeConfig.SCHEMA_REGISTRY_URL, registry.url()), false);
        open.add(avro);

        // 1. Before any fault: the first third, with the schema the node will know.
        produce(harness, data.inputs.subList(0, third), avro, false);
        ExpectedTables.awaitTables(harness, streams, data.prefix(third), HANG_GUARD, sent::get);

        // 2. The registry goes away; the second third is written with a schema id registered just before.
        avro.serialize(harness.readingsTopic(), asV2(firstReading(data)));
        registry.close();
        registry = null;
        produce(harness, data.inputs.subList(third, 2 * third), avro, true);
        Thread.sleep(REGISTRY_OUTAGE.toMillis());
        assertThat(streams.state()).as("Kafka Streams state during the registry outage")
                .isIn(KafkaStreams.State.RUNNING, KafkaStreams.State.REBALANCING);
        startRegistry();
        long afterRegistry = ExpectedTables.awaitTables(harness, streams, data.prefix(2 * third), HANG_GUARD, sent::get);

        // 3. The broker and the registry go away together and come back on the same data; the last third is sent
        //    meanwhile by a producer that waits for the broker.
        registry.close();
        registry = null;
        kafka.close();
        kafka = null;
        ScheduledExecutorService restarter = Executors.newSingleThreadScheduledExecutor();
        ConcurrentLinkedQueue<Throwable> restartFailures = new ConcurrentLinkedQueue<>();
        restarter.schedule(() -> {
            try {
                startBroker();
                startRegistry();
            } catch (Throwable e) {
                restartFailures.add(e);
            }
        }, BROKER_OUTAGE.toMillis(), TimeUnit.MILLISECONDS);
        produce(harness, data.inputs.subList(2 * third, data.inputs.size()), avro, false);
        restarter.shutdown();
        assertThat(restarter.awaitTermination(2, TimeUnit.MINUTES)).isTrue();
        assertThat(restartFailures).isEmpty();
        long afterBroker = ExpectedTables.awaitTables(harness, streams, data, HANG_GUARD, sent::get);

        assertThat(streams.state()).isIn(KafkaStreams.State.RUNNING, KafkaStreams.State.REBALANCING);
        System.out.printf("outage-it: %d inputs; tables exact %d ms after the registry's return (outage %d s), "
                        + "%d ms after the broker's restart (outage %d s)%n", data.inputs.size(), afterRegistry,
                REGISTRY_OUTAGE.toSeconds(), afterBroker, BROKER_OUTAGE.toSeconds());
    }

    private static Reading firstReading(GeneratedData data) {
        return data.inputs.stream().filter(i -> i.reading() != null).findFirst().orElseThrow().reading();
    }

    private void startBroker() {
        kafka = EmbeddedKafka.builder().port(brokerPort).controllerPort(controllerPort).logDir(dir.resolve("kafka")).start();
    }

    private void startRegistry() {
        registry = EmbeddedSchemaRegistry.builder().bootstrapServers(EmbeddedKafka.HOST + ":" + brokerPort)
                .port(registryPort).start();
    }

    /** Sends and waits for every acknowledgement; the producer waits up to two minutes for a broker that is away. */
    private void produce(PipelineHarness harness, List<GeneratedData.Input> inputs, AvroSerializer<Object> avro,
                         boolean secondSchema) {
        Map<String, Object> config = Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, EmbeddedKafka.HOST + ":" + brokerPort,
                ProducerConfig.ACKS_CONFIG, "all",
                ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true,
                ProducerConfig.LINGER_MS_CONFIG, 5,
                ProducerConfig.MAX_BLOCK_MS_CONFIG, 120_000,
                ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 120_000);
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(config, new ByteArraySerializer(), new ByteArraySerializer())) {
            List<java.util.concurrent.Future<?>> sent = new ArrayList<>();
            for (GeneratedData.Input input : inputs) {
                byte[] value = input.badValue() != null ? input.badValue()
                        : avro.serialize(harness.readingsTopic(), secondSchema ? asV2(input.reading()) : input.reading());
                this.sent.put(input, value);
                sent.add(producer.send(new ProducerRecord<>(harness.readingsTopic(),
                        input.key() == null ? null : input.key().getBytes(StandardCharsets.UTF_8), value)));
            }
            for (java.util.concurrent.Future<?> ack : sent) {
                ack.get(3, TimeUnit.MINUTES);
            }
        } catch (Exception e) {
            throw new AssertionError("a reading was not acknowledged", e);
        }
    }

    private static GenericRecord asV2(Reading reading) {
        GenericRecord record = new GenericData.Record(READING_V2);
        for (Schema.Field field : Reading.getClassSchema().getFields()) {
            Object value = reading.get(field.name());
            // The generated class holds timestamp-millis as an Instant; the generic record holds the long.
            record.put(field.name(), value instanceof java.time.Instant instant ? instant.toEpochMilli() : value);
        }
        record.put("quality", "good");
        return record;
    }

    private static Schema withExtraField(Schema reading) {
        List<Schema.Field> fields = new ArrayList<>();
        for (Schema.Field field : reading.getFields()) {
            fields.add(new Schema.Field(field, field.schema()));
        }
        fields.add(new Schema.Field("quality", Schema.create(Schema.Type.STRING), "how the device rates the reading", ""));
        return Schema.createRecord(reading.getName(), reading.getDoc(), reading.getNamespace(), false, fields);
    }


    private static long seed() {
        return Long.getLong("tspipe.seed", 20261201L);
    }
}
