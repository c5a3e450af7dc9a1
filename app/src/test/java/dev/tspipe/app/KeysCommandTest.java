package dev.tspipe.app;

import org.junit.jupiter.api.Test;
import picocli.CommandLine;


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
}
