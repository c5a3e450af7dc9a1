package dev.tspipe.bench.e2e;

import dev.tspipe.bench.ChildJvm;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * The harness's side of a {@link NodeMain} child JVM: starts it with the harness's own class
 * path, waits for its status lines, and reads its CPU time and peak RSS from the OS.
 */
final class NodeProcess implements AutoCloseable {

    /** What the child reported when it closed. */
    record Closed(long cpuNanos, long peakRssKb, long droppedRecords) {
    }

    private final ChildJvm jvm;

    private NodeProcess(ChildJvm jvm) {
        this.jvm = jvm;
    }

    /**
     * Starts a child JVM; its log (stderr) goes to {@code logFile}. Returns once it has started
     * Kafka Streams.
     */
    static NodeProcess start(String name, List<String> jvmOptions, Path logFile, String mode, String bootstrap,
                             String registryUrl, String applicationId, Path stateDir, String inputTopic, String dlqTopic,
                             int threads, int httpPort, Path jfrFile, Duration grace) {
        return new NodeProcess(ChildJvm.startReady(name, jvmOptions, logFile, NodeMain.class, List.of(mode, bootstrap,
                registryUrl, applicationId, stateDir.toString(), inputTopic, dlqTopic, Integer.toString(threads),
                Integer.toString(httpPort), jfrFile == null ? "-" : jfrFile.toString(), Long.toString(grace.toSeconds())),
                "STARTED", Duration.ofSeconds(60)));
    }

    /** CPU time (user + system) the child has used so far. */
    long cpuNanos() {
        return jvm.cpuNanos();
    }

    long peakRssKb() {
        return ProcessMemory.peakRssKb(jvm.pid());
    }

    /** Waits for a status line starting with {@code prefix}; returns the rest of it. */
    String await(String prefix, Duration timeout) {
        return jvm.await(prefix, timeout);
    }

    /** Stops the JFR recording and waits until it is written. */
    void stopProfile() {
        jvm.send("jfr-stop");
        await("JFR-DONE", Duration.ofSeconds(60));
    }

    /**
     * The stream threads' time split since start (or the previous call), from Kafka Streams' thread metrics:
     * name to average ({@code poll-ratio}, {@code process-ratio}, {@code commit-ratio}, {@code commit-latency-avg}, ...).
     */
    java.util.Map<String, Double> threadTime() {
        jvm.send("thread-time");
        java.util.Map<String, Double> averages = new java.util.TreeMap<>();
        for (String pair : await("THREAD-TIME", Duration.ofSeconds(30)).trim().split(" ")) {
            if (!pair.isEmpty()) {
                String[] nameValue = pair.split("=", 2);
                averages.put(nameValue[0], Double.parseDouble(nameValue[1]));
            }
        }
        return averages;
    }

    /** Closes the application (leaving the group) and waits for the process to end. */
    Closed stop() {
        jvm.send("stop");
        String[] parts = await("CLOSED", Duration.ofSeconds(90)).split(" ");
        jvm.waitFor(Duration.ofSeconds(30));
        return new Closed(Long.parseLong(parts[0]), Long.parseLong(parts[1]), Long.parseLong(parts[2]));
    }

    /** SIGKILL: the process ends without closing anything (as a crash would), and this waits until it has. */
    void kill() {
        jvm.kill();
        jvm.waitFor(Duration.ofSeconds(30));
    }

    @Override
    public void close() {
        jvm.terminate(Duration.ofSeconds(20));
    }
}
