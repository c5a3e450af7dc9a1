package dev.tspipe.bench.e2e;

import io.questdb.ServerMain;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * QuestDB, embedded, in a JVM of its own, as a tspipe node runs in its own ({@link NodeMain}): the peer column of the
 * end-to-end harness. Its root directory holds its configuration and database; it serves HTTP (SQL over
 * {@code /exec}, ILP over {@code /write}) on 127.0.0.1 only and nothing else. Driven by {@link QuestDbProcess}:
 *
 * <pre>
 * args:   rootDir httpPort logFile
 * stdout: READY | CLOSED
 * stdin:  stop (or end of input)
 * </pre>
 */
public final class QuestDbMain {

    /**
     * QuestDB's defaults but for where it listens and what it does besides: HTTP on the loopback port, no PostgreSQL
     * wire, ILP over TCP or UDP, or health server on ports of its own; no telemetry.
     */
    static List<String> serverConf(int httpPort) {
        return List.of(
                "http.net.bind.to=127.0.0.1:" + httpPort,
                "http.min.enabled=false",
                "pg.enabled=false",
                "line.tcp.enabled=false",
                "line.udp.enabled=false",
                "telemetry.enabled=false");
    }

    /** Its own log goes to {@code logFile}, appended to the JVM's stderr there; problems only, as the nodes log (WARN). */
    static List<String> logConf(Path logFile) {
        return List.of(
                "writers=file",
                "w.file.class=io.questdb.log.LogFileWriter",
                "w.file.location=" + logFile.toAbsolutePath(),
                "w.file.level=ERROR,CRITICAL,ADVISORY");
    }

    private QuestDbMain() {
    }

    public static void main(String[] args) throws IOException {
        Path root = Path.of(args[0]);
        int httpPort = Integer.parseInt(args[1]);
        Path logFile = Path.of(args[2]);
        // QuestDB prints a few lines of its own on stdout; the harness reads only its status lines.
        PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);

        Path conf = Files.createDirectories(root.resolve("conf"));
        Files.write(conf.resolve("server.conf"), serverConf(httpPort), StandardCharsets.UTF_8);
        Files.write(conf.resolve("log.conf"), logConf(logFile), StandardCharsets.UTF_8);
        try (ServerMain server = new ServerMain("-d", root.toString())) {
            server.start();
            out.println("READY");
            BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            String command;
            while ((command = in.readLine()) != null && !command.equals("stop")) {
                out.println("ERROR not a command: " + command);
            }
        }
        out.println("CLOSED");
    }
}
