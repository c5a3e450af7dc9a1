package dev.tspipe.schemas.registry;

import org.apache.avro.Schema;

/**
 * What an Avro serde asks of a schema registry. Implementations throw {@link RegistryException}
 * for an answer of the registry (unknown id, incompatible schema) and
 * {@link RegistryUnavailableException} when no registry could be reached.
 */
public interface SchemaRegistryClient {

    /** Registers the schema under the subject (or finds it there) and returns its global id. */
    int register(String subject, Schema schema);

    /** The id of a schema already registered under the subject, without registering it. */
    int lookupId(String subject, Schema schema);

    /** The schema with this global id. */
    Schema schemaById(int id);

    /** The newest live version of a subject. */
    RegisteredSchema latest(String subject);

    /** Where this client's registry lives, for error messages (a URL list or {@code mock://scope}). */
    String location();
}
