package dev.tspipe.bench.e2e;

import dev.tspipe.bench.ChildJvm;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Collectors;

/**
 * The harness's side of a {@link QueryLoadMain} child JVM: a small heap and the serial collector, so that the client
 * adds as little as it can to the latencies it measures (its allocation is a few objects per request; with 64 workers
 * it rarely collects at all).
 */
final class QueryLoadProcess implements AutoCloseable {

    static final List<String> JVM_OPTIONS = List.of("-Xms256m", "-Xmx256m", "-XX:+UseSerialGC");

    private final ChildJvm jvm;
    private final Path uriFile;
    /** Beside {@link #uriFile}: the URIs of a step's floor requests. */
    private final Path floorFile;

    private QueryLoadProcess(ChildJvm jvm, Path uriFile) {
        this.jvm = jvm;
        this.uriFile = uriFile;
        this.floorFile = uriFile.resolveSibling(uriFile.getFileName() + ".floor");
    }

    static QueryLoadProcess start(Path logFile, Path uriFile) {
        return new QueryLoadProcess(ChildJvm.startReady("query-load", JVM_OPTIONS, logFile, QueryLoadMain.class, List.of(),
                "READY", Duration.ofSeconds(60)), uriFile);
    }

    /** {@link QueryLoad#run}, in the child. */
    QueryLoad.Result run(List<URI> uris, List<URI> floorUris, int rate, Duration duration) {
        write(uriFile, uris);
        if (!floorUris.isEmpty()) {
            write(floorFile, floorUris);
        }
        jvm.send("RUN " + rate + " " + duration.toSeconds() + " " + uriFile + " " + (floorUris.isEmpty() ? "-" : floorFile));
        String[] r = jvm.await("RESULT", duration.plusSeconds(60)).split(" ");
        QueryLoad.Floor floor = r.length < 12 ? null : new QueryLoad.Floor(Long.parseLong(r[6]), Long.parseLong(r[7]),
                Double.parseDouble(r[8]), Double.parseDouble(r[9]), Double.parseDouble(r[10]), Double.parseDouble(r[11]));
        return new QueryLoad.Result(Long.parseLong(r[0]), Long.parseLong(r[1]), Double.parseDouble(r[2]),
                Double.parseDouble(r[3]), Double.parseDouble(r[4]), Double.parseDouble(r[5]), floor);
    }

    QueryLoad.Result run(List<URI> uris, int rate, Duration duration) {
        return run(uris, List.of(), rate, duration);
    }

    private static void write(Path file, List<URI> uris) {
        try {
            Files.writeString(file, uris.stream().map(URI::toString).collect(Collectors.joining("\n")), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the query URIs to " + file, e);
        }
    }

    @Override
    public void close() {
        jvm.stop(Duration.ofSeconds(10));
        try {
            Files.deleteIfExists(uriFile);
            Files.deleteIfExists(floorFile);
        } catch (IOException e) {
            // A temporary file left behind; the run's results do not depend on it.
        }
    }
}
