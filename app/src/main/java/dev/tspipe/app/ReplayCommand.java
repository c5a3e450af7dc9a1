package dev.tspipe.app;

import dev.tspipe.ingest.ReadingProducer;
import dev.tspipe.ingest.ReplaySummary;
import dev.tspipe.ingest.Replayer;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;

/** {@code tspipe replay}: the records of a time range, produced again, for a backfill. */
@Command(
        name = "replay",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        usageHelpAutoWidth = true,
        header = "Produce the records of a time range again (backfill).",
        description = {
                "",
                "Reads the records whose timestamps are in [--from, --to) from the source topic and writes them "
                        + "to the target topic unchanged: key, value, headers and timestamp, byte for byte. Per "
                        + "partition it starts at the first offset at or after --from (Kafka's offsetsForTimes) and "
                        + "stops at the first record at or after --to, or at the end of the partition as it was when "
                        + "the replay started, so replaying a topic into itself ends. When older readings were "
                        + "written after newer ones (history imported into a live topic), give --scan-to-end.",
                "",
                "Safe to run twice: tspipe identifies a reading by (tenant, device, metric, timestamp), so a "
                        + "reading that arrives again changes no row and no counter.",
                ""
        },
        footerHeading = "%nExamples:%n",
        footer = {
                "  tspipe replay --from 2026-11-30T10:00:00Z --to 2026-11-30T11:00:00Z",
                "                                    an hour of 'readings' into 'readings' again",
                "  tspipe replay --from 2026-11-01T00:00:00Z --to 2026-12-01T00:00:00Z \\",
                "      --source-topic readings-archive",
                "                                    a month from a long-retention archive topic",
                "  tspipe replay --from 1796032800000 --to 1796036400000 --partitions 0,3 \\",
                "      --max-lateness 1m             two partitions; readings up to 1 min late",
                "  tspipe replay --from 2026-01-01T00:00:00Z --to 2026-02-01T00:00:00Z --scan-to-end",
                "                                    January, imported after newer data"
        })
final class ReplayCommand implements Callable<Integer> {

    @Option(names = "--from", paramLabel = "TIME", required = true, converter = EpochMillisConverter.class,
            description = "Start of the range, inclusive: epoch ms or ISO-8601.")
    long from;

    @Option(names = "--to", paramLabel = "TIME", required = true, converter = EpochMillisConverter.class,
            description = "End of the range, exclusive: epoch ms or ISO-8601.")
    long to;

    @Option(names = "--source-topic", paramLabel = "TOPIC", description = "Topic to read (default: the target topic).")
    String sourceTopic;

    @Option(names = "--target-topic", paramLabel = "TOPIC", defaultValue = ReadingProducer.DEFAULT_TOPIC,
            description = "Topic to write (default: ${DEFAULT-VALUE}).")
    String targetTopic;

    @Option(names = "--partitions", paramLabel = "P", split = ",", description = "Source partitions to replay, e.g. 0,1,5 (default: all).")
    List<Integer> partitions = List.of();

    @Option(names = "--max-lateness", paramLabel = "D", defaultValue = "0s", converter = DurationConverter.class,
            description = "How late producers may have sent a reading, such as 1m: the scan of a partition goes on "
                    + "past records up to that much after --to, so late records of the range are found (default: ${DEFAULT-VALUE}).")
    Duration maxLateness;

    @Option(names = "--scan-to-end",
            description = "Read every partition to its end instead of stopping at the first record after the range: "
                    + "exact whatever the order of timestamps, e.g. for history imported after newer data.")
    boolean scanToEnd;

    @Option(names = "--bootstrap-servers", paramLabel = "HOST:PORT[,...]", defaultValue = "127.0.0.1:9092",
            description = "Kafka brokers to connect to (default: ${DEFAULT-VALUE}, the demo's broker).")
    String bootstrapServers;

    @Mixin
    KafkaClientConfig kafkaConfig;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        Replayer.Options options;
        try {
            options = new Replayer.Options(sourceTopic == null ? targetTopic : sourceTopic, targetTopic, from, to, partitions,
                    maxLateness, scanToEnd, true);
        } catch (IllegalArgumentException e) {
            throw new UserError(e.getMessage());
        }
        ReplaySummary summary;
        try {
            summary = new Replayer(kafkaConfig.settings(bootstrapServers)).replay(options);
        } catch (IllegalArgumentException e) {
            throw new UserError(e.getMessage());
        }
        spec.commandLine().getOut().println(summary.describe());
        return summary.failed() == 0 ? 0 : CommandLine.ExitCode.SOFTWARE;
    }
}
