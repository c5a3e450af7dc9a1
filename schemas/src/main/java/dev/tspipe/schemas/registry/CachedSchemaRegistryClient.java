package dev.tspipe.schemas.registry;

import org.apache.avro.Schema;

import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Remembers a registry's answers, so that a schema id is fetched once and registering the same
 * schema twice asks the registry once. Ids never change meaning, so they are kept for the life
 * of the process; the latest version of a subject may change and is kept for {@code latestTtl}.
 *
 * <p>An id the registry does not know is remembered as missing for {@code missingIdTtl}, so that
 * a stream of records naming one unknown id costs one registry call per TTL instead of one per
 * record. The price: an id registered within the TTL after a miss stays unknown to this client
 * until the TTL has passed. At most {@code missingIdCacheSize} misses are kept (the oldest go
 * first). Only the registry's own "schema not found" (40403) is a miss: a registry that cannot
 * be reached, or that fails otherwise, is asked again on the next call.
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
    private final MissingIds missingIds;

    public CachedSchemaRegistryClient(SchemaRegistryClient delegate, Duration latestTtl, Duration missingIdTtl,
                                      int missingIdCacheSize, Clock clock) {
        this.delegate = Objects.requireNonNull(delegate, "delegate");
        this.latestTtl = Objects.requireNonNull(latestTtl, "latestTtl");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.missingIds = new MissingIds(Objects.requireNonNull(missingIdTtl, "missingIdTtl").toMillis(), missingIdCacheSize);
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
        Schema known = schemasById.get(id);
        if (known != null) {
            return known;
        }
        RegistryException missing = missingIds.get(id, clock.millis());
        if (missing != null) {
            throw new RegistryException(missing.httpStatus(), missing.errorCode(), missing.getMessage());
        }
        Schema fetched;
        try {
            fetched = delegate.schemaById(id);
        } catch (RegistryException e) {
            if (e.errorCode() == RegistryException.SCHEMA_NOT_FOUND) {
                missingIds.put(id, e, clock.millis());
            }
            throw e;
        }
        Schema previous = schemasById.putIfAbsent(id, fetched);
        return previous == null ? fetched : previous;
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

    /** Ids the registry said it does not know, each until its TTL ends; bounded, oldest evicted first. */
    private static final class MissingIds {

        private record Miss(RegistryException answer, long expiresAtMillis) {
        }

        private final long ttlMillis;
        private final Map<Integer, Miss> misses;

        MissingIds(long ttlMillis, int maxSize) {
            if (ttlMillis < 0 || maxSize < 0) {
                throw new IllegalArgumentException("missing-id TTL and cache size must not be negative: " + ttlMillis
                        + " ms, " + maxSize);
            }
            this.ttlMillis = ttlMillis;
            this.misses = new LinkedHashMap<>() {
                @Override
                protected boolean removeEldestEntry(Map.Entry<Integer, Miss> eldest) {
                    return size() > maxSize;
                }
            };
        }

        synchronized RegistryException get(int id, long nowMillis) {
            Miss miss = misses.get(id);
            if (miss == null) {
                return null;
            }
            if (nowMillis >= miss.expiresAtMillis()) {
                misses.remove(id);
                return null;
            }
            return miss.answer();
        }

        synchronized void put(int id, RegistryException answer, long nowMillis) {
            if (ttlMillis > 0) {
                misses.remove(id);
                misses.put(id, new Miss(answer, nowMillis + ttlMillis));
            }
        }
    }
}
