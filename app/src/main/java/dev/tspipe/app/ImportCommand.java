package dev.tspipe.app;

import dev.tspipe.ingest.FileFormat;
import dev.tspipe.ingest.FileImporter;
import dev.tspipe.ingest.ImportSummary;
import dev.tspipe.ingest.ReadingProducer;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;

/** {@code tspipe import}: readings from CSV and JSON Lines files. */
@Command(
        name = "import",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        usageHelpAutoWidth = true,
        header = "Import readings from CSV or JSON Lines files.",
        description = {
                "",
                "Each line is one reading with the fields device, metric, timestamp, value and optionally tenant "
                        + "and tags. CSV files start with a header line naming the columns (any order); tags are "
                        + "written key=value;key=value. JSON Lines have one object per line; tags are an object. "
                        + "Timestamps are epoch milliseconds or ISO-8601 instants (2026-11-30T10:00:00Z).",
                "",
                "Several threads parse and send; each chunk of 10,000 lines is sent in shuffled order, so that a "
                        + "file sorted by time or by device does not write to one partition at a time. A progress "
                        + "bar shows the rate and the time left.",
                "",
                "Every line that is not a reading goes to the rejects file (tab-separated: file, line number, "
                        + "reason, the line), and the summary says how many. Exit code: 0 when every line was "
                        + "imported, 3 when lines were rejected, 1 when readings could not be written.",
                ""
        },
        footerHeading = "%nExamples:%n",
        footer = {
                "  tspipe import history.csv",
                "  tspipe import 2026-*.jsonl --rejects rejects.tsv --threads 4",
                "  tspipe import export.txt --format csv --topic readings-staging",
                "  tspipe import history.csv --batch 500",
                "                                    up to 500 readings of a device per Kafka record",
                "",
                "  A CSV file:",
                "    device,metric,timestamp,value,tags",
                "    sensor-1,temperature,2026-11-30T10:00:00Z,21.5,unit=°C;site=berlin",
                "  A JSON Lines file:",
                "    {\"device\":\"sensor-1\",\"metric\":\"temperature\",\"timestamp\":1796032800000,\"value\":21.5}"
        })
final class ImportCommand implements Callable<Integer> {

    /** Exit code when lines were rejected but everything else went well. */
    static final int EXIT_REJECTED = 3;

    @Parameters(paramLabel = "FILE", arity = "1..*", description = "Files to import, one after the other.")
    List<Path> files;

    @Option(names = "--format", paramLabel = "csv|jsonl|auto", defaultValue = "auto",
            description = "Format of the files (default: ${DEFAULT-VALUE}: by the file name, else by the first line).")
    FileFormat format;

    @Option(names = "--rejects", paramLabel = "FILE",
            description = "Where rejected lines go (default: the first file's name + .rejects.tsv, in the current folder).")
    Path rejects;

    @Option(names = "--threads", paramLabel = "N", description = "Threads that parse and send (default: the number of cores).")
    Integer threads;

    @Option(names = "--topic", paramLabel = "TOPIC", defaultValue = ReadingProducer.DEFAULT_TOPIC,
            description = "Topic to write to (default: ${DEFAULT-VALUE}).")
    String topic;

    @Mixin
    BatchOptions batches;

    @Mixin
    KafkaOptions kafka;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        Path rejectsFile = rejects != null ? rejects : Path.of(files.get(0).getFileName() + ".rejects.tsv");
        FileImporter.Options options = FileImporter.Options.defaults(rejectsFile).withFormat(format).withProgressBar(true);
        if (threads != null) {
            if (threads < 1) {
                throw new UserError("--threads must be at least 1, not " + threads);
            }
            options = options.withThreads(threads);
        }
        ImportSummary summary;
        try {
            FileImporter.checkFiles(files, format);
        } catch (IllegalArgumentException e) {
            throw new UserError(e.getMessage() + "; nothing was imported");
        } catch (IOException e) {
            throw new UserError(e.getMessage());
        }
        try (ReadingProducer producer = kafka.connectedProducer(topic, batches.producerSettings())) {
            summary = new FileImporter(producer, options).importFiles(files);
        } catch (IllegalArgumentException e) {
            throw new UserError(e.getMessage() + "; nothing was imported");
        } catch (IOException | IllegalStateException e) {
            throw new UserError(e.getMessage());
        }
        spec.commandLine().getOut().println(summary.describe());
        if (summary.failed() > 0) {
            return CommandLine.ExitCode.SOFTWARE;
        }
        return summary.rejected() > 0 ? EXIT_REJECTED : 0;
    }
}
