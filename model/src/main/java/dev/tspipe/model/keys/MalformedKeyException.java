package dev.tspipe.model.keys;

/** Bytes that are not a row key of the expected layout; {@link #offset()} is where decoding stopped. */
public final class MalformedKeyException extends IllegalArgumentException {

    private final int offset;

    MalformedKeyException(int offset, String problem) {
        super("malformed row key at byte offset " + offset + ": " + problem);
        this.offset = offset;
    }

    public int offset() {
        return offset;
    }
}
