package dev.tspipe.embedded.registry;

import dev.tspipe.schemas.registry.CompatibilityLevel;
import dev.tspipe.schemas.registry.RegistryEvent;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.util.Optional;

/**
 * The records of the {@code _schemas} topic: one {@link RegistryEvent} per record, key and value
 * as JSON in the shapes Confluent Schema Registry writes to its own {@code _schemas} topic.
 *
 * <table>
 *   <caption>Records</caption>
 *   <tr><th>event</th><th>key</th><th>value</th></tr>
 *   <tr><td>SchemaRegistered</td><td>{@code {"keytype":"SCHEMA","subject":"s","version":1,"magic":1}}</td>
 *       <td>{@code {"subject":"s","version":1,"id":1,"schema":"...","deleted":false}}</td></tr>
 *   <tr><td>CompatibilityChanged</td><td>{@code {"keytype":"CONFIG","subject":null,"magic":0}} (global) or
 *       {@code {"keytype":"CONFIG","subject":"s","magic":0}}</td><td>{@code {"compatibilityLevel":"FULL"}}</td></tr>
 *   <tr><td>SubjectDeleted</td><td>{@code {"keytype":"DELETE_SUBJECT","subject":"s","magic":0}}</td>
 *       <td>{@code {"subject":"s"}}</td></tr>
 * </table>
 *
 * <p>Compaction keeps the last record of each key, in log order. Replay stays correct because:
 * a SCHEMA key (subject, version) is written once, since versions are never reused; the last
 * CONFIG record of a subject is its level; and the last DELETE_SUBJECT record of a subject
 * marks deleted exactly the versions registered before it, which are all the versions any
 * earlier delete of that subject covered. A re-registration after a delete is a new version
 * with its own key, written after the delete, so it replays as live.
 *
 * <p>Keys are written with a fixed field order: compaction compares key bytes.
 * {@code NOOP} records (Confluent's leader-election markers) are skipped on read.
 */
public final class SchemasTopicCodec {

    /** A record of the topic, key and value as UTF-8 JSON text. */
    public record Entry(String key, String value) {
    }

    /** A record that this registry cannot replay; names what was wrong. */
    public static final class MalformedRecordException extends IllegalArgumentException {
        MalformedRecordException(String message) {
            super(message);
        }

        MalformedRecordException(String message, Throwable cause) {
            super(message, cause);
        }
    }

    static final String SCHEMA = "SCHEMA";
    static final String CONFIG = "CONFIG";
    static final String DELETE_SUBJECT = "DELETE_SUBJECT";
    static final String NOOP = "NOOP";

    private static final ObjectMapper JSON = new ObjectMapper();

    private SchemasTopicCodec() {
    }

    public static Entry encode(RegistryEvent event) {
        if (event instanceof RegistryEvent.SchemaRegistered registered) {
            ObjectNode key = key(SCHEMA, registered.subject());
            key.put("version", registered.version());
            key.put("magic", 1);
            ObjectNode value = JSON.createObjectNode();
            value.put("subject", registered.subject());
            value.put("version", registered.version());
            value.put("id", registered.id());
            value.put("schema", registered.schema());
            value.put("deleted", false);
            return new Entry(write(key), write(value));
        }
        if (event instanceof RegistryEvent.CompatibilityChanged changed) {
            ObjectNode key = key(CONFIG, changed.subject());
            key.put("magic", 0);
            ObjectNode value = JSON.createObjectNode();
            value.put("compatibilityLevel", changed.level().name());
            return new Entry(write(key), write(value));
        }
        RegistryEvent.SubjectDeleted deleted = (RegistryEvent.SubjectDeleted) event;
        ObjectNode key = key(DELETE_SUBJECT, deleted.subject());
        key.put("magic", 0);
        ObjectNode value = JSON.createObjectNode();
        value.put("subject", deleted.subject());
        return new Entry(write(key), write(value));
    }

    /**
     * The event a record holds; empty for records that change nothing ({@code NOOP}).
     *
     * @throws MalformedRecordException when the record is not JSON of a known shape, or holds
     *                                  state this registry does not model (hard deletes, other schema types)
     */
    public static Optional<RegistryEvent> decode(String key, String value) {
        JsonNode keyNode = read(key, "key");
        String keytype = text(keyNode, "keytype", "key");
        if (NOOP.equals(keytype)) {
            return Optional.empty();
        }
        if (value == null) {
            throw new MalformedRecordException("a " + keytype + " record without a value (a tombstone: hard delete) "
                    + "is not supported by the embedded registry; key " + key);
        }
        JsonNode valueNode = read(value, "value");
        switch (keytype) {
            case SCHEMA -> {
                if (valueNode.path("deleted").asBoolean(false)) {
                    throw new MalformedRecordException("a soft-deleted single version is not supported by the embedded registry; value " + value);
                }
                String schemaType = valueNode.path("schemaType").asText("AVRO");
                if (!"AVRO".equals(schemaType)) {
                    throw new MalformedRecordException("schema type " + schemaType + " is not supported; only AVRO; value " + value);
                }
                return Optional.of(new RegistryEvent.SchemaRegistered(text(valueNode, "subject", "value"),
                        integer(valueNode, "version"), integer(valueNode, "id"), text(valueNode, "schema", "value")));
            }
            case CONFIG -> {
                JsonNode subject = keyNode.get("subject");
                String level = text(valueNode, "compatibilityLevel", "value");
                CompatibilityLevel parsed;
                try {
                    parsed = CompatibilityLevel.parse(level);
                } catch (RuntimeException e) {
                    throw new MalformedRecordException("unknown compatibility level in value " + value, e);
                }
                return Optional.of(new RegistryEvent.CompatibilityChanged(
                        subject == null || subject.isNull() ? null : subject.asText(), parsed));
            }
            case DELETE_SUBJECT -> {
                return Optional.of(new RegistryEvent.SubjectDeleted(text(keyNode, "subject", "key")));
            }
            default -> throw new MalformedRecordException("unknown keytype '" + keytype + "' in key " + key);
        }
    }

    private static ObjectNode key(String keytype, String subject) {
        ObjectNode key = JSON.createObjectNode();
        key.put("keytype", keytype);
        key.put("subject", subject);
        return key;
    }

    private static String write(ObjectNode node) {
        try {
            return JSON.writeValueAsString(node);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("Could not write a JSON tree", e);
        }
    }

    private static JsonNode read(String json, String part) {
        if (json == null) {
            throw new MalformedRecordException("the record has no " + part);
        }
        try {
            JsonNode node = JSON.readTree(json);
            if (node == null || !node.isObject()) {
                throw new MalformedRecordException("the record's " + part + " is not a JSON object: " + json);
            }
            return node;
        } catch (JsonProcessingException e) {
            throw new MalformedRecordException("the record's " + part + " is not JSON: " + json, e);
        }
    }

    private static String text(JsonNode node, String field, String part) {
        JsonNode child = node.get(field);
        if (child == null || !child.isTextual()) {
            throw new MalformedRecordException("the record's " + part + " has no text field '" + field + "': " + node);
        }
        return child.asText();
    }

    private static int integer(JsonNode node, String field) {
        JsonNode child = node.get(field);
        if (child == null || !child.canConvertToExactIntegral() || !child.canConvertToInt()) {
            throw new MalformedRecordException("the record's value has no integer field '" + field + "': " + node);
        }
        return child.asInt();
    }
}
