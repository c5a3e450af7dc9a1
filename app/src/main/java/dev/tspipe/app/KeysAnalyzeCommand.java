package dev.tspipe.app;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tspipe.ingest.FileFormat;
import dev.tspipe.ingest.FileImporter;
import dev.tspipe.ingest.FileReadings;
import dev.tspipe.ingest.ParseResult;
import dev.tspipe.ingest.Progress;
import dev.tspipe.model.analysis.KeyLayoutLinter;
import dev.tspipe.model.keys.KeyLayout;
import dev.tspipe.processor.topology.PipelineConfig;
import dev.tspipe.processor.topology.ReadingDecoder;
import dev.tspipe.processor.topology.ReadingValidator;
import org.apache.kafka.common.config.ConfigException;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

/** {@code tspipe keys analyze}: real readings, from a topic or a file, against the key-design rules (docs/row-keys.md, "Analyzing real keys"). */
@Command(
        name = "analyze",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        usageHelpAutoWidth = true,
        header = "Sample real readings and report how their keys fit the key-design rules.",
        description = {
                "",
                "Reads readings from a topic (the newest records, decoded as the pipeline decodes them) or from a CSV "
                        + "or JSON Lines file (parsed as 'tspipe import' parses it), builds the row key of each as the "
                        + "pipeline would, and reports: the time span; distinct devices and series; the share of the "
                        + "busiest 1%% of devices and the busiest devices; each device's bytes (row keys and values) "
                        + "projected over the raw lifecycle, against the guideline of 10 GB a device; the readings each "
                        + "partition would get, busiest over mean; and the rules of docs/row-keys.md applied to the ids "
                        + "(personal data, the delimiter and escaped characters, numbers of varying width, numbered ids "
                        + "that grow with time, long keys).",
                "",
                "Each finding names its rule, what is wrong, why it matters and the fix. Exit code: 0 when the sample "
                        + "keeps every rule, 1 with warnings only, 2 with an error (and when nothing could be read).",
                ""
        },
        footerHeading = "%nExamples:%n",
        footer = {
                "  tspipe keys analyze --topic readings",
                "  tspipe keys analyze --topic readings --sample 1000000 --lifecycle 30d --format json",
                "  tspipe keys analyze --file history.csv --partitions 12",
                "  tspipe keys analyze --file export.txt --file-format jsonl --multi-tenant"
        })
final class KeysAnalyzeCommand implements Callable<Integer> {

    /** Records read from a topic unless --sample says otherwise. */
    static final long DEFAULT_TOPIC_SAMPLE = 100_000;
    /** Partitions devices are placed in for a file, unless --partitions says otherwise: the demo's readings topic's. */
    static final int DEFAULT_FILE_PARTITIONS = 6;

    /** Where the readings come from: one of the two. */
    static final class Source {
        @Option(names = "--topic", paramLabel = "TOPIC", required = true,
                description = "Sample the newest records of this topic, from every partition in proportion to its records.")
        String topic;

        @Option(names = "--file", paramLabel = "FILE", required = true,
                description = "Read the readings of this CSV or JSON Lines file (the format of 'tspipe import').")
        Path file;
    }

    @ArgGroup(exclusive = true, multiplicity = "1")
    Source source;

    @Option(names = "--sample", paramLabel = "N",
            description = "Records to read: the newest N of a topic (default: 100,000), the first N lines of a file "
                    + "(default: all).")
    Long sample;

    @Option(names = "--file-format", paramLabel = "csv|jsonl|auto", defaultValue = "auto",
            description = "Format of --file (default: ${DEFAULT-VALUE}: by the file name, else by the first line).")
    FileFormat fileFormat;

    @Option(names = "--partitions", paramLabel = "N",
            description = "Partitions to place the devices in (default: the topic's; 6 for a file).")
    Integer partitions;

    @Option(names = "--lifecycle", paramLabel = "D", converter = DurationConverter.class,
            description = "How long raw rows are kept, such as 30d: each device's bytes are projected over it (default: "
                    + "the pipeline's, tspipe.raw.retention.ms, 7d).")
    Duration lifecycle;

    @Option(names = "--multi-tenant", description = "The deployment is multi-tenant: every reading has a tenant.")
    boolean multiTenant;

    @Option(names = "--salted", description = "The deployment salts its keys (tspipe.keys.salted).")
    boolean salted;

