package dev.tspipe.bench.e2e;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** Peak resident set size of a process, from Linux's {@code /proc/<pid>/status}. */
final class ProcessMemory {

    private ProcessMemory() {
    }

    /** {@code VmHWM} in KiB: the largest RSS the process has had; -1 if the process is gone or this is not Linux. */
    static long peakRssKb(long pid) {
        Path status = Path.of("/proc", Long.toString(pid), "status");
        try {
            for (String line : Files.readAllLines(status)) {
                if (line.startsWith("VmHWM:")) {
                    return Long.parseLong(line.substring(6).replace("kB", "").trim());
                }
            }
            return -1;
        } catch (IOException e) {
            if (Files.exists(status)) {
                throw new UncheckedIOException("cannot read " + status, e);
            }
            return -1;
        }
    }
}
