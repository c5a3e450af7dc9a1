package dev.tspipe.ingest;

import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The readings of a CSV or JSON Lines file as {@code tspipe import} reads them: the format by name or first line,
 * the CSV header checked before any line is parsed, blank lines skipped. {@link FileImporter} parses chunks of
 * lines on worker threads; {@link #forEach} parses one line after the other on the calling thread, for tools that
 * look at a file's readings without sending them ({@code tspipe keys analyze}).
 */
public final class FileReadings {

    /** Receives the result of each line in file order. */
    @FunctionalInterface
    public interface LineVisitor {
        /**
         * @param result    the reading of the line, or why it is none
         * @param charsRead characters read since the previous call (blank lines and the header included, with their
         *                  line ends), for a progress bar
         * @return whether to go on with the next line
         */
        boolean visit(ParseResult result, long charsRead);
    }

    private FileReadings() {
    }

    /**
     * The parser of a file's lines: by the file's name or first non-blank line, and for CSV the header that line holds.
     *
     * @throws IOException              when the file cannot be read
     * @throws IllegalArgumentException when the CSV header is not valid (the message names the file and line)
     */
    public static LineParser parserFor(Path file, FileFormat format) throws IOException {
        try (BufferedReader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            long lineNumber = 0;
            String line;
            while ((line = reader.readLine()) != null) {
                lineNumber++;
                if (line.isBlank()) {
                    continue;
                }
                if (format.resolve(file, line) == FileFormat.JSONL) {
                    return LineParser.jsonLines();
                }
                try {
                    return LineParser.csv(line);
                } catch (IllegalArgumentException e) {
                    throw new IllegalArgumentException(file + " line " + lineNumber + ": " + e.getMessage(), e);
                }
            }
            return LineParser.jsonLines();
        }
    }

    /** Whether the first non-blank line of a file this parser reads is its header, not a reading. */
    static boolean hasHeader(LineParser parser) {
        return parser instanceof CsvLineParser;
    }

    /**
     * Parses the lines of {@code file} in order until the visitor says stop or the file ends.
     *
     * @throws IOException              when the file cannot be read
     * @throws IllegalArgumentException when the CSV header is not valid; no line is visited then
     */
    public static void forEach(Path file, FileFormat format, LineVisitor visitor) throws IOException {
        LineParser parser = parserFor(file, format);
        try (BufferedReader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            boolean headerSeen = !hasHeader(parser);
            long lineNumber = 0;
            long chars = 0;
            String line;
            while ((line = reader.readLine()) != null) {
                lineNumber++;
                chars += line.length() + 1;
                if (line.isBlank() || !headerSeen) {
                    headerSeen = headerSeen || !line.isBlank();
                    continue;
                }
                if (!visitor.visit(parser.parse(lineNumber, line), chars)) {
                    return;
                }
                chars = 0;
            }
        }
    }
}
