package dev.tspipe.schemas.registry;

/** No schema registry answered: every configured URL failed to connect or answered 5xx. */
public final class RegistryUnavailableException extends RuntimeException {

    public RegistryUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }
}