    @Option(names = "--top", paramLabel = "N", defaultValue = "10",
            description = "Busiest devices to list (default: ${DEFAULT-VALUE}).")
    int top;

    @Option(names = "--format", paramLabel = "FORMAT", defaultValue = "text",
            description = "text (figures, a finding a line, the verdict) or json (default: ${DEFAULT-VALUE}).")
    String format;

    @Mixin
    KafkaOptions kafka;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws IOException {
        boolean json = KeysCommand.json(format);
        if (sample != null && sample < 1) {
            throw new UserError("--sample must be at least 1, not " + sample);
        }
        KeyLayout layout = new KeyLayout(multiTenant, salted);
        KeyAnalysis analysis;
        KeyAnalysisReport.Source from;
        long records;
        if (source.topic != null) {
            Map<String, Object> pipeline = new HashMap<>(kafka.registrySettings());
            pipeline.put(PipelineConfig.MULTI_TENANT, multiTenant);
            pipeline.put(PipelineConfig.SALT_KEYS, salted);
            ReadingDecoder decoder;
            try {
                decoder = new ReadingDecoder(new PipelineConfig(pipeline));
            } catch (ConfigException e) {
                throw new UserError(e.getMessage() + "; check --schema-registry-url and the registry keys of --kafka-config");
            }
            try (TopicSample topic = TopicSample.open(kafka.clientSettings(), source.topic)) {
                analysis = new KeyAnalysis(settings(layout, partitions != null ? partitions : topic.partitions()));
                records = topic.read(sample != null ? sample : DEFAULT_TOPIC_SAMPLE, decoder, true, analysis::add);
            } finally {
                decoder.close();
            }
            from = new KeyAnalysisReport.Source("topic", source.topic, "newest");
        } else {
            analysis = new KeyAnalysis(settings(layout, partitions != null ? partitions : DEFAULT_FILE_PARTITIONS));
            records = readFile(source.file, analysis, new ReadingValidator(layout));
            from = new KeyAnalysisReport.Source("file", source.file.toString(), sample != null && records == sample
                    ? "first" : "all");
        }
        if (analysis.readings() == 0) {
            throw new UserError(records == 0 ? "there are no records to sample in " + (source.topic != null
                    ? "topic '" + source.topic + "'" : source.file)
                    : "none of the " + records + " records sampled is a reading tspipe would store; the first: "
                    + analysis.firstRejection() + (multiTenant ? "" : " (for readings with tenants, give --multi-tenant)"));
        }
        KeyAnalysisReport report = analysis.report();
        PrintWriter out = spec.commandLine().getOut();
        if (json) {
            out.println(new ObjectMapper().writerWithDefaultPrettyPrinter().writeValueAsString(report.json(from)));
        } else {
            out.print(report.text(from));
        }
        out.flush();
        return KeyLayoutLinter.exitCode(report.findings());
    }

    private KeyAnalysis.Settings settings(KeyLayout layout, int partitionCount) {
        Duration raw = lifecycle != null ? lifecycle : Duration.ofMillis((Long) PipelineConfig.definition().defaultValues()
                .get(PipelineConfig.RAW_RETENTION_MS));
        try {
            return new KeyAnalysis.Settings(layout, partitionCount, raw, top);
        } catch (IllegalArgumentException e) {
            throw new UserError(e.getMessage() + "; check --partitions, --lifecycle and --top");
        }
    }

    /** Feeds the file's lines to the analysis, each judged as the pipeline would judge it; the lines read. */
    private long readFile(Path file, KeyAnalysis analysis, ReadingValidator validator) throws IOException {
        try {
            FileImporter.checkFiles(List.of(file), fileFormat);
        } catch (IllegalArgumentException | IOException e) {
            throw new UserError(e.getMessage());
        }
        long limit = sample != null ? sample : Long.MAX_VALUE;
        long[] lines = {0};
        try (Progress progress = Progress.bar(true, "analyze", Files.size(file), "MiB", 1 << 20)) {
            FileReadings.forEach(file, fileFormat, (result, chars) -> {
                progress.stepBy(chars);
                if (result instanceof ParseResult.Parsed parsed) {
                    analysis.add(validator.validate(parsed.reading()));
                } else if (result instanceof ParseResult.Rejected rejected) {
                    analysis.reject("invalid-line", "line " + rejected.lineNumber() + ": " + rejected.reason());
                }
                return ++lines[0] < limit;
            });
        }
        return lines[0];
    }
}
