package dev.tspipe.app;

import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The server settings {@code tspipe broker} hands to Kafka, from its options, a file and overrides. */
class BrokerCommandTest {

    private static final String THREE_VOTERS = "1@kafka-1:9093,2@kafka-2:9093,3@kafka-3:9093";

    private static Map<String, String> settings(Properties file, String... args) {
        var parsed = TspipeCommand.newCommandLine().parseArgs(prepend("broker", args));
        BrokerCommand broker = (BrokerCommand) parsed.subcommand().commandSpec().userObject();
        return broker.serverProperties(file);
    }

    private static Map<String, String> settings(String... args) {
        return settings(new Properties(), args);
    }

    @Test
    void aSingleNodeIsBrokerAndControllerWithOneReplicaOfEverything() {
        Map<String, String> props = settings("--data-dir", "/tmp/k");
        assertThat(props).containsEntry("node.id", "1")
                .containsEntry("process.roles", "broker,controller")
                .containsEntry("controller.quorum.voters", "1@localhost:9093")
                .containsEntry("listeners", "PLAINTEXT://:9092,CONTROLLER://:9093")
                .containsEntry("controller.listener.names", "CONTROLLER")
                .containsEntry("log.dirs", Path.of("/tmp/k").toAbsolutePath().toString())
                .containsEntry("default.replication.factor", "1")
                .containsEntry("offsets.topic.replication.factor", "1")
                .containsEntry("transaction.state.log.replication.factor", "1")
                .containsEntry("min.insync.replicas", "1")
                .containsEntry("transaction.state.log.min.isr", "1")
                .doesNotContainKey("advertised.listeners");
    }

    @Test
    void theDefaultVoterFollowsTheControllerListenersPort() {
        assertThat(settings("--node-id", "4", "--listeners", "PLAINTEXT://:19092,CONTROLLER://:19093"))
                .containsEntry("controller.quorum.voters", "4@localhost:19093");
    }

    @Test
    void aQuorumOfThreeGivesReplicationFactorThreeAndMinInsyncTwo() {
        Map<String, String> props = settings("--node-id", "2", "--controller-quorum-voters", THREE_VOTERS,
                "--advertised-listeners", "PLAINTEXT://kafka-2:9092");
        assertThat(props).containsEntry("node.id", "2")
                .containsEntry("controller.quorum.voters", THREE_VOTERS)
                .containsEntry("advertised.listeners", "PLAINTEXT://kafka-2:9092")
                .containsEntry("default.replication.factor", "3")
                .containsEntry("offsets.topic.replication.factor", "3")
                .containsEntry("transaction.state.log.replication.factor", "3")
                .containsEntry("share.coordinator.state.topic.replication.factor", "3")
                .containsEntry("min.insync.replicas", "2")
                .containsEntry("transaction.state.log.min.isr", "2")
                .containsEntry("share.coordinator.state.topic.min.isr", "2");
    }

    @Test
    void explicitReplicationSettingsWin() {
        assertThat(settings("--controller-quorum-voters", THREE_VOTERS, "--replication-factor", "2", "--min-insync-replicas", "1"))
                .containsEntry("default.replication.factor", "2").containsEntry("min.insync.replicas", "1");
        assertThatThrownBy(() -> settings("--replication-factor", "1", "--min-insync-replicas", "2"))
                .isInstanceOf(UserError.class).hasMessageContaining("--min-insync-replicas (2)");
    }

    @Test
    void otherFileKeysPassThroughAndOverridesComeLast() {
        Properties file = new Properties();
        file.setProperty("log.retention.hours", "48");
        file.setProperty("num.io.threads", "4");
        file.setProperty("node.id", "9");     // an option's key: the option (with the file as its default) decides
        Map<String, String> props = settings(file, "--override", "log.retention.hours=24", "--override", "auto.create.topics.enable=false");
        assertThat(props).containsEntry("log.retention.hours", "24")
                .containsEntry("num.io.threads", "4")
                .containsEntry("auto.create.topics.enable", "false")
                .containsEntry("node.id", "1");
    }

    @Test
    void anOverrideWithoutEqualsIsAUserError() {
        assertThatThrownBy(() -> settings("--override", "log.retention.hours"))
                .isInstanceOf(UserError.class).hasMessageContaining("KEY=VALUE");
    }

    @Test
    void listenersWithoutAControllerNeedTheVoters() {
        assertThatThrownBy(() -> settings("--process-roles", "broker", "--listeners", "PLAINTEXT://:9092"))
                .isInstanceOf(UserError.class).hasMessageContaining("--controller-quorum-voters");
    }

    @Test
    void helpNamesEveryOptionAndAnExample() {
        CommandRun help = CommandRun.of("broker", "--help");
        assertThat(help.exitCode()).isZero();
        assertThat(help.out()).contains("--node-id", "--cluster-id", "--controller-quorum-voters", "--listeners",
                "--advertised-listeners", "--data-dir", "--replication-factor", "--min-insync-replicas", "--override", "Examples:");
    }

    private static String[] prepend(String first, String[] rest) {
        String[] all = new String[rest.length + 1];
        all[0] = first;
        System.arraycopy(rest, 0, all, 1, rest.length);
        return all;
    }
}
