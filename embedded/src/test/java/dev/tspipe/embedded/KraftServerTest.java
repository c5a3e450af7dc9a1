package dev.tspipe.embedded;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link KraftServer} on a single combined node: formatting, and the one piece of Kafka's internals it
 * relies on (the broker inside {@code KafkaRaftServer}, stopped with a bounded wait), so that a Kafka
 * upgrade that moves it fails here.
 */
class KraftServerTest {

    @TempDir
    Path dir;

    @Test
    void aCombinedNodeFormatsItsFolderStartsAndStopsThroughItsBroker() throws IOException {
        int port = FreePorts.next();
        int controllerPort = FreePorts.next();
        Map<String, String> props = new HashMap<>();
        props.put("node.id", "7");
        props.put("process.roles", "broker,controller");
        props.put("controller.quorum.voters", "7@127.0.0.1:" + controllerPort);
        props.put("listeners", "PLAINTEXT://127.0.0.1:" + port + ",CONTROLLER://127.0.0.1:" + controllerPort);
        props.put("controller.listener.names", "CONTROLLER");
        props.put("log.dirs", dir.resolve("kafka").toString());
        props.put("offsets.topic.replication.factor", "1");
        props.put("transaction.state.log.replication.factor", "1");
        props.put("transaction.state.log.min.isr", "1");

        try (KraftServer server = KraftServer.start(props, Optional.of("dHNwaXBlLWtyYWZ0LXRlc3Q"))) {
            assertThat(server.nodeId()).isEqualTo(7);
            assertThat(server.broker()).as("the broker that close() stops with a bounded wait").isPresent();
            assertThat(Files.readString(dir.resolve("kafka/meta.properties"))).contains("cluster.id=dHNwaXBlLWtyYWZ0LXRlc3Q");
            server.close();
            assertThat(server.closeRequested()).isTrue();
        }
    }

    @Test
    void aNewFolderWithoutAClusterIdIsRefusedWithAnExampleId() {
        Map<String, String> props = Map.of("node.id", "1", "process.roles", "broker,controller",
                "controller.quorum.voters", "1@127.0.0.1:19093", "listeners", "PLAINTEXT://127.0.0.1:19092,CONTROLLER://127.0.0.1:19093",
                "controller.listener.names", "CONTROLLER", "log.dirs", dir.resolve("new").toString());
        assertThatThrownBy(() -> KraftServer.start(props, Optional.empty()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("not formatted yet and no cluster id was given");
    }
}
