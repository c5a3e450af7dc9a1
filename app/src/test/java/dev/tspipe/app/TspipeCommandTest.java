package dev.tspipe.app;

import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.ServerSocket;

import static org.assertj.core.api.Assertions.assertThat;

class TspipeCommandTest {

    private record Run(int exitCode, String out, String err) {
    }

    private static Run run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine commandLine = TspipeCommand.newCommandLine();
        commandLine.setOut(new PrintWriter(out));
        commandLine.setErr(new PrintWriter(err));
        int exitCode = commandLine.execute(args);
        return new Run(exitCode, out.toString(), err.toString());
    }

    @Test
    void helpListsTheDemoCommandAndExamples() {
        Run run = run("--help");

        assertThat(run.exitCode()).isZero();
        assertThat(run.out()).contains("Usage: tspipe", "demo", "Examples:");
    }

    @Test
    void noCommandPrintsUsage() {
        assertThat(run().out()).contains("Usage: tspipe");
    }

    @Test
    void demoHelpDocumentsEveryOptionWithItsDefault() {
        Run run = run("demo", "--help");

        assertThat(run.out()).contains("--kafka-port", "9092", "--controller-port", "9093",
                "--registry-port", "8081", "--data-dir", "./data");
    }

    @Test
    void nodeHelpExplainsEveryWayToConfigureIt() {
        Run run = run("node", "--help");

        assertThat(run.exitCode()).isZero();
        assertThat(run.out()).contains("--bootstrap-servers", "--schema-registry-url", "--http-port", "--state-dir",
                "--config", "TSPIPE_HTTP_PORT", "Precedence");
    }

    @Test
    void nodeRefusesAnUnknownProcessingGuaranteeBeforeConnectingAnywhere() {
        Run run = run("node", "--processing-guarantee", "sometimes");

        assertThat(run.exitCode()).isEqualTo(CommandLine.ExitCode.USAGE);
        assertThat(run.err()).contains("--processing-guarantee must be exactly_once_v2 or at_least_once");
    }

    @Test
    void anUnknownOptionIsAUsageErrorThatNamesIt() {
        Run run = run("demo", "--kafka-prot", "1");

        assertThat(run.exitCode()).isEqualTo(CommandLine.ExitCode.USAGE);
        assertThat(run.err()).contains("--kafka-prot");
    }

    @Test
    void aPortInUseIsReportedWithTheOptionThatChangesIt() throws IOException {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            Run run = run("demo", "--kafka-port", Integer.toString(taken.getLocalPort()));

            assertThat(run.exitCode()).isEqualTo(CommandLine.ExitCode.USAGE);
            assertThat(run.err()).contains("port " + taken.getLocalPort(), "is in use", "--kafka-port");
        }
    }

    @Test
    void aRegistryPortInUseIsReportedBeforeAnythingStarts() throws IOException {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            Run run = run("demo", "--kafka-port", "0", "--controller-port", "0",
                    "--registry-port", Integer.toString(taken.getLocalPort()));

            assertThat(run.exitCode()).isEqualTo(CommandLine.ExitCode.USAGE);
            assertThat(run.err()).contains("port " + taken.getLocalPort(), "is in use", "--registry-port");
        }
    }
}
