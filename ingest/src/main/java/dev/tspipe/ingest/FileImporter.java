package dev.tspipe.ingest;

import dev.tspipe.schemas.Reading;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * Imports CSV and JSON Lines files (see {@link LineParser}) through a {@link ReadingProducer}.
 *
 * <p>The calling thread reads the files in chunks of lines; worker threads parse a chunk, shuffle
 * its readings and send them. Shuffling matters because history files are usually sorted by time
 * or by device: written in file order, all the writes of a moment would go to the partition of one
 * device after another (Tablestore's parallel-import advice: write in random order across the key
 * range). Within a chunk, the order of readings is therefore not the file's order: a file that
 * holds the same (series, timestamp) twice with different values keeps one of them, not
 * necessarily the last.
 *
 * <p>Every line that is not a reading is written to the rejects file, tab-separated:
 * {@code file, line number, reason, the line as it was}. The file is only created when a line is
 * rejected.
 */
public final class FileImporter {

    private static final Logger log = LoggerFactory.getLogger(FileImporter.class);
    /** Failed sends, without a single success, after which the import stops: the target is unreachable or refuses everything. */
    static final int GIVE_UP_AFTER_FAILURES = 1_000;

    /**
     * How to import.
     *
     * @param format      the format of every file, or {@link FileFormat#AUTO}
     * @param threads     worker threads that parse and send
     * @param chunkLines  lines per chunk, the unit of shuffling
     * @param rejectsFile where rejected lines go
     * @param progressBar whether to draw a progress bar (only drawn on a terminal)
     * @param shuffleSeed seed of the shuffling, for reproducible runs
     */
    public record Options(FileFormat format, int threads, int chunkLines, Path rejectsFile, boolean progressBar, long shuffleSeed) {

        public Options {
            Objects.requireNonNull(format, "format");
            Objects.requireNonNull(rejectsFile, "rejectsFile");
            if (threads < 1) {
                throw new IllegalArgumentException("threads must be at least 1, not " + threads);
            }
            if (chunkLines < 1) {
                throw new IllegalArgumentException("chunk lines must be at least 1, not " + chunkLines);
            }
        }

        /** Automatic format, one thread per core, chunks of 10,000 lines, no progress bar. */
        public static Options defaults(Path rejectsFile) {
            return new Options(FileFormat.AUTO, Runtime.getRuntime().availableProcessors(), 10_000, rejectsFile, false, 1);
        }

        public Options withFormat(FileFormat newFormat) {
            return new Options(newFormat, threads, chunkLines, rejectsFile, progressBar, shuffleSeed);
        }

        public Options withThreads(int newThreads) {
            return new Options(format, newThreads, chunkLines, rejectsFile, progressBar, shuffleSeed);
        }

        public Options withProgressBar(boolean enabled) {
            return new Options(format, threads, chunkLines, rejectsFile, enabled, shuffleSeed);
        }
    }

    private final ReadingProducer producer;
    private final Options options;

    public FileImporter(ReadingProducer producer, Options options) {
        this.producer = Objects.requireNonNull(producer, "producer");
        this.options = Objects.requireNonNull(options, "options");
    }

    /** One chunk of lines of one file. */
    private record Chunk(int index, Path file, LineParser parser, long firstLineNumber, List<String> lines, long bytes) {
    }

    /**
     * Imports the files one after the other and waits until every reading is acknowledged or failed.
     *
     * @throws IOException              when a file cannot be read or the rejects file cannot be written
     * @throws IllegalArgumentException when a CSV file's header is not valid (nothing is imported then)
     * @throws IllegalStateException    when {@value #GIVE_UP_AFTER_FAILURES} readings failed and none was written
     */
    public ImportSummary importFiles(List<Path> files) throws IOException {
        long started = System.nanoTime();
        List<LineParser> parsers = parsers(files, options.format());
        long totalBytes = 0;
        for (Path file : files) {
            totalBytes += Files.size(file);
        }
        AtomicLong lines = new AtomicLong();
        AtomicLong imported = new AtomicLong();
        AtomicLong failed = new AtomicLong();
        AtomicLong rejected = new AtomicLong();
        AtomicInteger chunks = new AtomicInteger();
        ThreadPoolExecutor workers = new ThreadPoolExecutor(options.threads(), options.threads(), 0, TimeUnit.SECONDS,
                new ArrayBlockingQueue<>(options.threads()), new ThreadPoolExecutor.CallerRunsPolicy());
        List<Future<?>> submitted = new ArrayList<>();
        try (Rejects rejects = new Rejects(options.rejectsFile());
             Progress progress = Progress.bar(options.progressBar(), "import", totalBytes, "MiB", 1 << 20)) {
            for (int i = 0; i < files.size(); i++) {
                readChunks(files.get(i), parsers.get(i), chunks, chunk -> submitted.add(workers.submit(() -> {
                    send(chunk, rejects, lines, imported, failed, rejected);
                    progress.stepBy(chunk.bytes());
                    if (rejected.get() > 0 || failed.get() > 0) {
                        progress.note(rejected.get() + " rejected, " + failed.get() + " failed");
                    }
                })));
            }
            workers.shutdown();
            for (Future<?> future : submitted) {
                await(future);
            }
            ImportSummary summary = new ImportSummary(lines.get(), imported.get(), rejected.get(), failed.get(),
                    rejects.written() ? Optional.of(options.rejectsFile()) : Optional.empty(),
                    Duration.ofNanos(System.nanoTime() - started));
            log.info("Import of {} file(s): {}", files.size(), summary.describe());
            return summary;
        } finally {
            workers.shutdownNow();
        }
    }

