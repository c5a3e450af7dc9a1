package dev.tspipe.ingest;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;

/**
 * What an import did.
 *
 * @param lines       data lines read (headers and blank lines not counted)
 * @param imported    readings the broker acknowledged
 * @param rejected    lines that are not readings; each is in the rejects file
 * @param failed      readings that could not be written (broker or registry errors); see the log
 * @param rejectsFile where the rejected lines are, if there were any
 * @param elapsed     wall-clock time of the import
 */
public record ImportSummary(long lines, long imported, long rejected, long failed, Optional<Path> rejectsFile, Duration elapsed) {

    /** Whether every line became a stored reading. */
    public boolean complete() {
        return rejected == 0 && failed == 0;
    }

    /** One line for a user: counts, rate and where the rejects are. */
    public String describe() {
        double seconds = Math.max(elapsed.toMillis(), 1) / 1000.0;
        StringBuilder text = new StringBuilder(String.format("%,d lines: %,d readings imported, %,d rejected, %,d failed in %.1f s (%,.0f readings/s)",
                lines, imported, rejected, failed, seconds, imported / seconds));
        rejectsFile.ifPresent(file -> text.append("; rejected lines are in ").append(file));
        if (failed > 0) {
            text.append("; the log says why writes failed");
        }
        return text.toString();
    }
}
