package dev.tspipe.schemas.registry;

import org.apache.avro.Schema;
import org.apache.avro.SchemaParseException;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The rules of a Confluent-compatible schema registry for Avro, without transport or storage:
 * subjects with versions, global schema ids, compatibility levels, soft deletes.
 *
 * <p>Both the {@code mock://} registry and the embedded HTTP registry are this class; they
 * differ in the {@link Journal} that makes each change durable before it is applied.
 *
 * <p>Identity: two schemas are the same when their parsed forms print the same JSON
 * ({@link Schema#toString()}), so schemas that differ only in whitespace or key order of
 * the input get the same id, while a changed default or doc is a different schema (as in
 * Confluent's registry). The same schema under two subjects has one id.
 */
public final class SchemaRegistryCore {

    /** Makes an event durable before it is applied; throws if it could not. */
    @FunctionalInterface
    public interface Journal {
        Journal NONE = event -> { };

        void append(RegistryEvent event);
    }

    private record Version(int version, int id, boolean deleted) {
    }

    private final Journal journal;
    private final Map<Integer, String> schemasById = new HashMap<>();
    private final Map<String, Integer> idsBySchema = new HashMap<>();
    private final Map<String, TreeMap<Integer, Version>> subjects = new TreeMap<>();
    private final Map<String, CompatibilityLevel> subjectCompatibility = new HashMap<>();
    private CompatibilityLevel globalCompatibility = CompatibilityLevel.BACKWARD;

    public SchemaRegistryCore(Journal journal) {
        this.journal = Objects.requireNonNull(journal, "journal");
    }

    /** The form in which schemas are stored and compared: parsed, then printed compactly. */
    public static String canonical(String schema) {
        return parse(schema).toString();
    }

    private static Schema parse(String schema) {
        if (schema == null || schema.isBlank()) {
            throw RegistryException.invalidSchema("the schema is empty");
        }
        try {
            return new Schema.Parser().parse(schema);
        } catch (SchemaParseException | NullPointerException e) {
            throw RegistryException.invalidSchema(e.getMessage());
        }
    }

    /**
     * {@code POST /subjects/{subject}/versions}: registers a schema under a subject, or returns
     * the version it already has there.
     */
    public synchronized RegisteredSchema register(String subject, String schema) {
        String canonical = canonical(schema);
        Optional<RegisteredSchema> existing = findLive(subject, canonical);
        if (existing.isPresent()) {
            return existing.get();
        }
        CompatibilityLevel level = effectiveCompatibility(subject);
        List<String> problems = level.incompatibilities(parse(canonical), liveSchemas(subject));
        if (!problems.isEmpty()) {
            throw RegistryException.incompatible("Schema being registered is incompatible with an earlier schema for subject \""
                    + subject + "\", details: " + problems + " (compatibility: " + level + ")");
        }
        int id = idsBySchema.getOrDefault(canonical, nextId());
        TreeMap<Integer, Version> versions = subjects.get(subject);
        int version = versions == null || versions.isEmpty() ? 1 : versions.lastKey() + 1;
        RegistryEvent.SchemaRegistered event = new RegistryEvent.SchemaRegistered(subject, version, id, canonical);
        journal.append(event);
        apply(event);
        return new RegisteredSchema(subject, version, id, canonical);
    }

    /** {@code POST /subjects/{subject}}: the version of a subject that holds this schema. */
    public synchronized RegisteredSchema lookup(String subject, String schema) {
        requireLiveSubject(subject);
        String canonical = canonical(schema);
        return findLive(subject, canonical).orElseThrow(() -> RegistryException.schemaNotFoundInSubject(subject));
    }

    /** {@code GET /schemas/ids/{id}}: a schema by its global id; ids of deleted subjects still resolve. */
    public synchronized String schemaById(int id) {
        String schema = schemasById.get(id);
        if (schema == null) {
            throw RegistryException.schemaNotFound(id);
        }
        return schema;
    }

    /** {@code GET /subjects}: the subjects that have at least one live version, sorted. */
    public synchronized List<String> subjects() {
        List<String> names = new ArrayList<>();
        subjects.forEach((name, versions) -> {
            if (versions.values().stream().anyMatch(v -> !v.deleted())) {
                names.add(name);
            }
        });
        return names;
    }

    /** {@code GET /subjects/{subject}/versions}: the live version numbers, ascending. */
    public synchronized List<Integer> versions(String subject) {
        requireLiveSubject(subject);
        return subjects.get(subject).values().stream().filter(v -> !v.deleted()).map(Version::version).toList();
    }

    /** {@code GET /subjects/{subject}/versions/{version}}: {@code version} is a number or {@code latest}. */
    public synchronized RegisteredSchema version(String subject, String version) {
        requireLiveSubject(subject);
        Version found = resolveVersion(subject, version);
        return new RegisteredSchema(subject, found.version(), found.id(), schemasById.get(found.id()));
    }

    /** {@code DELETE /subjects/{subject}}: soft-deletes every version; returns the deleted version numbers. */
    public synchronized List<Integer> deleteSubject(String subject) {
        List<Integer> deleted = versions(subject);
        RegistryEvent.SubjectDeleted event = new RegistryEvent.SubjectDeleted(subject);
        journal.append(event);
        apply(event);
        return deleted;
    }

    /** {@code GET /config}. */
    public synchronized CompatibilityLevel globalCompatibility() {
        return globalCompatibility;
    }

    /** {@code GET /config/{subject}}: the subject's own level; 40408 when it has none. */
    public synchronized CompatibilityLevel subjectCompatibility(String subject, boolean defaultToGlobal) {
        CompatibilityLevel level = subjectCompatibility.get(subject);
        if (level != null) {
            return level;
        }
        if (defaultToGlobal) {
            return globalCompatibility;
        }
        throw RegistryException.subjectCompatibilityNotConfigured(subject);
    }

    /** {@code PUT /config} ({@code subject} null) or {@code PUT /config/{subject}}. */
    public synchronized CompatibilityLevel setCompatibility(String subject, CompatibilityLevel level) {
        RegistryEvent.CompatibilityChanged event = new RegistryEvent.CompatibilityChanged(subject, Objects.requireNonNull(level, "level"));
        journal.append(event);
        apply(event);
        return level;
    }

    /**
     * {@code POST /compatibility/subjects/{subject}/versions/{version}}: whether the schema could be
     * registered, judged against the given version (or every version for transitive levels).
     *
     * @return the incompatibilities; empty when compatible
     */
    public synchronized List<String> testCompatibility(String subject, String version, String schema) {
        Schema candidate = parse(schema);
        CompatibilityLevel level = effectiveCompatibility(subject);
        if (!subjects.containsKey(subject) && "latest".equals(version)) {
            return List.of();
        }
        requireLiveSubject(subject);
        Version against = resolveVersion(subject, version);
        List<Schema> previous = switch (level) {
            case BACKWARD_TRANSITIVE, FORWARD_TRANSITIVE, FULL_TRANSITIVE -> liveSchemas(subject).subList(0,
                    versions(subject).indexOf(against.version()) + 1);
            default -> List.of(parse(schemasById.get(against.id())));
        };
        return level.incompatibilities(candidate, previous);
    }

    /** Applies a change that is already durable: used for every change, and to replay a journal. */
    public synchronized void apply(RegistryEvent event) {
        if (event instanceof RegistryEvent.SchemaRegistered registered) {
            schemasById.put(registered.id(), registered.schema());
            idsBySchema.putIfAbsent(registered.schema(), registered.id());
            subjects.computeIfAbsent(registered.subject(), s -> new TreeMap<>())
                    .put(registered.version(), new Version(registered.version(), registered.id(), false));
        } else if (event instanceof RegistryEvent.CompatibilityChanged changed) {
            if (changed.subject() == null) {
                globalCompatibility = changed.level();
            } else {
                subjectCompatibility.put(changed.subject(), changed.level());
            }
        } else if (event instanceof RegistryEvent.SubjectDeleted deleted) {
            TreeMap<Integer, Version> versions = subjects.get(deleted.subject());
            if (versions != null) {
                versions.replaceAll((number, v) -> new Version(v.version(), v.id(), true));
            }
        }
    }

    private CompatibilityLevel effectiveCompatibility(String subject) {
        return subjectCompatibility.getOrDefault(subject, globalCompatibility);
    }

    private int nextId() {
        return schemasById.keySet().stream().mapToInt(Integer::intValue).max().orElse(0) + 1;
    }

    private Optional<RegisteredSchema> findLive(String subject, String canonical) {
        Integer id = idsBySchema.get(canonical);
        TreeMap<Integer, Version> versions = subjects.get(subject);
        if (id == null || versions == null) {
            return Optional.empty();
        }
        return versions.values().stream()
                .filter(v -> !v.deleted() && v.id() == id)
                .findFirst()
                .map(v -> new RegisteredSchema(subject, v.version(), v.id(), canonical));
    }

    private List<Schema> liveSchemas(String subject) {
        TreeMap<Integer, Version> versions = subjects.get(subject);
        if (versions == null) {
            return List.of();
        }
        return versions.values().stream().filter(v -> !v.deleted()).map(v -> parse(schemasById.get(v.id()))).toList();
    }

    private void requireLiveSubject(String subject) {
        TreeMap<Integer, Version> versions = subjects.get(subject);
        if (versions == null || versions.values().stream().allMatch(Version::deleted)) {
            throw RegistryException.subjectNotFound(subject);
        }
    }

    private Version resolveVersion(String subject, String version) {
        TreeMap<Integer, Version> versions = subjects.get(subject);
        if ("latest".equals(version) || "-1".equals(version)) {
            return versions.descendingMap().values().stream().filter(v -> !v.deleted()).findFirst()
                    .orElseThrow(() -> RegistryException.subjectNotFound(subject));
        }
        int number;
        try {
            number = Integer.parseInt(version);
        } catch (NumberFormatException e) {
            throw RegistryException.invalidVersion(version);
        }
        if (number < 1) {
            throw RegistryException.invalidVersion(version);
        }
        Version found = versions.get(number);
        if (found == null || found.deleted()) {
            throw RegistryException.versionNotFound(number);
        }
        return found;
    }
}
