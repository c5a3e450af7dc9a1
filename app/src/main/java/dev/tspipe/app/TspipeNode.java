package dev.tspipe.app;

import dev.tspipe.ingest.ReadingProducer;
import dev.tspipe.ingest.influx.InfluxMapping;
import dev.tspipe.ingest.prometheus.RemoteWrite;
import dev.tspipe.processor.topology.PipelineConfig;
import dev.tspipe.processor.topology.TspipeStreams;
import dev.tspipe.query.server.QueryServer;
import dev.tspipe.query.tls.HttpTls;
import dev.tspipe.schemas.serde.AvroSerdeConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.streams.CloseOptions;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.state.HostInfo;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;

/**
 * One tspipe instance: the ingestion topology in Kafka Streams and the HTTP query server in
 * the same process, with {@code application.server} set so that every instance can route a query
 * to the owner of its data. Used by {@code tspipe node} and by {@code tspipe demo}.
 */
final class TspipeNode implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(TspipeNode.class);
    private static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(30);

    /** What an instance needs to know; {@code extra} holds Kafka Streams and {@code tspipe.*} settings from the config file. */
    record Settings(String bootstrapServers, String schemaRegistryUrl, String applicationId, String httpHost, int httpPort,
                    String advertisedHost, String stateDir, String readingsTopic, String dlqTopic,
                    String devicesTopic, String processingGuarantee, int threads, int standbyReplicas, Properties extra,
                    Optional<Path> authTokens, Optional<HttpTls> tls, Map<String, Object> clientSettings,
                    InfluxMapping influx, RemoteWrite remoteWrite) {
    }

    private final KafkaStreams streams;
    private final QueryServer server;
    private final ReadingProducer writes;

    private TspipeNode(KafkaStreams streams, QueryServer server, ReadingProducer writes) {
        this.streams = streams;
        this.server = server;
        this.writes = writes;
    }

    static TspipeNode start(Settings settings) {
        Map<String, Object> pipeline = new HashMap<>();
        Map<String, Object> streamsSettings = new HashMap<>();
        settings.extra().forEach((key, value) -> {
            if (key.toString().startsWith("tspipe.")) {
                pipeline.put(key.toString(), value);
            } else if (AvroSerdeConfig.isSetting(key.toString())) {
                // The registry client's settings (Confluent's keys: basic.auth.*, schema.registry.ssl.*).
                pipeline.put(key.toString(), value);
            } else {
                streamsSettings.put(key.toString(), value);
            }
        });
        pipeline.put(PipelineConfig.SCHEMA_REGISTRY_URL, settings.schemaRegistryUrl());
        pipeline.put(PipelineConfig.READINGS_TOPIC, settings.readingsTopic());
        pipeline.put(PipelineConfig.DLQ_TOPIC, settings.dlqTopic());
        pipeline.put(PipelineConfig.DEVICES_TOPIC, settings.devicesTopic());
        PipelineConfig config = new PipelineConfig(pipeline);

        streamsSettings.put(StreamsConfig.APPLICATION_ID_CONFIG, settings.applicationId());
        streamsSettings.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, settings.bootstrapServers());
        streamsSettings.put(StreamsConfig.STATE_DIR_CONFIG, settings.stateDir());
        streamsSettings.put(StreamsConfig.APPLICATION_SERVER_CONFIG, settings.advertisedHost() + ":" + settings.httpPort());
        streamsSettings.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, settings.processingGuarantee());
        streamsSettings.put(StreamsConfig.NUM_STREAM_THREADS_CONFIG, settings.threads());
        streamsSettings.put(StreamsConfig.NUM_STANDBY_REPLICAS_CONFIG, settings.standbyReplicas());

        KafkaStreams streams;
        try {
            streams = TspipeStreams.create(config, streamsSettings);
        } catch (IllegalStateException e) {
            // The readings topic is missing or Kafka cannot be reached: the message says what to fix.
            throw new UserError(e.getMessage());
        }
        // The producer of HTTP writes (line protocol): the Kafka client settings of --kafka-config, the serde's keys.
        Map<String, Object> producerSettings = new HashMap<>(settings.clientSettings());
        producerSettings.putAll(AvroSerdeConfig.settingsIn(pipeline));
        producerSettings.put("bootstrap.servers", settings.bootstrapServers());
        producerSettings.put(AvroSerdeConfig.SCHEMA_REGISTRY_URL, settings.schemaRegistryUrl());
        // A full buffer or an unknown topic fails a write in seconds (429/503 to the client) instead of holding an HTTP
        // thread for Kafka's default minute.
        producerSettings.putIfAbsent(ProducerConfig.MAX_BLOCK_MS_CONFIG, 5_000);
        ReadingProducer writes = ReadingProducer.create(settings.readingsTopic(), producerSettings);
        QueryServer server;
        try {
            server = QueryServer.builder()
                    .streams(streams)
                    .pipelineConfig(config)
                    .bindHost(settings.httpHost())
                    .port(settings.httpPort())
                    .advertised(new HostInfo(settings.advertisedHost(), settings.httpPort()))
                    .authTokens(settings.authTokens().orElse(null))
                    .tls(settings.tls().orElse(null))
                    .writes(writes)
                    .writeMappings(settings.influx(), settings.remoteWrite())
                    .start();
        } catch (IllegalArgumentException e) {
            // A tokens file, certificate or key that cannot be used: the message names the file and what is wrong.
            writes.close();
            streams.close(CLOSE_TIMEOUT);
            throw new UserError(e.getMessage());
        } catch (RuntimeException e) {
            writes.close();
            streams.close(CLOSE_TIMEOUT);
            throw new UserError("could not start the HTTP server on " + settings.httpHost() + ":" + settings.httpPort()
                    + " (" + e.getMessage() + "); choose another port with --http-port");
        }
        streams.start();
        log.info("Node {} started: HTTP on {}, Kafka {}, state in {}", settings.applicationId(), server.url(),
                settings.bootstrapServers(), settings.stateDir());
        return new TspipeNode(streams, server, writes);
    }

    String url() {
        return server.url();
    }

    KafkaStreams streams() {
        return streams;
    }

    /**
     * Stops HTTP, then Kafka Streams, leaving the consumer group: the partitions move to the other
     * instances at once (and a restarted instance is not kept waiting for the session timeout of
     * its previous self).
     */
    @Override
    public void close() {
        server.close();
        writes.close();
        streams.close(CloseOptions.groupMembershipOperation(CloseOptions.GroupMembershipOperation.LEAVE_GROUP)
                .withTimeout(CLOSE_TIMEOUT));
    }
}
