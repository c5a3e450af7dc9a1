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
 * {@link QueryLoadProcess} through stdin: {@code RUN <rate> <seconds> <file of URIs> <file of floor URIs, or ->}
 * answers {@code RESULT <requests> <errors> <p50> <p99> <p99.9> <max>} (milliseconds), followed by the same six
 * figures of the floor requests when there were some; {@code stop} or end of input exits.
 */
public final class QueryLoadMain {

    private QueryLoadMain() {
    }

    private static List<URI> uris(String file) throws IOException {
        return Files.readAllLines(Path.of(file), StandardCharsets.UTF_8).stream().filter(line -> !line.isBlank()).map(URI::create).toList();
    }

    public static void main(String[] args) throws IOException {
        PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        QueryLoad load = new QueryLoad();
        out.println("READY");
        String command;
        while ((command = in.readLine()) != null && !command.equals("stop")) {
            String[] words = command.split(" ");
            if (words.length != 5 || !words[0].equals("RUN")) {
                out.println("ERROR not a command: " + command);
                continue;
            }
            List<URI> uris = uris(words[3]);
            List<URI> floor = words[4].equals("-") ? List.of() : uris(words[4]);
            QueryLoad.Result r = load.run(uris, floor, Integer.parseInt(words[1]), Duration.ofSeconds(Long.parseLong(words[2])));
            QueryLoad.Floor f = r.floor();
            out.println("RESULT " + r.requests() + " " + r.errors() + " " + r.p50Ms() + " " + r.p99Ms() + " " + r.p999Ms()
                    + " " + r.maxMs() + (f == null ? "" : " " + f.requests() + " " + f.errors() + " " + f.p50Ms() + " "
                    + f.p99Ms() + " " + f.p999Ms() + " " + f.maxMs()));
        }
    }
}
