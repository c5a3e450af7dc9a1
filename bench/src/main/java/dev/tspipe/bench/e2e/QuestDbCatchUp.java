package dev.tspipe.bench.e2e;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tspipe.embedded.FreePorts;
import io.questdb.client.Sender;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.stream.Stream;

import static dev.tspipe.bench.e2e.EndToEndBenchmark.directoryBytes;
import static dev.tspipe.bench.e2e.EndToEndBenchmark.loadAverage;
import static dev.tspipe.bench.e2e.EndToEndBenchmark.perSecond;
import static dev.tspipe.bench.e2e.EndToEndBenchmark.processCpuNanos;
import static dev.tspipe.bench.e2e.EndToEndBenchmark.round;
import static dev.tspipe.bench.e2e.EndToEndBenchmark.seconds;

/**
 * The harness's peer column (docs/benchmarks.md): the user's alternative to tspipe, QuestDB, given the same readings.
 * QuestDB runs embedded in a JVM of its own ({@link QuestDbMain}) on an empty root directory; the table is created
 * first ({@link QuestDbTable}); then one ILP/HTTP {@link Sender} in the harness's JVM, with the client's defaults,
 * writes every reading, and the harness asks {@code select count() from readings} over HTTP until it sees every
 * row: the readings are queryable (their WAL applied). Then the server stops and the table's directory is measured.
 */
final class QuestDbCatchUp {

    /** How often the count is asked: a small share of the catch-up, and next to nothing for the server (the count is in the table's metadata). */
    private static final Duration POLL = Duration.ofMillis(50);

    private final List<String> jvmOptions;
    private final Path logFile;
    private final Duration timeout;

    /**
     * @param jvmOptions the child JVM's options: the nodes' ({@code --node-jvm-opts}), so that the two are compared alike
     * @param timeout    longest time from the first row sent until every row is counted; then the rate is of what was counted
     */
    QuestDbCatchUp(List<String> jvmOptions, Path logFile, Duration timeout) {
        this.jvmOptions = jvmOptions;
        this.logFile = logFile;
        this.timeout = timeout;
    }

    /** Runs QuestDB on {@code root} (deleted afterwards), writes {@code rows} and returns the figures. */
    Map<String, Object> run(ReadingRows rows, Path root) {
        QuestDbTable table = QuestDbTable.forTagKeys(rows.tagKeys());
        // Readings of the same series and millisecond are one row (DEDUP UPSERT KEYS): the count QuestDB reaches.
        long expected = rows.distinctKeys();
        Map<String, Object> figures = new LinkedHashMap<>();
        int port = FreePorts.next();
        Path tableDir;
        try (QuestDbProcess server = QuestDbProcess.start(jvmOptions, logFile, root, port)) {
            QuestDbHttp sql = new QuestDbHttp(port);
            String ddl = table.createStatement();
            sql.exec(ddl);
            tableDir = root.resolve("db").resolve(sql.single("select directoryName from tables() where table_name = '"
                    + QuestDbTable.NAME + "'").asText());
            figures.put("version", version());
            figures.put("table", ddl);

            String load = loadAverage();
            long serverCpu = server.cpuNanos();
            long harnessCpu = processCpuNanos();
            long start = System.nanoTime();
            try (Sender sender = Sender.fromConfig("http::addr=127.0.0.1:" + port + ";")) {
                QuestDbTable.append(sender, rows);
                sender.flush();
            }
            long sent = System.nanoTime();
            Count count = awaitCount(sql, expected, start + timeout.toNanos());
            long end = count.nanoTime();
            long serverCpuUsed = server.cpuNanos() - serverCpu;
            long harnessCpuUsed = processCpuNanos() - harnessCpu;
            JsonNode wal = sql.exec("select suspended, writerTxn, sequencerTxn from wal_tables() where name = '"
                    + QuestDbTable.NAME + "'").path("dataset").path(0);

            figures.put("rowsSent", rows.size());
            figures.put("distinctKeys", expected);
            figures.put("rowsCounted", count.rows());
            figures.put("queryable", count.rows() == expected);
            figures.put("sendSeconds", seconds(sent - start));
            figures.put("secondsUntilQueryable", seconds(end - start));
            figures.put("rowsPerSecondUntilQueryable", perSecond(count.rows() == expected ? rows.size() : count.rows(), end - start));
            figures.put("secondsFromLastAcknowledgementToQueryable", seconds(end - sent));
            figures.put("countPolls", count.polls());
            figures.put("countPollsRefused", count.refused());
            if (count.lastRefusal() != null) {
                figures.put("lastRefusal", count.lastRefusal());
            }
            figures.put("walSuspended", wal.path(0).asBoolean());
            figures.put("walWriterTxn", wal.path(1).asLong());
            figures.put("walSequencerTxn", wal.path(2).asLong());
            figures.put("cpuSeconds", seconds(serverCpuUsed));
            figures.put("cpuMicrosPerRow", round(serverCpuUsed / 1_000.0 / Math.max(1, rows.size()), 2));
            figures.put("senderCpuSeconds", seconds(harnessCpuUsed));
            figures.put("peakRssMiB", round(server.peakRssKb() / 1024.0, 1));
            figures.put("loadAverageBefore", load);
            figures.put("loadAverageAfter", loadAverage());
            server.stop();
        }
        long tableBytes = directoryBytes(tableDir);
        long walBytes = walBytes(tableDir);
        figures.put("tableBytes", tableBytes);
        figures.put("walBytes", walBytes);
        figures.put("bytesPerRow", round(tableBytes / (double) Math.max(1, expected), 1));
        figures.put("bytesPerRowWithoutWal", round((tableBytes - walBytes) / (double) Math.max(1, expected), 1));
        EndToEndBenchmark.deleteRecursively(root);
        return figures;
    }

