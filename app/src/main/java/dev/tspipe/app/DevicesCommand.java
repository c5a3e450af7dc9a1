package dev.tspipe.app;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** {@code tspipe devices}: the device table, a compacted topic every node reads whole (docs/devices.md). */
@Command(
        name = "devices",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        usageHelpAutoWidth = true,
        header = "Read and write device metadata (site, type, labels).",
        description = {
                "",
                "Device metadata lives in the compacted topic 'devices' (key: the device id, or tenant/id; value: Avro "
                        + "Device). Every node reads all of it, so queries filter devices by site, type and labels "
                        + "without asking another node (GET /api/v1/devices, GET /api/v1/metrics/{metric}/latest?site=..., "
                        + "PromQL temperature{site=\"plant-1\"}).",
                "",
                "Keep it reference data: at most about 20,000 devices. Every node holds the whole table in memory and "
                        + "logs a warning above that (docs/devices.md says what to do instead).",
                "",
                "These commands talk to Kafka and the schema registry directly: no node needs to run.",
                ""
        },
        commandListHeading = "%nCommands:%n",
        footerHeading = "%nExamples:%n",
        footer = {
                "  tspipe devices put press-1 --site plant-1 --type press --label line=3",
                "  tspipe devices get press-1",
                "  tspipe devices list --site plant-1 --label line=3",
                "  tspipe devices list --format json > devices.jsonl",
                "  tspipe devices import devices.csv",
                "  tspipe devices delete press-1"
        },
        subcommands = {DevicesPutCommand.class, DevicesGetCommand.class, DevicesListCommand.class, DevicesImportCommand.class,
                DevicesDeleteCommand.class})
final class DevicesCommand implements Runnable {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }
}
