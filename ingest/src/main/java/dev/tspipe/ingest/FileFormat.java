package dev.tspipe.ingest;

import java.nio.file.Path;
import java.util.Locale;

/** The format of an input file. */
public enum FileFormat {
    /** By file name ({@code .csv}; {@code .jsonl}, {@code .ndjson}, {@code .json}), else by the first line ({@code {} starts JSON). */
    AUTO,
    /** Comma-separated values with a header line. */
    CSV,
    /** One JSON object per line. */
    JSONL;

    /** The concrete format of a file, given its first non-blank line. */
    public FileFormat resolve(Path file, String firstLine) {
        if (this != AUTO) {
            return this;
        }
        String name = file.getFileName() == null ? "" : file.getFileName().toString().toLowerCase(Locale.ROOT);
        if (name.endsWith(".csv")) {
            return CSV;
        }
        if (name.endsWith(".jsonl") || name.endsWith(".ndjson") || name.endsWith(".json")) {
            return JSONL;
        }
        return firstLine != null && firstLine.stripLeading().startsWith("{") ? JSONL : CSV;
    }
}
