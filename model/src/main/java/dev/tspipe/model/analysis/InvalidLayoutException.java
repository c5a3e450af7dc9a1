package dev.tspipe.model.analysis;

/** A key layout that cannot be read, with what is wrong at which character and how to write it instead. */
public final class InvalidLayoutException extends IllegalArgumentException {

    public InvalidLayoutException(String message) {
        super(message);
    }
}
