package dev.tspipe.query;

import dev.tspipe.schemas.Reading;
import dev.tspipe.schemas.serde.AvroSerdeConfig;
import dev.tspipe.schemas.serde.AvroSerializer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;

import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;

/** Writes the readings the integration tests expect back: series as {@code "device/metric"}, each timestamp to value. */
final class SeriesProducer {

    private SeriesProducer() {
    }

    /**
     * Sends every reading of {@code series} to {@code topic}, keyed by its device, with {@code acks=all} and
     * {@code producerSettings} on top, and waits until all are acknowledged.
     */
    static void produce(Map<String, Object> producerSettings, String registryUrl, String topic,
                        Map<String, TreeMap<Long, Double>> series) {
        produce(producerSettings, registryUrl, topic, null, series);
    }

    /** The same, for the devices of {@code tenant} (null for none): keyed {@code tenant/device}, as tspipe's producers key them. */
    static void produce(Map<String, Object> producerSettings, String registryUrl, String topic, String tenant,
                        Map<String, TreeMap<Long, Double>> series) {
        Map<String, Object> config = new HashMap<>(producerSettings);
        config.putIfAbsent(ProducerConfig.ACKS_CONFIG, "all");
        AvroSerializer<Object> avro = new AvroSerializer<>();
        avro.configure(Map.of(AvroSerdeConfig.SCHEMA_REGISTRY_URL, registryUrl), false);
        try (KafkaProducer<String, byte[]> producer = new KafkaProducer<>(config, new StringSerializer(), new ByteArraySerializer())) {
            series.forEach((name, readings) -> {
                String device = name.substring(0, name.indexOf('/'));
                String metric = name.substring(name.indexOf('/') + 1);
                String key = tenant == null ? device : tenant + "/" + device;
                readings.forEach((timestamp, value) -> producer.send(new ProducerRecord<>(topic, key,
                        avro.serialize(topic, Reading.newBuilder().setTenant(tenant).setDeviceId(device).setMetric(metric)
                                .setTimestamp(Instant.ofEpochMilli(timestamp)).setValue(value).build()))));
            });
            producer.flush();
        }
    }
}
