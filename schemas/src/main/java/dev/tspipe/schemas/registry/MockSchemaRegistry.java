package dev.tspipe.schemas.registry;

import org.apache.avro.Schema;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * In-process registries for unit tests, named by scope: every serde in the JVM configured with
 * {@code schema.registry.url=mock://<scope>} shares one registry, as with Confluent's serde.
 * A scope lives until {@link #dropScope(String)}.
 */
public final class MockSchemaRegistry {

    /** The URL prefix that selects an in-process registry. */
    public static final String MOCK_URL_PREFIX = "mock://";

    private static final Map<String, SchemaRegistryCore> SCOPES = new ConcurrentHashMap<>();

    private MockSchemaRegistry() {
    }

    /** The registry of a scope, created empty on first use. */
    public static SchemaRegistryCore scope(String scope) {
        return SCOPES.computeIfAbsent(scope, s -> new SchemaRegistryCore(SchemaRegistryCore.Journal.NONE));
    }

    /** Forgets a scope, so that the next use starts empty. */
    public static void dropScope(String scope) {
        SCOPES.remove(scope);
    }

    /** A client of the scope's registry. */
    public static SchemaRegistryClient client(String scope) {
        SchemaRegistryCore core = scope(scope);
        String location = MOCK_URL_PREFIX + scope;
        return new SchemaRegistryClient() {
            @Override
            public int register(String subject, Schema schema) {
                return core.register(subject, schema.toString()).id();
            }

            @Override
            public int lookupId(String subject, Schema schema) {
                return core.lookup(subject, schema.toString()).id();
            }

            @Override
            public Schema schemaById(int id) {
                return new Schema.Parser().parse(core.schemaById(id));
            }

            @Override
            public RegisteredSchema latest(String subject) {
                return core.version(subject, "latest");
            }

            @Override
            public String location() {
                return location;
            }
        };
    }
}
