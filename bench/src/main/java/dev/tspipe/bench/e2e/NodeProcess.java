package dev.tspipe.bench.e2e;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * The harness's side of a {@link NodeMain} child JVM: starts it with the harness's own class
 * path, waits for its status lines, and reads its CPU time and peak RSS from the OS.
 */
final class NodeProcess implements AutoCloseable {

    /** What the child reported when it closed. */
    record Closed(long cpuNanos, long peakRssKb, long droppedRecords) {
    }

    private final String name;
    private final Process process;
    private final Writer stdin;
    private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();

    private NodeProcess(String name, Process process) {
        this.name = name;
        this.process = process;
        this.stdin = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
        Thread reader = new Thread(() -> {
            try (BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = out.readLine()) != null) {
                    lines.add(line);
                }
            } catch (IOException e) {
                lines.add("EXITED " + e.getMessage());
            }
            lines.add("EXITED");
        }, "node-" + name + "-stdout");
        reader.setDaemon(true);
        reader.start();
    }

    /**
     * Starts a child JVM; its log (stderr) goes to {@code logFile}. Returns once it has started
     * Kafka Streams.
     */
    static NodeProcess start(String name, List<String> jvmOptions, Path logFile, String mode, String bootstrap,
                             String registryUrl, String applicationId, Path stateDir, String inputTopic, String dlqTopic,
                             int threads, int httpPort, Path jfrFile, Duration grace) {
        List<String> command = new ArrayList<>();
        command.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(jvmOptions);
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(NodeMain.class.getName());
        command.addAll(List.of(mode, bootstrap, registryUrl, applicationId, stateDir.toString(), inputTopic, dlqTopic,
                Integer.toString(threads), Integer.toString(httpPort), jfrFile == null ? "-" : jfrFile.toString(),
                Long.toString(grace.toSeconds())));
        try {
            Process process = new ProcessBuilder(command)
                    .redirectError(ProcessBuilder.Redirect.appendTo(logFile.toFile()))
                    .start();
            NodeProcess node = new NodeProcess(name, process);
            node.await("STARTED", Duration.ofSeconds(60));
            return node;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start the " + name + " JVM", e);
        }
    }

    long pid() {
        return process.pid();
    }

    /** CPU time (user + system) the child has used so far. */
    long cpuNanos() {
        return process.toHandle().info().totalCpuDuration().map(Duration::toNanos).orElse(-1L);
    }

    long peakRssKb() {
        return ProcessMemory.peakRssKb(process.pid());
    }

    /** Waits for a status line starting with {@code prefix}; returns the rest of it. */
    String await(String prefix, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        try {
            while (true) {
                long left = deadline - System.nanoTime();
                String line = left > 0 ? lines.poll(left, TimeUnit.NANOSECONDS) : null;
                if (line == null) {
                    throw new IllegalStateException(name + ": no '" + prefix + "' within " + timeout + " (see its log)");
                }
                if (line.startsWith(prefix)) {
                    return line.substring(prefix.length()).trim();
                }
                if (line.startsWith("EXITED")) {
                    throw new IllegalStateException(name + " exited before '" + prefix + "' (see its log)");
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for " + name, e);
        }
    }

    void send(String command) {
        try {
            stdin.write(command + "\n");
            stdin.flush();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot talk to " + name, e);
        }
    }

    /** Stops the JFR recording and waits until it is written. */
    void stopProfile() {
        send("jfr-stop");
        await("JFR-DONE", Duration.ofSeconds(60));
    }

    /** Closes the application (leaving the group) and waits for the process to end. */
    Closed stop() {
        send("stop");
        String[] parts = await("CLOSED", Duration.ofSeconds(90)).split(" ");
        try {
            process.waitFor(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return new Closed(Long.parseLong(parts[0]), Long.parseLong(parts[1]), Long.parseLong(parts[2]));
    }

    @Override
    public void close() {
        if (process.isAlive()) {
            process.destroy();
            try {
                if (!process.waitFor(20, TimeUnit.SECONDS)) {
                    process.destroyForcibly();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                process.destroyForcibly();
            }
        }
    }
}
