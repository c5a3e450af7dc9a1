package dev.tspipe.app;

/** A failure caused by the user's input or environment (a port in use, a bad path), with what to do about it. */
final class UserError extends RuntimeException {

    UserError(String message) {
        super(message);
    }
}
