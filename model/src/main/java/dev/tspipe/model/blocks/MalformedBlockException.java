package dev.tspipe.model.blocks;

/** A block's bytes are not a block: truncated, a bad header or a count that does not fit. Names the byte offset. */
public final class MalformedBlockException extends IllegalArgumentException {

    private final int offset;

    public MalformedBlockException(String problem, int offset) {
        super("malformed block at byte " + offset + ": " + problem);
        this.offset = offset;
    }

    /** The offset in the block's bytes where the problem was found. */
    public int offset() {
        return offset;
    }
}