    /**
     * Checks that every file can be read and, for CSV, has a valid header, without sending
     * anything: what {@link #importFiles} does first. Lets a caller fail before it connects.
     *
     * @throws IOException              when a file cannot be read
     * @throws IllegalArgumentException when a CSV header is not valid
     */
    public static void checkFiles(List<Path> files, FileFormat format) throws IOException {
        parsers(files, format);
    }

    private static List<LineParser> parsers(List<Path> files, FileFormat format) throws IOException {
        List<LineParser> parsers = new ArrayList<>();
        for (Path file : files) {
            if (!Files.isRegularFile(file) || !Files.isReadable(file)) {
                throw new IOException(file + " is not a readable file");
            }
            parsers.add(FileReadings.parserFor(file, format));
        }
        return parsers;
    }

    private void readChunks(Path file, LineParser parser, AtomicInteger chunks, Consumer<Chunk> submit) throws IOException {
        try (BufferedReader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            long lineNumber = 0;
            boolean headerSeen = !FileReadings.hasHeader(parser);
            List<String> lines = new ArrayList<>(options.chunkLines());
            long first = 0;
            long bytes = 0;
            String line;
            while ((line = reader.readLine()) != null) {
                lineNumber++;
                bytes += line.length() + 1;
                if (!headerSeen) {
                    headerSeen = !line.isBlank();
                    continue;
                }
                if (lines.isEmpty()) {
                    first = lineNumber;
                }
                // Blank lines stay in the chunk (the worker skips them), so that line numbers are the file's.
                lines.add(line);
                if (lines.size() == options.chunkLines()) {
                    submit.accept(new Chunk(chunks.getAndIncrement(), file, parser, first, lines, bytes));
                    lines = new ArrayList<>(options.chunkLines());
                    bytes = 0;
                }
            }
            if (!lines.isEmpty() || bytes > 0) {
                submit.accept(new Chunk(chunks.getAndIncrement(), file, parser, first, lines, bytes));
            }
        }
    }

    private void send(Chunk chunk, Rejects rejects, AtomicLong lines, AtomicLong imported, AtomicLong failed, AtomicLong rejected) {
        List<Reading> readings = new ArrayList<>(chunk.lines().size());
        List<String> rejectedLines = new ArrayList<>();
        long lineNumber = chunk.firstLineNumber();
        for (String line : chunk.lines()) {
            if (line.isBlank()) {
                lineNumber++;
                continue;
            }
            lines.incrementAndGet();
            ParseResult result = chunk.parser().parse(lineNumber, line);
            if (result instanceof ParseResult.Parsed parsed) {
                readings.add(parsed.reading());
            } else if (result instanceof ParseResult.Rejected rejection) {
                rejectedLines.add(chunk.file() + "\t" + rejection.lineNumber() + "\t" + rejection.reason() + "\t" + line);
            }
            lineNumber++;
        }
        rejected.addAndGet(rejectedLines.size());
        rejects.write(rejectedLines);
        Collections.shuffle(readings, new Random(options.shuffleSeed() * 31 + chunk.index()));
        List<CompletableFuture<?>> sends = new ArrayList<>(readings.size());
        for (Reading reading : readings) {
            if (imported.get() == 0 && failed.get() >= GIVE_UP_AFTER_FAILURES) {
                throw new IllegalStateException(failed.get() + " readings could not be written and none could: the import "
                        + "stops (the log has the first failures; check the brokers, the schema registry and the topic)");
            }
            sends.add(producer.send(reading).whenComplete((metadata, error) -> {
                if (error == null) {
                    imported.incrementAndGet();
                } else {
                    failed.incrementAndGet();
                }
            }));
        }
        // Waiting per chunk bounds the readings in flight to about threads × chunk size.
        CompletableFuture.allOf(sends.toArray(CompletableFuture[]::new)).handle((ok, error) -> null).join();
    }

    private static void await(Future<?> future) throws IOException {
        try {
            future.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("import interrupted", e);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof UncheckedIOException io) {
                throw io.getCause();
            }
            if (e.getCause() instanceof RuntimeException runtime) {
                throw runtime;
            }
            throw new IOException(e.getCause());
        }
    }

    /** The rejects file, created on the first rejected line; written by all workers. */
    private static final class Rejects implements AutoCloseable {

        private final Path path;
        private BufferedWriter writer;

        Rejects(Path path) {
            this.path = path;
        }

        synchronized void write(List<String> rejectedLines) {
            if (rejectedLines.isEmpty()) {
                return;
            }
            try {
                if (writer == null) {
                    Path parent = path.toAbsolutePath().getParent();
                    if (parent != null) {
                        Files.createDirectories(parent);
                    }
                    writer = Files.newBufferedWriter(path, StandardCharsets.UTF_8);
                }
                for (String line : rejectedLines) {
                    writer.write(line);
                    writer.newLine();
                }
            } catch (IOException e) {
                throw new UncheckedIOException("could not write the rejects file " + path + ": " + e.getMessage(), e);
            }
        }

        synchronized boolean written() {
            return writer != null;
        }

        @Override
        public synchronized void close() throws IOException {
            if (writer != null) {
                writer.close();
            }
        }
    }
}
