package dev.tspipe.processor.topology;

import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.TopologyDescription;
import org.junit.jupiter.api.Test;

import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/** The shape of the topology: what is connected to what, as docs/architecture.md shows it. */
class TopologyShapeTest {

    private static TopologyDescription describe() {
        PipelineConfig config = new PipelineConfig(Map.of(PipelineConfig.SCHEMA_REGISTRY_URL, "mock://shape"));
        Topology topology = TspipeTopology.build(config);
        return topology.describe();
    }

    @Test
    void oneSubTopologyReadsBothTheInputAndTheRepartitionTopicSoThatAllStoresAreInOneTask() {
        TopologyDescription description = describe();

        assertThat(description.subtopologies()).hasSize(1);
        Set<String> sourceTopics = description.subtopologies().iterator().next().nodes().stream()
                .filter(node -> node instanceof TopologyDescription.Source)
                .flatMap(node -> ((TopologyDescription.Source) node).topicSet().stream())
                .collect(Collectors.toSet());
        assertThat(sourceTopics).containsExactlyInAnyOrder(Topics.READINGS, Topics.BY_DEVICE_REPARTITION + "-repartition");
    }

    @Test
    void onlyTheIngestProcessorOwnsStores() {
        Map<String, Set<String>> storesByNode = describe().subtopologies().iterator().next().nodes().stream()
                .filter(node -> node instanceof TopologyDescription.Processor processor && !processor.stores().isEmpty())
                .collect(Collectors.toMap(TopologyDescription.Node::name, node -> ((TopologyDescription.Processor) node).stores()));

        assertThat(storesByNode).containsOnlyKeys("ingest");
        assertThat(storesByNode.get("ingest")).containsExactlyInAnyOrder(StoreNames.RAW, StoreNames.LATEST,
                "rollups-1m", "rollups-1h", "rollups-1d");
    }

    @Test
    void everyRejectPathEndsInTheDeadLetterTopic() {
        Set<String> sinkTopics = describe().subtopologies().iterator().next().nodes().stream()
                .filter(node -> node instanceof TopologyDescription.Sink)
                .map(node -> ((TopologyDescription.Sink) node).topic())
                .collect(Collectors.toSet());

        assertThat(sinkTopics).containsExactlyInAnyOrder(Topics.READINGS_DLQ, Topics.BY_DEVICE_REPARTITION + "-repartition");
    }
}
