package dev.tspipe.bench;

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
 * A child JVM started with the harness's class path: one main class that reports its state as
 * lines on stdout and stops on {@code stop} (or the end of stdin). Its stderr (the log) is appended
 * to a file. {@link #kill()} is SIGKILL: {@link Process#destroyForcibly()} on Linux.
 */
public final class ChildJvm implements AutoCloseable {

    private final String name;
    private final Process process;
    private final Writer stdin;
    private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();

    private ChildJvm(String name, Process process) {
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
                // The child is gone; EXITED below says so.
            }
            lines.add("EXITED");
        }, name + "-stdout");
        reader.setDaemon(true);
        reader.start();
    }

    /**
     * Starts a child as {@link #start} does and waits for its status line starting with {@code ready}; a child that does
     * not say it within {@code timeout}, or exits first, is terminated and the failure rethrown.
     */
    public static ChildJvm startReady(String name, List<String> jvmOptions, Path logFile, Class<?> mainClass,
                                      List<String> args, String ready, Duration timeout) {
        ChildJvm jvm = start(name, jvmOptions, logFile, mainClass, args);
        try {
            jvm.await(ready, timeout);
        } catch (RuntimeException e) {
            jvm.terminate(Duration.ofSeconds(20));
            throw e;
        }
        return jvm;
    }

    public static ChildJvm start(String name, List<String> jvmOptions, Path logFile, Class<?> mainClass, List<String> args) {
        List<String> command = new ArrayList<>();
        command.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(jvmOptions);
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(mainClass.getName());
        command.addAll(args);
        try {
            Process process = new ProcessBuilder(command)
                    .redirectError(ProcessBuilder.Redirect.appendTo(logFile.toFile()))
                    .start();
            return new ChildJvm(name, process);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start the " + name + " JVM", e);
        }
    }

    public String name() {
        return name;
    }

    public long pid() {
        return process.pid();
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    /**
     * Waits for a status line starting with {@code prefix}, skipping others; returns the rest of it.
     *
     * @throws IllegalStateException if the child exits or says nothing of the kind within {@code timeout}
     */
    public String await(String prefix, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        try {
            while (true) {
                long left = deadline - System.nanoTime();
                String line = left > 0 ? lines.poll(left, TimeUnit.NANOSECONDS) : null;
                if (line == null) {
                    throw new IllegalStateException(name + ": no '" + prefix + "' within " + timeout.toSeconds() + " s (see its log)");
                }
                if (line.startsWith(prefix)) {
                    return line.substring(prefix.length()).trim();
                }
                if (line.equals("EXITED")) {
                    lines.add(line);
                    throw new IllegalStateException(name + " exited (code " + exitCode() + ") before '" + prefix + "' (see its log)");
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for " + name, e);
        }
    }

    /** CPU time (user + system) the child has used so far; -1 when the OS does not tell. */
    public long cpuNanos() {
        return process.toHandle().info().totalCpuDuration().map(Duration::toNanos).orElse(-1L);
    }

    /** Writes one command line to the child's stdin. */
    public void send(String command) {
        try {
            stdin.write(command + "\n");
            stdin.flush();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot talk to " + name, e);
        }
    }

    /** Waits up to {@code timeout} for the child to exit; whether it did. */
    public boolean waitFor(Duration timeout) {
        try {
            return process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** SIGTERM, then SIGKILL if the child has not exited within {@code timeout}. */
    public void terminate(Duration timeout) {
        if (process.isAlive()) {
            process.destroy();
            if (!waitFor(timeout)) {
                kill();
            }
        }
    }

    /** SIGKILL, then waits until the process is gone, so that its ports and file locks are free. */
    public void kill() {
        process.destroyForcibly();
        try {
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                throw new IllegalStateException(name + " (pid " + pid() + ") still runs 30 s after SIGKILL");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while killing " + name, e);
        }
    }

    /** Asks the child to stop cleanly; SIGKILL if it has not exited within {@code timeout}. */
    public void stop(Duration timeout) {
        if (!process.isAlive()) {
            return;
        }
        try {
            stdin.write("stop\n");
            stdin.flush();
        } catch (IOException e) {
            // Its stdin is closed: it is exiting anyway.
        }
        try {
            if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                kill();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            kill();
        }
    }

    private String exitCode() {
        try {
            return process.waitFor(1, TimeUnit.SECONDS) ? Integer.toString(process.exitValue()) : "unknown";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "unknown";
        }
    }

    @Override
    public void close() {
        if (process.isAlive()) {
            kill();
        }
    }
}
