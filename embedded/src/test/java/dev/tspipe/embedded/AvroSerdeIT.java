package dev.tspipe.embedded;

import dev.tspipe.embedded.junit.EmbeddedKafkaExtension;
import dev.tspipe.schemas.Reading;
import dev.tspipe.schemas.serde.AvroDeserializer;
import dev.tspipe.schemas.serde.AvroSerdeConfig;
import dev.tspipe.schemas.serde.AvroSerializer;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.generic.GenericRecordBuilder;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The serde through a real broker and the embedded registry over HTTP, as a user's producer and consumer use it. */
class AvroSerdeIT {

    @RegisterExtension
    static final EmbeddedKafkaExtension KAFKA = new EmbeddedKafkaExtension();

    private static EmbeddedSchemaRegistry registry;

    @BeforeAll
    static void startRegistry() {
        registry = EmbeddedSchemaRegistry.builder().bootstrapServers(KAFKA.broker().bootstrapServers()).port(0).start();
    }

    @AfterAll
    static void stopRegistry() {
        registry.close();
    }

    private static Map<String, Object> producerConfig() {
        Map<String, Object> config = KAFKA.broker().clientConfig();
        config.put(AvroSerdeConfig.SCHEMA_REGISTRY_URL, registry.url());
        config.put(ProducerConfig.ACKS_CONFIG, "all");
        return config;
    }

    private static <V> void produce(String topic, String key, V value) throws Exception {
        AvroSerializer<V> serializer = new AvroSerializer<>();
        serializer.configure(producerConfig(), false);
        try (KafkaProducer<String, V> producer = new KafkaProducer<>(producerConfig(), new StringSerializer(), serializer)) {
            producer.send(new ProducerRecord<>(topic, key, value)).get(30, TimeUnit.SECONDS);
        }
    }

    private static <V> List<V> consume(String topic, int expected, boolean specific) {
        Map<String, Object> config = KAFKA.broker().clientConfig();
        config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        config.put(AvroSerdeConfig.SCHEMA_REGISTRY_URL, registry.url());
        config.put(AvroSerdeConfig.SPECIFIC_AVRO_READER, specific);
        AvroDeserializer<V> deserializer = new AvroDeserializer<>();
        deserializer.configure(config, false);
        List<V> values = new ArrayList<>();
        try (KafkaConsumer<String, V> consumer = new KafkaConsumer<>(config, new StringDeserializer(), deserializer)) {
            List<TopicPartition> partitions = consumer.partitionsFor(topic, Duration.ofSeconds(30)).stream()
                    .map(p -> new TopicPartition(topic, p.partition())).toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (values.size() < expected && System.nanoTime() < deadline) {
                for (ConsumerRecord<String, V> record : consumer.poll(Duration.ofMillis(200))) {
                    values.add(record.value());
                }
            }
        }
        return values;
    }

    @Test
    void readingsProducedWithTheSerializerAreConsumedWithTheDeserializer() throws Exception {
        KAFKA.broker().createTopic("readings-it", 3);
        Reading reading = Reading.newBuilder().setDeviceId("dev-1").setMetric("temp")
                .setTimestamp(Instant.ofEpochMilli(1_700_000_000_000L)).setValue(21.5)
                .setTags(Map.of("unit", "C")).build();

        produce("readings-it", "dev-1", reading);

        List<Reading> read = consume("readings-it", 1, true);
        assertThat(read).containsExactly(reading);
    }

    @Test
    void aBackwardCompatibleEvolutionIsAcceptedAndOldDataStillReads() throws Exception {
        Schema v1 = new Schema.Parser().parse("""
                {"type":"record","name":"Gauge","namespace":"it","fields":[{"name":"v","type":"double"}]}""");
        Schema v2 = new Schema.Parser().parse("""
                {"type":"record","name":"Gauge","namespace":"it","fields":[{"name":"v","type":"double"},
                  {"name":"unit","type":"string","default":"none"}]}""");
        KAFKA.broker().createTopic("gauges", 1);

        produce("gauges", "k", new GenericRecordBuilder(v1).set("v", 1.0).build());
        produce("gauges", "k", new GenericRecordBuilder(v2).set("v", 2.0).set("unit", "bar").build());

        List<GenericRecord> read = consume("gauges", 2, false);
        assertThat(read).extracting(r -> r.get("v")).containsExactly(1.0, 2.0);
        assertThat(read.get(0).getSchema()).isEqualTo(v1);
        assertThat(read.get(1).get("unit").toString()).isEqualTo("bar");
    }

    @Test
    void anIncompatibleChangeIsRejectedWithTheRegistrys409() throws Exception {
        Schema v1 = new Schema.Parser().parse("""
                {"type":"record","name":"Counter","namespace":"it","fields":[{"name":"n","type":"long"}]}""");
        Schema incompatible = new Schema.Parser().parse("""
                {"type":"record","name":"Counter","namespace":"it","fields":[{"name":"n","type":"long"},
                  {"name":"required","type":"string"}]}""");
        KAFKA.broker().createTopic("counters", 1);
        produce("counters", "k", new GenericRecordBuilder(v1).set("n", 1L).build());

        assertThatThrownBy(() -> produce("counters", "k", new GenericRecordBuilder(incompatible)
                .set("n", 2L).set("required", "x").build()))
                .hasRootCauseInstanceOf(dev.tspipe.schemas.registry.RegistryException.class)
                .isInstanceOfAny(SerializationException.class, ExecutionException.class)
                .hasMessageContaining("incompatible");
    }
}
