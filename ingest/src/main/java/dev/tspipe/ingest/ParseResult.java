package dev.tspipe.ingest;

import dev.tspipe.schemas.Reading;

import java.util.Objects;

/** What one line of an input file became: a reading, or a rejection that says why and what to fix. */
public sealed interface ParseResult {

    /** The 1-based line number in its file. */
    long lineNumber();

    /** A line that is a valid reading. */
    record Parsed(long lineNumber, Reading reading) implements ParseResult {
        public Parsed {
            Objects.requireNonNull(reading, "reading");
        }
    }

    /** A line that is not a reading, with the reason in words a user can act on. */
    record Rejected(long lineNumber, String reason) implements ParseResult {
        public Rejected {
            Objects.requireNonNull(reason, "reason");
        }
    }
}
