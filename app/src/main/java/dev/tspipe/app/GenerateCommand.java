package dev.tspipe.app;

import dev.tspipe.ingest.ReadingGenerator;
import dev.tspipe.ingest.ReadingProducer;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.io.PrintWriter;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/** {@code tspipe generate}: synthetic readings at a steady rate, for load and for trying tspipe out. */
@Command(
        name = "generate",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        usageHelpAutoWidth = true,
        header = "Write synthetic sensor readings to Kafka at a steady rate.",
        description = {
                "",
                "Generates devices x metrics series, each a random walk around a plausible value of its metric "
                        + "(temperature in °C, humidity in %%, pressure in hPa, voltage in V, rssi in dBm, ...; the "
                        + "unit is in the tag 'unit'), and writes them with tspipe's producer (key = device id, Avro "
                        + "value, idempotent, acks=all). Event time starts at --start and advances by 1/rate per "
                        + "reading; readings are sent at that rate in wall-clock time. A status line on standard "
                        + "error shows the rate, the total and the errors. Stop it with Ctrl-C, or give --duration.",
                "",
                "The same --seed gives the same readings, so a run can be repeated exactly.",
                ""
        },
        footerHeading = "%nExamples:%n",
        footer = {
                "  tspipe generate --devices 200 --metrics 5 --rate 2000",
                "                                    the demo's load, until Ctrl-C",
                "  tspipe generate --devices 50 --metrics 3 --rate 500 --duration 10m --seed 7",
                "                                    ten minutes, the same readings every time",
                "  tspipe generate --devices 1000 --metrics 2 --rate 5000 \\",
                "      --hot-devices 10 --out-of-order 0.05 --duplicates 0.01",
                "                                    skewed, late and repeated, as fleets send",
                "  tspipe generate --devices 10 --metrics 5 --rate 100 \\",
                "      --start 2026-11-01T00:00:00Z --duration 1h --as-fast-as-possible",
                "                                    an hour of history, as fast as Kafka takes it",
                "  tspipe generate --devices 2000 --metrics 5 --rate 100000 --batch 100",
                "                                    each device's 5 metrics x 20 instants in one record"
        })
final class GenerateCommand implements Callable<Integer> {

    @Option(names = "--devices", paramLabel = "N", required = true, description = "Number of devices.")
    int devices;

    @Option(names = "--metrics", paramLabel = "M", required = true,
            description = "Metrics per device; the series are devices x metrics.")
    int metrics;

    @Option(names = "--rate", paramLabel = "R", required = true, description = "Readings per second (duplicates come on top).")
    double rate;

    @Option(names = "--duration", paramLabel = "D", converter = DurationConverter.class,
            description = "Event time to generate, such as 10m or 2h; then stop (default: until Ctrl-C).")
    Duration duration;

    @Option(names = "--start", paramLabel = "TIME", converter = EpochMillisConverter.class,
            description = "Event time of the first reading: epoch ms or ISO-8601 (default: now).")
    Long start;

    @Option(names = "--out-of-order", paramLabel = "P", defaultValue = "0",
            description = "Share of readings whose timestamp is moved back by up to a minute (default: ${DEFAULT-VALUE}).")
    double outOfOrder;

    @Option(names = "--duplicates", paramLabel = "P", defaultValue = "0",
            description = "Share of readings sent twice (default: ${DEFAULT-VALUE}).")
    double duplicates;

    @Option(names = "--hot-devices", paramLabel = "K", defaultValue = "0",
            description = "K devices get half of all readings between them (default: ${DEFAULT-VALUE}: all devices alike).")
    int hotDevices;

    @Option(names = "--seed", paramLabel = "S", defaultValue = "1", description = "Seed of the random walks and choices (default: ${DEFAULT-VALUE}).")
    long seed;

    @Option(names = "--as-fast-as-possible",
            description = "Do not pace in wall-clock time: write as fast as Kafka accepts (for history with --start and --duration).")
    boolean asFastAsPossible;

    @Option(names = "--topic", paramLabel = "TOPIC", defaultValue = ReadingProducer.DEFAULT_TOPIC,
            description = "Topic to write to (default: ${DEFAULT-VALUE}).")
    String topic;

