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
                "  tspipe node --bootstrap-servers kafka:9092 --schema-registry-url http://registry:8081",
                "                                    one instance against a real cluster",
                "  tspipe broker --node-id 1 --cluster-id MkU3OEVBNTcwNTJENDM2Qg \\",
                "      --controller-quorum-voters 1@kafka-1:9093,2@kafka-2:9093,3@kafka-3:9093",
                "                                    one node of a three-node Kafka cluster",
                "  tspipe registry --bootstrap-servers kafka-1:9092",
                "                                    the schema registry alone",
                "  tspipe generate --devices 200 --metrics 5 --rate 2000",
                "                                    synthetic readings into the demo",
                "  tspipe import history.csv         readings from a file",
                "  tspipe replay --from 2026-11-30T10:00:00Z --to 2026-11-30T11:00:00Z",
                "                                    an hour of readings again (backfill)",
                "  tspipe keys encode sensor-1 temp 2023-11-14T22:13:20Z",
                "                                    the row key of a reading",
                "  tspipe keys decode 'sensor-1#temp#9223370336854775807'",
                "                                    the parts of a row key",
                "  tspipe keys analyze --topic readings",
                "                                    how real keys fit the key-design rules",
                "  tspipe tokens create --tenant acme --scope read",
                "                                    a bearer token for the HTTP API",
                "  tspipe devices put press-1 --site plant-1 --type press --label line=3",
                "                                    device metadata, on every node",
                "",
                "Run 'tspipe <command> --help' for the options of a command."
        },
        subcommands = {
                DemoCommand.class,
                NodeCommand.class,
                BrokerCommand.class,
                RegistryCommand.class,
                GenerateCommand.class,
                ImportCommand.class,
                ReplayCommand.class,
                KeysCommand.class,
                TokensCommand.class,
                DevicesCommand.class,
                CommandLine.HelpCommand.class
        })
public final class TspipeCommand implements Runnable {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    public static void main(String[] args) {
        CommandLine commandLine = newCommandLine();
        try {
            commandLine.setDefaultValueProvider(LayeredDefaults.forArgs(args, System.getenv()));
        } catch (UserError e) {
            commandLine.getErr().println("tspipe: " + e.getMessage());
            System.exit(CommandLine.ExitCode.USAGE);
        }
        System.exit(commandLine.execute(args));
    }

    /** The configured command line, shared by {@link #main} and tests. */
    public static CommandLine newCommandLine() {
        UserFacingErrors errors = new UserFacingErrors();
        return new CommandLine(new TspipeCommand())
                .setCaseInsensitiveEnumValuesAllowed(true)
                .setExecutionExceptionHandler(errors)
                .setParameterExceptionHandler(errors);
    }

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }
}
