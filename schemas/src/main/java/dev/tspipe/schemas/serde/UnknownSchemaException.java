package dev.tspipe.schemas.serde;

import org.apache.kafka.common.errors.SerializationException;

/** A record names a schema id that the registry does not know: the record cannot be read, ever. */
public final class UnknownSchemaException extends SerializationException {

    private final int schemaId;

    public UnknownSchemaException(int schemaId, String message, Throwable cause) {
        super(message, cause);
        this.schemaId = schemaId;
    }

    public int schemaId() {
        return schemaId;
    }
}
