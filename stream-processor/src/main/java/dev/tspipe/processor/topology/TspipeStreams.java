package dev.tspipe.processor.topology;

import dev.tspipe.processor.store.RocksDbMemory;
import org.apache.kafka.streams.KafkaStreams;

import java.util.Map;
import java.util.Properties;

/**
 * Wires a Kafka Streams instance of the ingestion topology: the process-wide RocksDB memory
 * budget, the topology, tspipe's Kafka Streams defaults and the user's settings on top.
 */
public final class TspipeStreams {

    private TspipeStreams() {
    }

    /**
     * @param config          tspipe's settings
     * @param streamsSettings Kafka Streams settings ({@code application.id}, {@code bootstrap.servers}, ...),
     *                        applied over {@link StreamsSettings#defaults}
     */
    public static KafkaStreams create(PipelineConfig config, Map<String, ?> streamsSettings) {
        RocksDbMemory.configure(config.rocksDbMemoryBytes());
        Properties props = new Properties();
        props.putAll(StreamsSettings.merged(config, streamsSettings));
        return new KafkaStreams(TspipeTopology.build(config), props);
    }
}
