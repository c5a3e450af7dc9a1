package dev.tspipe.app;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tspipe.processor.topology.PipelineConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class KeysCommandTest {



    private static final String SENSOR_1_LISTING = """
            key        sensor-1#temp#9223370336854775807
            tenant     (none)
            device     sensor-1
            metric     temp
            timestamp  1700000000000 (2023-11-14T22:13:20Z)
            reversed   9223370336854775807
            bytes      33
            block      sensor-1#temp#9223370336855575807 (the raw block of the hour from 2023-11-14T22:00:00Z)
            """;

    @Test
    void encodePrintsTheKeyAndItsPartsAligned() {
        CommandRun run = CommandRun.of("keys", "encode", "sensor-1", "temp", "1700000000000");

        assertThat(run.exitCode()).isZero();
        assertThat(run.out()).isEqualTo(SENSOR_1_LISTING);
        assertThat(run.err()).isEmpty();
    }

    @Test
    void anIsoInstantGivesTheSameKeyAsItsEpochMillis() {
        CommandRun run = CommandRun.of("keys", "encode", "sensor-1", "temp", "2023-11-14T22:13:20Z");

        assertThat(run.exitCode()).isZero();
        assertThat(run.out()).isEqualTo(SENSOR_1_LISTING);
    }

    @Test
    void decodePrintsTheParts() {
        CommandRun run = CommandRun.of("keys", "decode", "sensor-1#temp#9223370336854775807");

        assertThat(run.exitCode()).isZero();
        assertThat(run.out()).isEqualTo(SENSOR_1_LISTING);
    }

    @Test
    void escapedSegmentsEncodeAsInTheCodecsExamplesAndDecodeBack() {
        CommandRun encoded = CommandRun.of("keys", "encode", "Café", "a b", "0");

        assertThat(encoded.part("key")).isEqualTo("Caf%C3%A9#a%20b#9223372036854775807");
        CommandRun decoded = CommandRun.of("keys", "decode", encoded.part("key"));
        assertThat(decoded.out()).isEqualTo(encoded.out());
        assertThat(decoded.part("device")).isEqualTo("Café");
        assertThat(decoded.part("metric")).isEqualTo("a b");
    }

    @Test
    void aTenantKeyRoundTripsAndItsTenantIsDetectedFromTheDelimiters() {
        CommandRun encoded = CommandRun.of("keys", "encode", "d", "m", "0", "--tenant", "acme");

        assertThat(encoded.exitCode()).isZero();
        assertThat(encoded.part("key")).isEqualTo("acme#d#m#9223372036854775807");
        CommandRun decoded = CommandRun.of("keys", "decode", "acme#d#m#9223372036854775807");
        assertThat(decoded.exitCode()).isZero();
        assertThat(decoded.out()).isEqualTo(encoded.out());
        assertThat(decoded.part("tenant")).isEqualTo("acme");
    }

    @Test
    void aSaltedKeyRoundTripsWithItsSalt() {
        CommandRun encoded = CommandRun.of("keys", "encode", "sensor-000123", "temperature", "1700000000000", "--salted");

        String key = encoded.part("key");
        assertThat(key).matches("[0-9a-f]{4}#sensor-000123#temperature#9223370336854775807");
        assertThat(encoded.part("salt")).isEqualTo(key.substring(0, 4));
        CommandRun decoded = CommandRun.of("keys", "decode", key, "--salted");
        assertThat(decoded.exitCode()).isZero();
        assertThat(decoded.out()).isEqualTo(encoded.out());
        assertThat(decoded.part("tenant")).isEqualTo("(none)");
    }

    @Test
    void aSaltedMultiTenantKeyRoundTrips() {
        CommandRun encoded = CommandRun.of("keys", "encode", "Zürich 1", "temp", "2026-11-30T12:00:00Z", "--tenant", "acme", "--salted");

        assertThat(encoded.part("key")).matches("[0-9a-f]{4}#acme#Z%C3%BCrich%201#temp#\\d{19}");
        CommandRun decoded = CommandRun.of("keys", "decode", "--salted", encoded.part("key"));
        assertThat(decoded.out()).isEqualTo(encoded.out());
        assertThat(decoded.part("timestamp")).isEqualTo("1796040000000 (2026-11-30T12:00:00Z)");
    }

    @Test
    void aSaltedKeyDecodedWithoutSaltedGetsAHint() {
        String key = CommandRun.of("keys", "encode", "sensor-1", "temp", "0", "--salted").part("key");

        CommandRun run = CommandRun.of("keys", "decode", key);

        assertThat(run.exitCode()).isZero();
        assertThat(run.part("tenant")).isEqualTo(key.substring(0, 4));
        assertThat(run.err()).contains("is the salt of device 'sensor-1'", "--salted");
    }

    @Test
    void aMalformedKeyIsOneLineWithItsByteOffsetAndAUsageExitCode() {
        CommandRun run = CommandRun.of("keys", "decode", "sensor-1#te%2mp#9223370336854775807");

        assertThat(run.exitCode()).isEqualTo(CommandLine.ExitCode.USAGE);
        assertThat(run.out()).isEmpty();
        assertThat(run.err().strip()).isEqualTo("tspipe keys decode: malformed row key at byte offset 13: "
                + "'%' must be followed by two upper-case hex digits (0-9, A-F)");
    }

    @Test
    void aKeyWithTooFewSegmentsIsReportedWhereItEnds() {
        CommandRun run = CommandRun.of("keys", "decode", "sensor-1#9223370336854775807");

        assertThat(run.exitCode()).isEqualTo(CommandLine.ExitCode.USAGE);
        assertThat(run.err()).contains("byte offset 28", "ends inside the metric segment");
    }

    @Test
    void anUnsaltedKeyDecodedAsSaltedIsReportedAtTheSalt() {
        CommandRun run = CommandRun.of("keys", "decode", "--salted", "sensor-1#temp#9223370336854775807");

        assertThat(run.exitCode()).isEqualTo(CommandLine.ExitCode.USAGE);
        assertThat(run.err()).contains("byte offset 0", "salt");
    }

    @Test
    void anEmptyDeviceIsRefusedWithAUsageExitCode() {
        CommandRun run = CommandRun.of("keys", "encode", "", "temp", "1700000000000");

        assertThat(run.exitCode()).isEqualTo(CommandLine.ExitCode.USAGE);
        assertThat(run.out()).isEmpty();
        assertThat(run.err().strip()).isEqualTo("tspipe keys encode: device is empty");
    }

    @Test
    void aTimeOutsideTheKeyRangeIsRefusedWithTheRange() {
        CommandRun run = CommandRun.of("keys", "encode", "d", "m", "-1");

        assertThat(run.exitCode()).isEqualTo(CommandLine.ExitCode.USAGE);
        assertThat(run.err()).contains("timestamp -1 ms is outside the valid range");
    }

    @Test
    void aTimeThatIsNeitherMillisNorAnInstantIsAUsageErrorThatSaysWhatIsAccepted() {
        CommandRun run = CommandRun.of("keys", "encode", "d", "m", "yesterday");

        assertThat(run.exitCode()).isEqualTo(CommandLine.ExitCode.USAGE);
        assertThat(run.err()).contains("TIME", "'yesterday'", "epoch milliseconds", "ISO-8601")
                .contains("Run 'tspipe keys encode --help'")
                .doesNotContain("Usage:");
    }

    @Test
    void keysHelpListsItsCommandsAndExamplesAndTheTopLevelHelpListsKeys() {
        CommandRun keys = CommandRun.of("keys", "--help");

        assertThat(keys.exitCode()).isZero();
        assertThat(keys.out()).contains("Usage: tspipe keys", "encode", "decode", "Examples:");
        assertThat(CommandRun.of("--help").out()).contains("keys", "tspipe keys encode", "tspipe keys decode");
        assertThat(CommandRun.of("keys", "decode", "--help").out()).contains("--salted", "byte offset");
    }

    @Test
    void checkPrintsAFindingALineAndExitsByTheWorstOne(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir)
            throws Exception {
        CommandRun clean = CommandRun.of("keys", "check", "{device:id}#{metric:enum}#{ts:timestamp:19:reversed}");
        assertThat(clean.exitCode()).isZero();
        assertThat(clean.out()).isEqualTo("clean: the layout keeps every rule checked (docs/row-keys.md)\n");

        CommandRun warned = CommandRun.of("keys", "check", "{device:id}#{ts:timestamp:19}");
        assertThat(warned.exitCode()).isEqualTo(1);
        assertThat(warned.out()).startsWith("warning timestamp-not-reversed").endsWith("0 error(s), 1 warning(s)\n");

        java.nio.file.Path file = dir.resolve("layout.json");
        java.nio.file.Files.writeString(file, "{\"delimiter\": \":\", \"segments\": [{\"name\": \"ts\", \"kind\": \"timestamp\"}, "
                + "{\"name\": \"device\", \"kind\": \"id\"}]}");
        CommandRun failed = CommandRun.of("keys", "check", file.toString(), "--format", "json");
        assertThat(failed.exitCode()).isEqualTo(2);
        com.fasterxml.jackson.databind.JsonNode json = new com.fasterxml.jackson.databind.ObjectMapper().readTree(failed.out());
        assertThat(json.get("verdict").asText()).isEqualTo("errors");
        assertThat(json.get("findings").findValuesAsText("rule"))
                .containsExactly("time-first", "number-without-width", "delimiter-not-lowest");
        assertThat(json.at("/findings/0/segment").asInt()).isEqualTo(1);

        CommandRun unreadable = CommandRun.of("keys", "check", "{device}");
        assertThat(unreadable.exitCode()).isEqualTo(picocli.CommandLine.ExitCode.USAGE);
        assertThat(unreadable.err()).contains("needs a name and a kind");
    }

    /** A CSV file of {@code devices} devices, {@code each} readings a device a minute apart, and the lines given after. */
    private static Path csv(Path dir, String name, int devices, int each, String... more) throws IOException {
        List<String> lines = new ArrayList<>(List.of("device,metric,timestamp,value"));
        for (int i = 0; i < each; i++) {
            for (int d = 1; d <= devices; d++) {
                lines.add(String.format("sensor-%03d,temperature,%d,21.5", d, 1_796_032_800_000L + i * 60_000L + d));
            }
        }
        lines.addAll(List.of(more));
        return Files.write(dir.resolve(name), lines);
    }

    @Test
    void analyzeReadsCsvAndJsonLinesFilesAndExitsByTheWorstFinding(@TempDir Path dir) throws IOException {
        CommandRun clean = CommandRun.of("keys", "analyze", "--file", csv(dir, "clean.csv", 120, 10).toString());
        assertThat(clean.exitCode()).as(clean.out() + clean.err()).isZero();
        assertThat(clean.out()).startsWith("sample       1,200 readings: all of " + dir.resolve("clean.csv"))
                .contains("devices      120, 120 series", "partitions   6 ")
                .endsWith("\nclean: the sampled keys keep every rule checked (docs/row-keys.md)\n");

        Path jsonl = Files.writeString(dir.resolve("people.jsonl"), """
                {"device":"alice@example.com","metric":"temperature","timestamp":"2026-11-30T10:00:00Z","value":21.5}
                {"device":"bob@example.com","metric":"temperature","timestamp":"2026-11-30T10:01:00Z","value":21.0}
                not json
                """);
        CommandRun warned = CommandRun.of("keys", "analyze", "--file", jsonl.toString(), "--partitions", "1", "--format", "json");
        assertThat(warned.exitCode()).as(warned.out() + warned.err()).isEqualTo(1);
        JsonNode json = new ObjectMapper().readTree(warned.out());
        assertThat(json.get("verdict").asText()).isEqualTo("warnings");
        assertThat(json.at("/source/kind").asText()).isEqualTo("file");
        assertThat(json.get("readings").asLong()).isEqualTo(2);
        assertThat(json.at("/rejected/invalid-line").asLong()).isEqualTo(1);
        assertThat(json.get("findings").findValuesAsText("rule")).containsExactly("personal-data");
        assertThat(warned.out()).doesNotContain("alice@", "bob@");

        // One device with most readings: its partition takes several times the mean.
        String[] hot = new String[600];
        for (int i = 0; i < hot.length; i++) {
            hot[i] = "hot-1,temperature," + (1_796_032_800_000L + i * 1_000L) + ",1";
        }
        CommandRun failed = CommandRun.of("keys", "analyze", "--file", csv(dir, "hot.csv", 120, 2, hot).toString(),
                "--sample", "500");
        assertThat(failed.exitCode()).as(failed.out() + failed.err()).isEqualTo(2);
        assertThat(failed.out()).startsWith("sample       500 readings: the first of ")
                .contains("error   partition-skew", "warning hot-devices").endsWith("errors: 1 error(s), 1 warning(s)\n");
    }

    @Test
    void analyzeRefusesWhatItCannotReadWithAUsageExitCode(@TempDir Path dir) throws IOException {
        Path badHeader = Files.writeString(dir.resolve("bad.csv"), "device,metric,value\nd,m,1\n");
        CommandRun header = CommandRun.of("keys", "analyze", "--file", badHeader.toString());
        assertThat(header.exitCode()).isEqualTo(CommandLine.ExitCode.USAGE);
        assertThat(header.err()).contains("no column 'timestamp'");

        Path tenants = Files.writeString(dir.resolve("tenants.csv"), "tenant,device,metric,timestamp,value\nacme,d,m,0,1\n");
        CommandRun single = CommandRun.of("keys", "analyze", "--file", tenants.toString());
        assertThat(single.exitCode()).isEqualTo(CommandLine.ExitCode.USAGE);
        assertThat(single.err()).contains("none of the 1 records sampled is a reading tspipe would store",
                "invalid-field", "--multi-tenant");
        assertThat(CommandRun.of("keys", "analyze", "--file", tenants.toString(), "--multi-tenant", "--partitions", "1")
                .exitCode()).isZero();

        assertThat(CommandRun.of("keys", "analyze", "--file", tenants.toString(), "--format", "xml").err())
                .contains("--format must be text or json");
        assertThat(CommandRun.of("keys", "analyze").err()).contains("--topic", "--file");
        assertThat(CommandRun.of("keys", "analyze", "--topic", "t", "--file", "f").err()).contains("mutually exclusive");
        assertThat(CommandRun.of("keys", "analyze", "--file", dir.resolve("nope.csv").toString()).err())
                .contains("nope.csv is not a readable file");
    }

    @Test
    void analyzeHelpNamesItsSourcesOptionsAndThePipelinesLifecycle() {
        CommandRun help = CommandRun.of("keys", "analyze", "--help");

        assertThat(help.exitCode()).isZero();
        String lifecycle = KeyAnalysisReport.duration(Duration.ofMillis(
                (Long) PipelineConfig.definition().defaultValues().get(PipelineConfig.RAW_RETENTION_MS)));
        assertThat(help.out()).contains("Usage: tspipe keys analyze", "--topic", "--file", "--sample", "--partitions",
                "--lifecycle", "--multi-tenant", "--salted", "--format", "--bootstrap-servers", "--schema-registry-url",
                "--kafka-config", "tspipe.raw.retention.ms, " + lifecycle + ")", "1 with warnings only", "Examples:");
        assertThat(CommandRun.of("keys", "--help").out()).contains("analyze");
    }
}
