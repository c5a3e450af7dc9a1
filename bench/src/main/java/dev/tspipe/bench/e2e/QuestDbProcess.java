package dev.tspipe.bench.e2e;

import dev.tspipe.bench.ChildJvm;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The harness's side of a {@link QuestDbMain} child JVM: starts it with the harness's class path and the nodes' JVM
 * options, waits until it serves HTTP, and reads its CPU time and peak RSS from the OS.
 */
final class QuestDbProcess implements AutoCloseable {

    /**
     * What QuestDB's own launcher passes besides the heap: its number formatting calls into {@code jdk.internal.math}
     * (the jar's {@code META-INF/jpms.args}); on the class path it is in the unnamed module.
     */
    static final List<String> REQUIRED_JVM_OPTIONS = List.of("--add-exports", "java.base/jdk.internal.math=ALL-UNNAMED");

    private final ChildJvm jvm;

    private QuestDbProcess(ChildJvm jvm) {
        this.jvm = jvm;
    }

    /** Starts the server on {@code root} with HTTP on {@code httpPort}; returns once it serves. Its log goes to {@code logFile}. */
    static QuestDbProcess start(List<String> jvmOptions, Path logFile, Path root, int httpPort) {
        List<String> options = new ArrayList<>(jvmOptions);
        options.addAll(REQUIRED_JVM_OPTIONS);
        return new QuestDbProcess(ChildJvm.startReady("questdb", options, logFile, QuestDbMain.class,
                List.of(root.toString(), Integer.toString(httpPort), logFile.toString()), "READY", Duration.ofSeconds(60)));
    }

    /** CPU time (user + system) the child has used so far. */
    long cpuNanos() {
        return jvm.cpuNanos();
    }

    long peakRssKb() {
        return ProcessMemory.peakRssKb(jvm.pid());
    }

    /** Closes the server (its files synced and unmapped) and waits for the process to end. */
    void stop() {
        jvm.send("stop");
        jvm.await("CLOSED", Duration.ofSeconds(90));
        jvm.waitFor(Duration.ofSeconds(30));
    }

    @Override
    public void close() {
        jvm.terminate(Duration.ofSeconds(20));
    }
}
