package dev.tspipe.ingest;

/**
 * Turns one line of an input file into a {@link ParseResult}. Pure and thread-safe: workers of
 * an import share one parser per file.
 */
@FunctionalInterface
public interface LineParser {

    /**
     * @param lineNumber the 1-based line number in its file, reported with a rejection
     * @param line       the line without its line terminator
     */
    ParseResult parse(long lineNumber, String line);

    /**
     * A parser of CSV lines with the columns named by {@code headerLine}: {@code device, metric,
     * timestamp, value} and optionally {@code tenant} and {@code tags}, in any order.
     *
     * @throws IllegalArgumentException when the header lacks a required column or names an unknown one
     */
    static LineParser csv(String headerLine) {
        return CsvLineParser.fromHeader(headerLine);
    }

    /** A parser of JSON Lines: one object per line with the fields {@code device, metric, timestamp, value[, tenant][, tags]}. */
    static LineParser jsonLines() {
        return new JsonLineParser();
    }
}
