package dev.tspipe.app;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code tspipe} command: every entry point of the product is one of its subcommands. */
@Command(
        name = "tspipe",
        mixinStandardHelpOptions = true,
        versionProvider = VersionProvider.class,
        sortOptions = false,
        usageHelpAutoWidth = true,
        header = "Time-series ingestion on Apache Kafka and Kafka Streams.",
        description = {
                "",
                "Devices write readings to a Kafka topic; tspipe turns each one into a row keyed "
                        + "device#metric#reversedTimestamp, keeps counters per time bucket and serves the "
                        + "latest data of any series over HTTP.",
                ""
        },
        commandListHeading = "%nCommands:%n",
        footerHeading = "%nExamples:%n",
        footer = {
                "  tspipe demo                       everything on this machine, data in ./data",
                "  tspipe demo --kafka-port 19092    the same on other ports",
                "",
                "Run 'tspipe <command> --help' for the options of a command."
        },
        subcommands = {
                DemoCommand.class,
                CommandLine.HelpCommand.class
        })
public final class TspipeCommand implements Runnable {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    public static void main(String[] args) {
        System.exit(newCommandLine().execute(args));
    }

    /** The configured command line, shared by {@link #main} and tests. */
    public static CommandLine newCommandLine() {
        return new CommandLine(new TspipeCommand())
                .setCaseInsensitiveEnumValuesAllowed(true)
                .setExecutionExceptionHandler(new UserFacingErrors());
    }

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }
}
