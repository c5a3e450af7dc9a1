package dev.tspipe.app;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/** The generate, import and replay commands: help, and the argument errors caught before Kafka is contacted. */
class IngestCommandsTest {



    @Test
    void theTopLevelHelpListsTheNewCommands() {
        assertThat(CommandRun.of("--help").out()).contains("generate", "import", "replay");
    }

    @Test
    void everyCommandsHelpHasItsOptionsDefaultsAndExamples() {
        assertThat(CommandRun.of("generate", "--help").out()).contains("--devices", "--metrics", "--rate", "--duration", "--start",
                "--out-of-order", "--duplicates", "--hot-devices", "--seed", "--topic", "127.0.0.1:9092",
                "http://127.0.0.1:8081", "Examples:");
        assertThat(CommandRun.of("import", "--help").out()).contains("FILE", "--format", "--rejects", "--threads", "rejects file",
                "Exit code", "Examples:");
        assertThat(CommandRun.of("replay", "--help").out()).contains("--from", "--to", "--source-topic", "--target-topic",
                "--partitions", "offsetsForTimes", "Safe to run twice", "Examples:");
    }

    @Test
    void nonsenseGeneratorOptionsAreAUsageError() {
        CommandRun run = CommandRun.of("generate", "--devices", "10", "--metrics", "2", "--rate", "100", "--duplicates", "2");

        assertThat(run.exitCode()).isEqualTo(CommandLine.ExitCode.USAGE);
        assertThat(run.err()).contains("duplicate probability must be between 0 and 1");
    }

    @Test
    void aCsvFileWithoutAUsableHeaderImportsNothingAndSaysWhatIsMissing(@TempDir Path dir) throws IOException {
        Path file = Files.writeString(dir.resolve("bad.csv"), "device,metric,value\nd,m,1\n");

        CommandRun run = CommandRun.of("import", file.toString(), "--bootstrap-servers", "127.0.0.1:1");

        assertThat(run.exitCode()).isEqualTo(CommandLine.ExitCode.USAGE);
        assertThat(run.err()).contains("no column 'timestamp'", "nothing was imported");
    }

    @Test
    void aMissingFileIsAUsageError(@TempDir Path dir) {
        CommandRun run = CommandRun.of("import", dir.resolve("nope.csv").toString(), "--bootstrap-servers", "127.0.0.1:1");

        assertThat(run.exitCode()).isEqualTo(CommandLine.ExitCode.USAGE);
        assertThat(run.err()).contains("nope.csv is not a readable file");
    }

    @Test
    void anEmptyReplayRangeIsAUsageError() {
        CommandRun run = CommandRun.of("replay", "--from", "2026-11-30T11:00:00Z", "--to", "2026-11-30T10:00:00Z");

        assertThat(run.exitCode()).isEqualTo(CommandLine.ExitCode.USAGE);
        assertThat(run.err()).contains("must be before --to");
    }

    @Test
    void durationsInShortAndIsoForm() {
        DurationConverter converter = new DurationConverter();

        assertThat(converter.convert("90s")).isEqualTo(Duration.ofSeconds(90));
        assertThat(converter.convert("10m")).isEqualTo(Duration.ofMinutes(10));
        assertThat(converter.convert("2h")).isEqualTo(Duration.ofHours(2));
        assertThat(converter.convert("PT1M")).isEqualTo(Duration.ofMinutes(1));
        assertThat(CommandRun.of("replay", "--from", "0", "--to", "1", "--max-lateness", "soon").err()).contains("'soon' is not a duration");
    }
    @Test
    void devicesHelpNamesItsCommandsAndTheLimitOfTheTable() {
        assertThat(CommandRun.of("--help").out()).contains("devices");
        assertThat(CommandRun.of("devices", "--help").out()).contains("put", "get", "list", "import", "delete", "20,000",
                "Examples:");
        assertThat(CommandRun.of("devices", "put", "--help").out()).contains("--site", "--type", "--label", "--tenant",
                "replaces", "--schema-registry-url", "--topic");
        assertThat(CommandRun.of("devices", "import", "--help").out()).contains("line number", "nothing is written",
                "transaction", "Examples:");
    }

    @Test
    void aDeviceFileWithBadLinesWritesNothingAndNamesEachLine(@TempDir Path dir) throws IOException {
        Path file = Files.writeString(dir.resolve("devices.csv"), "id,site,labels\npress-1,plant-1,line=3\n,plant-2,\n"
                + "kiln-1,plant-2,line\npress-1,plant-9,\n");

        CommandRun run = CommandRun.of("devices", "import", file.toString(), "--bootstrap-servers", "127.0.0.1:1");

        assertThat(run.exitCode()).isEqualTo(DevicesImportCommand.EXIT_REJECTED);
        assertThat(run.err()).contains("devices.csv:3: has no id", "devices.csv:4: label 'line' is not name=value",
                "devices.csv:5: device 'press-1' again (first on line 2)", "3 lines are not devices; nothing was written");
    }
}
