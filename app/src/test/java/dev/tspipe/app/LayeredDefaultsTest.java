package dev.tspipe.app;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class LayeredDefaultsTest {

    @TempDir
    Path dir;

    @Command(name = "probe")
    static final class Probe implements Runnable {
        @Option(names = "--http-port", defaultValue = "8080")
        int httpPort;

        @Option(names = "--state-dir", defaultValue = "data/state")
        String stateDir;

        @Option(names = "--config")
        Path config;

        @Override
        public void run() {
        }
    }

    private Probe parse(Map<String, String> environment, String... args) {
        Probe probe = new Probe();
        CommandLine commandLine = new CommandLine(probe);
        commandLine.setDefaultValueProvider(LayeredDefaults.forArgs(args, environment));
        commandLine.parseArgs(args);
        return probe;
    }

    private Path configFile(String content) throws IOException {
        Path file = dir.resolve("tspipe.properties");
        Files.writeString(file, content);
        return file;
    }

    @Test
    void theOptionsOwnDefaultWhenNothingElseIsGiven() {
        assertThat(parse(Map.of()).httpPort).isEqualTo(8080);
    }

    @Test
    void aFileBeatsTheDefaultAndAcceptsDashedOrDottedKeys() throws IOException {
        Path file = configFile("http-port=9000\nstate.dir=/srv/state\n");

        Probe probe = parse(Map.of(), "--config", file.toString());

        assertThat(probe.httpPort).isEqualTo(9000);
        assertThat(probe.stateDir).isEqualTo("/srv/state");
    }

    @Test
    void theEnvironmentBeatsTheFile() throws IOException {
        Path file = configFile("http-port=9000\n");

        Probe probe = parse(Map.of("TSPIPE_HTTP_PORT", "9100", LayeredDefaults.CONFIG_ENV, file.toString()));

        assertThat(probe.httpPort).isEqualTo(9100);
    }

    @Test
    void aFlagBeatsEverything() throws IOException {
        Path file = configFile("http-port=9000\n");

        Probe probe = parse(Map.of("TSPIPE_HTTP_PORT", "9100"), "--config", file.toString(), "--http-port", "9200");

        assertThat(probe.httpPort).isEqualTo(9200);
    }

    @Test
    void environmentVariablesAreNamedAfterTheOption() {
        assertThat(LayeredDefaults.environmentVariable("--schema-registry-url")).isEqualTo("TSPIPE_SCHEMA_REGISTRY_URL");
    }

    @Test
    void aMissingFileIsAUserErrorNamingIt() {
        assertThatThrownBy(() -> parse(Map.of(), "--config", dir.resolve("nope.properties").toString()))
                .isInstanceOf(UserError.class)
                .hasMessageContaining("nope.properties");
    }

    @Test
    void otherKeysOfTheFileArePassedOn() throws IOException {
        Path file = configFile("num.stream.threads=2\ntspipe.raw.retention.ms=86400000\n");

        LayeredDefaults defaults = LayeredDefaults.forArgs(new String[] {"--config", file.toString()}, Map.of());

        assertThat(defaults.fileProperties()).containsEntry("num.stream.threads", "2")
                .containsEntry("tspipe.raw.retention.ms", "86400000");
    }
}
