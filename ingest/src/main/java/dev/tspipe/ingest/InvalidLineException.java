package dev.tspipe.ingest;

/** Why a line is not a reading; the message is the rejection reason. Never leaves the parsers. */
final class InvalidLineException extends Exception {

    InvalidLineException(String reason) {
        super(reason, null, false, false);
    }
}
