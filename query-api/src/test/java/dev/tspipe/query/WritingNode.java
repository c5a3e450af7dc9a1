package dev.tspipe.query;

import dev.tspipe.query.server.QueryServer;
import dev.tspipe.embedded.EmbeddedKafka;
import dev.tspipe.embedded.EmbeddedSchemaRegistry;
import dev.tspipe.ingest.ReadingProducer;
import dev.tspipe.processor.topology.PipelineConfig;
import dev.tspipe.processor.topology.Topics;
import dev.tspipe.schemas.serde.AvroSerdeConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.streams.KafkaStreams;

import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

import static org.awaitility.Awaitility.await;

/**
 * One node that takes HTTP writes (line protocol, remote-write), as {@code tspipe node} wires it, on the embedded
 * broker: a registry, the readings topic ({@code <app>-readings}, 3 partitions) and its DLQ, the producer of the
 * writes and the node, running. Closed in the reverse order.
 */
record WritingNode(EmbeddedSchemaRegistry registry, ReadingProducer producer, TestNode node) implements AutoCloseable {

    static WritingNode start(EmbeddedKafka broker, String app, Path stateDir) throws Exception {
        EmbeddedSchemaRegistry registry = EmbeddedSchemaRegistry.builder().bootstrapServers(broker.bootstrapServers()).start();
        String topic = app + "-readings";
        broker.createTopic(topic, 3);
        broker.createTopic(app + "-dlq", 1);
        broker.createTopic(Topics.DEVICES, 1);
        PipelineConfig config = new PipelineConfig(Map.of(PipelineConfig.SCHEMA_REGISTRY_URL, registry.url(),
                PipelineConfig.READINGS_TOPIC, topic, PipelineConfig.DLQ_TOPIC, app + "-dlq"));
        Map<String, Object> settings = new HashMap<>(broker.clientConfig());
        settings.put(AvroSerdeConfig.SCHEMA_REGISTRY_URL, registry.url());
        settings.put(ProducerConfig.LINGER_MS_CONFIG, 5);
        ReadingProducer producer = ReadingProducer.create(topic, settings);
        TestNode node = TestNode.start(broker.bootstrapServers(), config, app, stateDir, builder -> builder.writes(producer));
        await().atMost(Duration.ofMinutes(2)).until(() -> node.streams().state() == KafkaStreams.State.RUNNING);
        return new WritingNode(registry, producer, node);
    }

    /** The node's query server. */
    QueryServer server() {
        return node.server();
    }

    @Override
    public void close() {
        node.close();
        producer.close();
        registry.close();
    }
}
