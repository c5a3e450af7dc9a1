package dev.tspipe.app;

import dev.tspipe.ingest.DeviceFile;
import dev.tspipe.ingest.FileFormat;
import dev.tspipe.ingest.Progress;
import dev.tspipe.processor.devices.DeviceTable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.concurrent.Callable;

/** {@code tspipe devices import}: every device of a file, or none. */
@Command(
        name = "import",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        usageHelpAutoWidth = true,
        header = "Import devices from a CSV or JSON Lines file: all of them, or none.",
        description = {
                "",
                "The whole file is checked first: every line that is not a device is reported with its line number, and "
                        + "then nothing is written (exit code 3). A file without problems is written in one Kafka "
                        + "transaction, with a progress bar: the nodes see all of its devices or, if the write fails, none.",
                "",
                "CSV starts with a header naming the columns: id (required), tenant, site, type, labels "
                        + "(name=value;name=value), registered (epoch ms or ISO-8601; default: now). JSON Lines have one "
                        + "object per line with the same fields, labels an object. A device named twice is a problem.",
                ""
        },
        footerHeading = "%nExamples:%n",
        footer = {
                "  tspipe devices import devices.csv",
                "  tspipe devices import devices.jsonl --topic devices-staging",
                "",
                "  A CSV file:",
                "    id,site,type,labels",
                "    press-1,plant-1,press,line=3;firmware=2.1",
                "  A JSON Lines file:",
                "    {\"id\":\"press-1\",\"site\":\"plant-1\",\"type\":\"press\",\"labels\":{\"line\":\"3\"}}"
        })
final class DevicesImportCommand implements Callable<Integer> {

    /** Exit code when lines are not devices (nothing was written). */
    static final int EXIT_REJECTED = 3;

    @Parameters(paramLabel = "FILE", description = "The file of devices.")
    Path file;

    @Option(names = "--format", paramLabel = "csv|jsonl|auto", defaultValue = "auto",
            description = "Format of the file (default: ${DEFAULT-VALUE}: by the file name, else by the first line).")
    FileFormat format;

    @Mixin
    DevicesTopicOptions devices;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        if (!Files.isReadable(file) || Files.isDirectory(file)) {
            throw new UserError(file + " is not a readable file");
        }
        DeviceFile.Parsed parsed;
        try {
            parsed = DeviceFile.read(file, format, Instant.now());
        } catch (IllegalArgumentException e) {
            throw new UserError(file + ": " + e.getMessage() + "; nothing was written");
        } catch (IOException e) {
            throw new UserError("cannot read " + file + ": " + e.getMessage());
        }
        PrintWriter err = spec.commandLine().getErr();
        if (!parsed.problems().isEmpty()) {
            parsed.problems().forEach(problem -> err.println(file + ":" + problem.line() + ": " + problem.reason()));
            err.println("tspipe: " + parsed.problems().size() + " line" + (parsed.problems().size() == 1 ? " is" : "s are")
                    + " not devices; nothing was written (fix them and import the file again)");
            return EXIT_REJECTED;
        }
        if (parsed.devices().size() > DeviceTable.MAX_ROWS) {
            err.println("tspipe: warning: " + parsed.devices().size() + " devices; a replicated table should hold at most "
                    + DeviceTable.MAX_ROWS + " (every node keeps all of them in memory; docs/devices.md)");
        }
        try (Progress progress = Progress.bar(true, "devices", parsed.devices().size(), "devices", 1)) {
            devices.with(topic -> {
                topic.putAll(parsed.devices(), progress);
                return null;
            });
        }
        spec.commandLine().getOut().println("Imported " + parsed.devices().size() + " devices from " + file + " into topic '"
                + devices.topic + "'");
        return 0;
    }
}
