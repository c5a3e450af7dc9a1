package dev.tspipe.app;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The packaged {@code tspipe.jar} run as a user runs it: a separate JVM, its standard output read
 * line by line (always drained, so it never blocks on a full pipe), stopped with SIGTERM.
 */
final class JarProcess implements AutoCloseable {

    private final String name;
    private final Process process;
    private final Path log;
    private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
    private final long startNanos = System.nanoTime();
    private long sigtermNanos;

    private JarProcess(String name, Process process, Path log) {
        this.name = name;
        this.process = process;
        this.log = log;
        Thread reader = new Thread(() -> {
            try (BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line = out.readLine(); line != null; line = out.readLine()) {
                    lines.add(line);
                }
            } catch (IOException e) {
                lines.add("(standard output unreadable: " + e + ")");
            }
        }, name + "-stdout");
        reader.setDaemon(true);
        reader.start();
    }

    /** {@code java -jar tspipe.jar <args>}, its standard error (the logs) to this test's, into {@code log} when given. */
    static JarProcess start(String name, Path log, String... args) {
        String jar = System.getProperty("tspipe.jar");
        assertThat(jar).as("failsafe passes the packaged jar's path").isNotBlank();
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx512m", "-jar", jar));
        command.addAll(List.of(args));
        ProcessBuilder builder = new ProcessBuilder(command);
        builder.redirectError(log == null ? ProcessBuilder.Redirect.INHERIT : ProcessBuilder.Redirect.appendTo(log.toFile()));
        try {
            return new JarProcess(name, builder.start(), log);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start " + command, e);
        }
    }

    /** The first line of standard output that contains {@code text}; fails if the process exits or the time runs out first. */
    String awaitLineContaining(String text, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            String line = lines.poll(100, TimeUnit.MILLISECONDS);
            if (line != null && line.contains(text)) {
                return line;
            }
            if (line == null && !process.isAlive() && lines.isEmpty()) {
                throw new AssertionError(name + " exited (code " + process.exitValue() + ") without printing '" + text + "'"
                        + logTail());
            }
        }
        throw new AssertionError(name + " did not print '" + text + "' within " + timeout + logTail());
    }

    /** The last lines of the process's log, for a failure message (the log itself is in a temporary folder, gone after the test). */
    private String logTail() {
        if (log == null) {
            return "";
        }
        try {
            List<String> all = Files.readAllLines(log, StandardCharsets.UTF_8);
            return "; the last lines of its log:\n" + String.join("\n", all.subList(Math.max(0, all.size() - 40), all.size()));
        } catch (IOException e) {
            return "; its log " + log + " is unreadable: " + e;
        }
    }

    /**
     * Sends SIGTERM and waits until the process has exited, with no child left; returns its exit code.
     * How long it took is printed, not asserted.
     */
    int stopWithSigterm(Duration hangGuard) throws InterruptedException {
        sigterm();
        return awaitExit(hangGuard);
    }

    /** Sends SIGTERM and returns at once; {@link #awaitExit} waits for its end. */
    void sigterm() {
        sigtermNanos = System.nanoTime();
        process.destroy(); // SIGTERM on Unix
    }

    /** Waits until the process (sent SIGTERM, or ending by itself) has exited, with no child left; returns its exit code. */
    int awaitExit(Duration hangGuard) throws InterruptedException {
        boolean exited = process.waitFor(hangGuard.toMillis(), TimeUnit.MILLISECONDS);
        String since = sigtermNanos != 0 ? "SIGTERM" : "its start";
        long tookMs = (System.nanoTime() - (sigtermNanos != 0 ? sigtermNanos : startNanos)) / 1_000_000;
        assertThat(exited).as("%s exited (gave up %s after %s)", name, hangGuard, since).isTrue();
        assertThat(process.descendants().filter(ProcessHandle::isAlive)).as("no child process left").isEmpty();
        System.out.printf("%s stopped %d ms after %s, exit code %d%n", name, tookMs, since, process.exitValue());
        return process.exitValue();
    }

    boolean isAlive() {
        return process.isAlive();
    }

    /** Kills what is left (a failed test). */
    @Override
    public void close() {
        process.destroyForcibly();
    }
}
