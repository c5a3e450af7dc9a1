package dev.tspipe.app;

import picocli.CommandLine.IDefaultValueProvider;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;

/**
 * Where an option's value comes from when it is not given as a flag: the environment
 * ({@code --http-port} is {@code TSPIPE_HTTP_PORT}), then the configuration file ({@code http-port}
 * or {@code http.port}), then the option's own default. So the order of precedence is
 * flag, environment, file, default — as users of twelve-factor apps and of Kafka's tools expect.
 *
 * <p>The file is a Java properties file named by {@code --config FILE} or {@code TSPIPE_CONFIG}.
 * Keys that are not options of the command (Kafka Streams and {@code tspipe.*} settings) are
 * available from {@link #fileProperties()} and passed on to Kafka Streams.
 */
final class LayeredDefaults implements IDefaultValueProvider {

    static final String CONFIG_ENV = "TSPIPE_CONFIG";

    private final Map<String, String> environment;
    private final Properties file;
    private final Optional<Path> filePath;

    LayeredDefaults(Map<String, String> environment, Optional<Path> filePath) {
        this.environment = environment;
        this.filePath = filePath;
        this.file = new Properties();
        filePath.ifPresent(path -> {
            try (Reader reader = Files.newBufferedReader(path, StandardCharsets.UTF_8)) {
                file.load(reader);
            } catch (IOException e) {
                throw new UserError("cannot read the configuration file " + path + ": " + e.getMessage()
                        + "; check --config or " + CONFIG_ENV);
            }
        });
    }

    /** The defaults for a command line: the file from {@code --config}/{@code -c} in {@code args}, else {@code TSPIPE_CONFIG}. */
    static LayeredDefaults forArgs(String[] args, Map<String, String> environment) {
        Optional<Path> path = Optional.empty();
        for (int i = 0; i < args.length; i++) {
            if ((args[i].equals("--config") || args[i].equals("-c")) && i + 1 < args.length) {
                path = Optional.of(Path.of(args[i + 1]));
            } else if (args[i].startsWith("--config=")) {
                path = Optional.of(Path.of(args[i].substring("--config=".length())));
            }
        }
        if (path.isEmpty() && environment.get(CONFIG_ENV) != null && !environment.get(CONFIG_ENV).isBlank()) {
            path = Optional.of(Path.of(environment.get(CONFIG_ENV)));
        }
        return new LayeredDefaults(environment, path);
    }

    /** The environment variable of an option: {@code --http-port} is {@code TSPIPE_HTTP_PORT}. */
    static String environmentVariable(String longName) {
        return "TSPIPE_" + stripDashes(longName).toUpperCase(Locale.ROOT).replace('-', '_');
    }

    @Override
    public String defaultValue(ArgSpec argSpec) {
        if (!(argSpec instanceof OptionSpec option) || option.longestName().equals("--config")) {
            return null;
        }
        String name = stripDashes(option.longestName());
        String fromEnvironment = environment.get(environmentVariable(option.longestName()));
        if (fromEnvironment != null) {
            return fromEnvironment;
        }
        String fromFile = file.getProperty(name, file.getProperty(name.replace('-', '.')));
        return fromFile != null ? fromFile.trim() : option.defaultValue();
    }

    /** Every key of the configuration file, for settings that are not options (Kafka Streams, tspipe.*). */
    Properties fileProperties() {
        Properties copy = new Properties();
        copy.putAll(file);
        return copy;
    }

    /** The configuration file's settings of a parsed command, all keys; none when it runs without {@code LayeredDefaults} or a file. */
    static Properties fileSettings(CommandSpec spec) {
        return spec.commandLine().getDefaultValueProvider() instanceof LayeredDefaults defaults
                ? defaults.fileProperties() : new Properties();
    }

    /**
     * The settings of {@code file} that are not options of the command ({@code http-port} or {@code http.port} is
     * {@code --http-port}'s, which already took it as its default): those a command passes on (Kafka Streams,
     * Kafka server and {@code tspipe.*} settings).
     */
    static Properties withoutOptions(Properties file, CommandSpec spec) {
        Properties others = new Properties();
        others.putAll(file);
        for (OptionSpec option : spec.options()) {
            String name = stripDashes(option.longestName());
            others.remove(name);
            others.remove(name.replace('-', '.'));
        }
        return others;
    }

    Optional<Path> filePath() {
        return filePath;
    }

    private static String stripDashes(String name) {
        return name.replaceFirst("^-+", "");
    }
}