    @Mixin
    BatchOptions batches;

    @Mixin
    KafkaOptions kafka;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    /** Failed sends, without a single success, after which the generator stops. */
    private static final int GIVE_UP_AFTER_FAILURES = 1_000;

    private volatile boolean stopRequested;

    @Override
    public Integer call() throws InterruptedException {
        ReadingGenerator.Options options;
        try {
            options = ReadingGenerator.Options.of(devices, metrics, rate, start == null ? Instant.now() : Instant.ofEpochMilli(start))
                    .withOutOfOrder(outOfOrder).withDuplicates(duplicates).withHotDevices(hotDevices, 0.5).withSeed(seed);
        } catch (IllegalArgumentException e) {
            throw new UserError(e.getMessage());
        }
        long limit = duration == null ? Long.MAX_VALUE : (long) Math.ceil(duration.toMillis() * rate / 1000.0);
        ReadingGenerator generator = new ReadingGenerator(options);
        PrintWriter err = spec.commandLine().getErr();
        CountDownLatch finished = new CountDownLatch(1);
        StatusLine status = new StatusLine(err);

        try (ProcessLifecycle lifecycle = new ProcessLifecycle();
             ReadingProducer producer = kafka.connectedProducer(topic, batches.producerSettings())) {
            lifecycle.register("generator", () -> {
                stopRequested = true;
                finished.await(30, TimeUnit.SECONDS);
            });
            try {
                long startNanos = System.nanoTime();
                while (!stopRequested && generator.originals() < limit) {
                    if (!asFastAsPossible) {
                        long due = (long) ((System.nanoTime() - startNanos) / 1e9 * rate) + 1;
                        if (generator.originals() >= due) {
                            Thread.sleep(2);
                            status.maybePrint(producer.counts());
                            continue;
                        }
                    }
                    producer.send(generator.next());
                    ReadingProducer.Counts counts = producer.counts();
                    status.maybePrint(counts);
                    if (counts.acknowledged() == 0 && counts.failed() >= GIVE_UP_AFTER_FAILURES) {
                        throw new UserError(counts.failed() + " readings could not be written and none could (the log "
                                + "says why): check the broker at " + kafka.bootstrapServers + " and the schema registry at "
                                + kafka.schemaRegistryUrl);
                    }
                }
                producer.flush();
                status.print(producer.counts());
                err.println();
                err.flush();
            } finally {
                finished.countDown();
            }
            ReadingProducer.Counts counts = producer.counts();
            spec.commandLine().getOut().printf("%,d readings sent to '%s': %,d acknowledged, %,d failed%n",
                    counts.sent(), topic, counts.acknowledged(), counts.failed());
            return counts.failed() == 0 ? 0 : CommandLine.ExitCode.SOFTWARE;
        }
    }

    /** One line on standard error, rewritten in place on a terminal, every second. */
    private static final class StatusLine {

        private final PrintWriter err;
        private final boolean terminal = System.console() != null;
        private final long started = System.nanoTime();
        private long lastPrint = System.nanoTime();
        private long lastSent;

        StatusLine(PrintWriter err) {
            this.err = err;
        }

        void maybePrint(ReadingProducer.Counts counts) {
            long now = System.nanoTime();
            if (now - lastPrint >= (terminal ? 1_000_000_000L : 10_000_000_000L)) {
                double seconds = (now - lastPrint) / 1e9;
                lastPrint = now;
                print(counts, (counts.sent() - lastSent) / seconds);
                lastSent = counts.sent();
            }
        }

        void print(ReadingProducer.Counts counts) {
            print(counts, counts.sent() / Math.max((System.nanoTime() - started) / 1e9, 1e-3));
        }

        private void print(ReadingProducer.Counts counts, double rate) {
            String line = String.format("%,10.0f readings/s   %,12d sent   %,12d acknowledged   %,d errors",
                    rate, counts.sent(), counts.acknowledged(), counts.failed());
            if (terminal) {
                err.print("\r" + line);
            } else {
                err.println(line);
            }
            err.flush();
        }
    }
}
