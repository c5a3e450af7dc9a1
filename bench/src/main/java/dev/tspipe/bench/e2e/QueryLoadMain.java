package dev.tspipe.bench.e2e;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * The query phase's load generator ({@link QueryLoad}) in a JVM of its own, so that the latencies it measures carry
 * none of the pauses of the harness's JVM (the broker, the registry, the ingest producer). Driven by
 * {@link QueryLoadProcess} through stdin: {@code RUN <rate> <seconds> <file of URIs>} answers
 * {@code RESULT <requests> <errors> <p50> <p99> <p99.9> <max>} (milliseconds); {@code stop} or end of input exits.
 */
public final class QueryLoadMain {

    private QueryLoadMain() {
    }

    public static void main(String[] args) throws IOException {
        PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        QueryLoad load = new QueryLoad();
        out.println("READY");
        String command;
        while ((command = in.readLine()) != null && !command.equals("stop")) {
            String[] words = command.split(" ");
            if (words.length != 4 || !words[0].equals("RUN")) {
                out.println("ERROR not a command: " + command);
                continue;
            }
            List<URI> uris = Files.readAllLines(Path.of(words[3]), StandardCharsets.UTF_8).stream()
                    .filter(line -> !line.isBlank()).map(URI::create).toList();
            QueryLoad.Result r = load.run(uris, Integer.parseInt(words[1]), Duration.ofSeconds(Long.parseLong(words[2])));
            out.println("RESULT " + r.requests() + " " + r.errors() + " " + r.p50Ms() + " " + r.p99Ms() + " " + r.p999Ms()
                    + " " + r.maxMs());
        }
    }
}
