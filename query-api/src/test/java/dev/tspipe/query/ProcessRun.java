package dev.tspipe.query;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** A command's exit status and output (a real client: promtool, Python); {@link #toString} is an assertion's description. */
record ProcessRun(List<String> command, int exit, String stdout, String stderr) {

    /**
     * Runs {@code command} to its end, its output in files of {@code dir} (not pipes: a full pipe would block it while
     * this thread waits); an {@link AssertionError} with its output when it runs longer than {@code timeout}.
     */
    static ProcessRun of(Path dir, Duration timeout, List<String> command) throws Exception {
        Path stdout = Files.createTempFile(dir, "command", ".out");
        Path stderr = Files.createTempFile(dir, "command", ".err");
        Process process = new ProcessBuilder(command).redirectOutput(stdout.toFile()).redirectError(stderr.toFile()).start();
        if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            throw new AssertionError(String.join(" ", command) + " did not finish within " + timeout.toSeconds()
                    + " s; stdout:\n" + Files.readString(stdout) + "stderr:\n" + Files.readString(stderr));
        }
        return new ProcessRun(command, process.exitValue(), Files.readString(stdout), Files.readString(stderr));
    }

    @Override
    public String toString() {
        return String.join(" ", command) + ": exit " + exit + "\nstdout:\n" + stdout + "stderr:\n" + stderr;
    }
}
