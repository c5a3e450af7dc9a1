package dev.tspipe.schemas.registry;

import org.apache.avro.Schema;

import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Remembers a registry's answers, so that a schema id is fetched once and registering the same
 * schema twice asks the registry once. Ids never change meaning, so they are kept for the life
 * of the process; the latest version of a subject may change and is kept for {@code latestTtl}.
 */
public final class CachedSchemaRegistryClient implements SchemaRegistryClient {

    private record SubjectSchema(String subject, Schema schema) {
    }

    private record Latest(RegisteredSchema schema, long fetchedAtMillis) {
    }

    private final SchemaRegistryClient delegate;
    private final Duration latestTtl;
    private final Clock clock;
    private final Map<Integer, Schema> schemasById = new ConcurrentHashMap<>();
    private final Map<SubjectSchema, Integer> registered = new ConcurrentHashMap<>();
    private final Map<SubjectSchema, Integer> lookedUp = new ConcurrentHashMap<>();
    private final Map<String, Latest> latest = new ConcurrentHashMap<>();

    public CachedSchemaRegistryClient(SchemaRegistryClient delegate, Duration latestTtl, Clock clock) {
        this.delegate = Objects.requireNonNull(delegate, "delegate");
        this.latestTtl = Objects.requireNonNull(latestTtl, "latestTtl");
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    @Override
    public int register(String subject, Schema schema) {
        SubjectSchema key = new SubjectSchema(subject, schema);
        return registered.computeIfAbsent(key, k -> {
            int id = delegate.register(subject, schema);
            schemasById.putIfAbsent(id, schema);
            return id;
        });
    }

    @Override
    public int lookupId(String subject, Schema schema) {
        SubjectSchema key = new SubjectSchema(subject, schema);
        Integer known = registered.get(key);
        if (known != null) {
            return known;
        }
        return lookedUp.computeIfAbsent(key, k -> {
            int id = delegate.lookupId(subject, schema);
            schemasById.putIfAbsent(id, schema);
            return id;
        });
    }

    @Override
    public Schema schemaById(int id) {
        return schemasById.computeIfAbsent(id, delegate::schemaById);
    }

    @Override
    public RegisteredSchema latest(String subject) {
        long now = clock.millis();
        Latest cached = latest.get(subject);
        if (cached != null && now - cached.fetchedAtMillis() < latestTtl.toMillis()) {
            return cached.schema();
        }
        RegisteredSchema fresh = delegate.latest(subject);
        latest.put(subject, new Latest(fresh, now));
        return fresh;
    }

    @Override
    public String location() {
        return delegate.location();
    }
}
