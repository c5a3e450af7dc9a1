package dev.tspipe.query;

import dev.tspipe.query.server.QueryServer;
import dev.tspipe.embedded.FreePorts;
import dev.tspipe.processor.topology.PipelineConfig;
import dev.tspipe.processor.topology.TspipeStreams;
import org.apache.kafka.streams.CloseOptions;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.state.HostInfo;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.function.UnaryOperator;

/**
 * One tspipe instance for the integration tests, as {@code tspipe node} wires it: the real topology in
 * Kafka Streams (tspipe's defaults: exactly-once, one standby replica) on the embedded broker, and its
 * query server on a free port, advertised as {@code application.server}.
 */
record TestNode(KafkaStreams streams, QueryServer server) implements AutoCloseable {

    static TestNode start(String bootstrapServers, PipelineConfig config, String applicationId, Path stateDir) throws IOException {
        return start(bootstrapServers, config, applicationId, stateDir, UnaryOperator.identity());
    }

    /** With {@code options} on the query server's builder (tokens, TLS). */
    static TestNode start(String bootstrapServers, PipelineConfig config, String applicationId, Path stateDir,
                          UnaryOperator<QueryServer.Builder> options) throws IOException {
        int port = FreePorts.next();
        Map<String, Object> props = new HashMap<>();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, applicationId);
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        props.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString());
        props.put(StreamsConfig.NUM_STREAM_THREADS_CONFIG, 1);
        props.put(StreamsConfig.REPLICATION_FACTOR_CONFIG, 1);
        props.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, 100);
        props.put(StreamsConfig.APPLICATION_SERVER_CONFIG, "127.0.0.1:" + port);
        KafkaStreams streams = TspipeStreams.create(config, props);
        streams.start();
        QueryServer server = options.apply(QueryServer.builder().streams(streams).pipelineConfig(config)
                .bindHost("127.0.0.1").port(port).advertised(new HostInfo("127.0.0.1", port))).start();
        return new TestNode(streams, server);
    }

    /** Stops HTTP, then Kafka Streams, leaving the group so that the partitions move at once. */
    @Override
    public void close() {
        server.close();
        streams.close(CloseOptions.groupMembershipOperation(CloseOptions.GroupMembershipOperation.LEAVE_GROUP)
                .withTimeout(Duration.ofSeconds(30)));
    }
}
