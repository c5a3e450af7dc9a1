package dev.tspipe.processor.topology;

import dev.tspipe.processor.store.StoreNames;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.TopologyDescription;
import org.junit.jupiter.api.Test;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
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
    void onlyTheDecodeStepsOwnStoresAndBothOwnTheWholeSeriesStore() {
        // (Until 2026-12-01 one "ingest" node owned them, behind a merge of both decode steps; the decode steps now store
        // what they accept themselves, which saves two forwards per reading.)
        Map<String, Set<String>> storesByNode = describe().subtopologies().iterator().next().nodes().stream()
                .filter(node -> node instanceof TopologyDescription.Processor processor && !processor.stores().isEmpty())
                .collect(Collectors.toMap(TopologyDescription.Node::name, node -> ((TopologyDescription.Processor) node).stores()));

        assertThat(storesByNode).containsOnlyKeys("decode", "decode-by-device");
        assertThat(storesByNode.values()).allSatisfy(stores -> assertThat(stores).containsExactlyInAnyOrder(StoreNames.RAW,
                StoreNames.LATEST, "rollups-1m", "rollups-1h", "rollups-1d"));
    }

    @Test
    void everyRejectPathEndsInTheDeadLetterTopic() {
        PipelineConfig config = new PipelineConfig(Map.of(PipelineConfig.SCHEMA_REGISTRY_URL, "mock://shape",
                PipelineConfig.DLQ_TOPIC, "shape-dlq"));
        Map<String, TopologyDescription.Node> nodes = TspipeTopology.build(config).describe().subtopologies().stream()
                .flatMap(subtopology -> subtopology.nodes().stream())
                .collect(Collectors.toMap(TopologyDescription.Node::name, node -> node));

        // The places a record is rejected: decoding a record as read, decoding it after the repartition
        // topic, and the ingest step of either (expired, future). Each must reach the dead-letter topic
        // and nothing else: no store, no other topic.
        for (String rejects : List.of("route-rejected", "route-by-device-rejected", "route-ingest-rejected",
                "route-by-device-ingest-rejected")) {
            assertThat(nodes).as("reject node %s", rejects).containsKey(rejects);
            Set<TopologyDescription.Node> reached = reachableFrom(nodes.get(rejects));
            assertThat(sinkTopics(reached)).as("topics written downstream of %s", rejects).containsExactly("shape-dlq");
            assertThat(reached).as("nodes downstream of %s", rejects)
                    .noneMatch(node -> node instanceof TopologyDescription.Processor p && !p.stores().isEmpty());
        }
        assertThat(sinkTopics(Set.copyOf(nodes.values()))).containsExactlyInAnyOrder("shape-dlq",
                Topics.BY_DEVICE_REPARTITION + "-repartition");
    }

    /** Every node downstream of {@code start} (not {@code start} itself). */
    private static Set<TopologyDescription.Node> reachableFrom(TopologyDescription.Node start) {
        Set<TopologyDescription.Node> reached = new HashSet<>();
        Deque<TopologyDescription.Node> toVisit = new ArrayDeque<>(start.successors());
        while (!toVisit.isEmpty()) {
            TopologyDescription.Node node = toVisit.pop();
            if (reached.add(node)) {
                toVisit.addAll(node.successors());
            }
        }
        return reached;
    }

    private static Set<String> sinkTopics(Set<TopologyDescription.Node> nodes) {
        return nodes.stream()
                .filter(node -> node instanceof TopologyDescription.Sink)
                .map(node -> ((TopologyDescription.Sink) node).topic())
                .collect(Collectors.toSet());
    }
}
