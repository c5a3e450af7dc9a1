package dev.tspipe.schemas.serde;

import org.apache.kafka.common.errors.SerializationException;

/**
 * The registry could not be reached, so the record could not be read now; the record itself may
 * be fine. Pipelines should retry rather than treat the record as bad.
 */
public final class RegistryUnavailableSerializationException extends SerializationException {

    public RegistryUnavailableSerializationException(String message, Throwable cause) {
        super(message, cause);
    }
}