    /** The QuestDB release on the class path, from its Maven metadata (its manifest does not survive the shaded jar). */
    static String version() {
        try (InputStream in = QuestDbCatchUp.class.getResourceAsStream("/META-INF/maven/org.questdb/questdb/pom.properties")) {
            if (in == null) {
                return "unknown";
            }
            Properties properties = new Properties();
            properties.load(in);
            return properties.getProperty("version", "unknown");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read QuestDB's Maven metadata", e);
        }
    }

    private record Count(long rows, long nanoTime, int polls, int refused, String lastRefusal) {
    }

    /**
     * Asks the count until it is {@code expected} or the deadline passes. A refused query is asked again: QuestDB refuses
     * a cached plan while the WAL apply changes the table's metadata (its symbol columns grow), as a client would see it.
     */
    private static Count awaitCount(QuestDbHttp sql, long expected, long deadline) {
        long rows = 0;
        int polls = 0;
        int refused = 0;
        String lastRefusal = null;
        while (true) {
            polls++;
            try {
                rows = sql.single("select count() from " + QuestDbTable.NAME).asLong();
            } catch (QuestDbHttp.Refused e) {
                refused++;
                lastRefusal = e.getMessage();
            }
            long now = System.nanoTime();
            if (rows >= expected || now > deadline) {
                return new Count(rows, now, polls, refused, lastRefusal);
            }
            try {
                Thread.sleep(POLL.toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted", e);
            }
        }
    }

    /**
     * Bytes of the table's write-ahead log: its WAL segments ({@code wal<N>/}) and the sequencer's transaction log
     * ({@code txn_seq/}). QuestDB purges applied segments in the background; what it had not purged when it stopped is
     * still on disk, and in the table's bytes.
     */
    private static long walBytes(Path tableDir) {
        try (Stream<Path> children = Files.list(tableDir)) {
            return children.filter(Files::isDirectory)
                    .filter(dir -> dir.getFileName().toString().matches("wal\\d+|txn_seq"))
                    .mapToLong(EndToEndBenchmark::directoryBytes).sum();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list " + tableDir, e);
        }
    }
}
