package dev.tspipe.app;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class TspipeCommandTest {



    @Test
    void helpListsTheDemoCommandAndExamples() {
        CommandRun run = CommandRun.of("--help");

        assertThat(run.exitCode()).isZero();
        assertThat(run.out()).contains("Usage: tspipe", "demo", "Examples:");
    }

    @Test
    void helpListsTheClusterCommands() {
        assertThat(CommandRun.of("--help").out()).contains("broker", "registry", "one node of a three-node Kafka cluster");
    }

    @Test
    void registryHelpDocumentsItsOptionsAndTheirEnvironment() {
        CommandRun run = CommandRun.of("registry", "--help");

        assertThat(run.exitCode()).isZero();
        assertThat(run.out()).contains("--bootstrap-servers", "--host", "0.0.0.0", "--port", "8081", "--topic", "_schemas",
                "--users", "--kafka-config", "TSPIPE_PORT", "Examples:");
    }

    @Test
    void aRegistryUsersFileWithABadLineIsAUsageErrorThatNamesTheLine(@TempDir Path dir) throws IOException {
        Path users = Files.writeString(dir.resolve("users"), "ops:not-a-digest\n");

        CommandRun run = CommandRun.of("registry", "--users", users.toString(), "--bootstrap-servers", "127.0.0.1:1");

        assertThat(run.exitCode()).isEqualTo(CommandLine.ExitCode.USAGE);
        assertThat(run.err()).contains("line 1", "user:sha256-hex-of-password", "--users");
    }

    @Test
    void noCommandPrintsUsage() {
        assertThat(CommandRun.of().out()).contains("Usage: tspipe");
    }

    @Test
    void demoHelpDocumentsEveryOptionWithItsDefault() {
        CommandRun run = CommandRun.of("demo", "--help");

        assertThat(run.out()).contains("--kafka-port", "9092", "--controller-port", "9093",
                "--registry-port", "8081", "--data-dir", "./data");
    }

    @Test
    void nodeHelpExplainsEveryWayToConfigureIt() {
        CommandRun run = CommandRun.of("node", "--help");

        assertThat(run.exitCode()).isZero();
        assertThat(run.out()).contains("--bootstrap-servers", "--schema-registry-url", "--http-port", "--state-dir",
                "--config", "TSPIPE_HTTP_PORT", "Precedence", "--create-topics", "--partitions");
    }

    @Test
    void nodeRefusesAnUnknownProcessingGuaranteeBeforeConnectingAnywhere() {
        CommandRun run = CommandRun.of("node", "--processing-guarantee", "sometimes");

        assertThat(run.exitCode()).isEqualTo(CommandLine.ExitCode.USAGE);
        assertThat(run.err()).contains("--processing-guarantee must be exactly_once_v2 or at_least_once");
    }

    @Test
    void nodeWriteMappingsComeFromOptionsAndABadOneIsAUsageError() {
        WriteMappingOptions defaults = CommandLine.populateCommand(new WriteMappingOptions());
        assertThat(defaults.influx()).isEqualTo(dev.tspipe.ingest.influx.InfluxMapping.DEFAULT);
        assertThat(defaults.remoteWrite().deviceLabels()).containsExactly("instance", "job");
        WriteMappingOptions given = CommandLine.populateCommand(new WriteMappingOptions(), "--influx-device-tags", "sensor, gw",
                "--influx-metric", "field", "--remote-write-device-labels", "job");
        assertThat(given.influx()).isEqualTo(new dev.tspipe.ingest.influx.InfluxMapping(List.of("sensor", "gw"), false));
        assertThat(given.remoteWrite().deviceLabels()).containsExactly("job");

        CommandRun run = CommandRun.of("node", "--influx-metric", "measurement");
        assertThat(run.exitCode()).isEqualTo(CommandLine.ExitCode.USAGE);
        assertThat(run.err()).contains("--influx-metric must be measurement.field or field, not 'measurement'");
        assertThat(CommandRun.of("node", "--remote-write-device-labels", "instance,,job").err())
                .contains("--remote-write-device-labels takes names separated by commas");
        assertThat(CommandRun.of("node", "--help").out()).contains("--influx-device-tags", "--influx-metric",
                "--remote-write-device-labels");
    }

    @Test
    void anUnknownOptionIsAUsageErrorThatNamesIt() {
        CommandRun run = CommandRun.of("demo", "--kafka-prot", "1");

        assertThat(run.exitCode()).isEqualTo(CommandLine.ExitCode.USAGE);
        assertThat(run.err()).contains("--kafka-prot");
    }

    @Test
    void aPortInUseIsReportedWithTheOptionThatChangesIt() throws IOException {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            CommandRun run = CommandRun.of("demo", "--kafka-port", Integer.toString(taken.getLocalPort()));

            assertThat(run.exitCode()).isEqualTo(CommandLine.ExitCode.USAGE);
            assertThat(run.err()).contains("port " + taken.getLocalPort(), "is in use", "--kafka-port");
        }
    }

    @Test
    void aRegistryPortInUseIsReportedBeforeAnythingStarts() throws IOException {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            CommandRun run = CommandRun.of("demo", "--kafka-port", "0", "--controller-port", "0",
                    "--registry-port", Integer.toString(taken.getLocalPort()));

            assertThat(run.exitCode()).isEqualTo(CommandLine.ExitCode.USAGE);
            assertThat(run.err()).contains("port " + taken.getLocalPort(), "is in use", "--registry-port");
        }
    }
}
