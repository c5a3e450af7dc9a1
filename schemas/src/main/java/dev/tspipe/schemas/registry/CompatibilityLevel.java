package dev.tspipe.schemas.registry;

import org.apache.avro.Schema;
import org.apache.avro.SchemaCompatibility;
import org.apache.avro.SchemaCompatibility.Incompatibility;
import org.apache.avro.SchemaCompatibility.SchemaPairCompatibility;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Confluent Schema Registry's compatibility levels, checked with Avro's own
 * {@link SchemaCompatibility} (reader/writer resolution rules).
 *
 * <ul>
 *   <li>BACKWARD: consumers using the new schema can read data written with the previous one.</li>
 *   <li>FORWARD: consumers using the previous schema can read data written with the new one.</li>
 *   <li>FULL: both. The {@code _TRANSITIVE} variants check every earlier version, not only the latest.</li>
 * </ul>
 */
public enum CompatibilityLevel {
    NONE(false, false, false),
    BACKWARD(true, false, false),
    BACKWARD_TRANSITIVE(true, false, true),
    FORWARD(false, true, false),
    FORWARD_TRANSITIVE(false, true, true),
    FULL(true, true, false),
    FULL_TRANSITIVE(true, true, true);

    private final boolean backward;
    private final boolean forward;
    private final boolean transitive;

    CompatibilityLevel(boolean backward, boolean forward, boolean transitive) {
        this.backward = backward;
        this.forward = forward;
        this.transitive = transitive;
    }

    /** Parses a level as Confluent writes it (upper case); a bad name is a 422 with error code 42203. */
    public static CompatibilityLevel parse(String name) {
        if (name == null) {
            throw RegistryException.invalidCompatibilityLevel(null);
        }
        try {
            return valueOf(name.trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw RegistryException.invalidCompatibilityLevel(name);
        }
    }

    /**
     * Checks a candidate against earlier schemas of a subject.
     *
     * @param previous the subject's live schemas, oldest first
     * @return one message per incompatibility found; empty when compatible
     */
    public List<String> incompatibilities(Schema candidate, List<Schema> previous) {
        List<String> messages = new ArrayList<>();
        if (this == NONE || previous.isEmpty()) {
            return messages;
        }
        List<Schema> checked = transitive ? previous : List.of(previous.get(previous.size() - 1));
        for (Schema earlier : checked) {
            if (backward) {
                describe(SchemaCompatibility.checkReaderWriterCompatibility(candidate, earlier), "new schema reading data written with an earlier one", messages);
            }
            if (forward) {
                describe(SchemaCompatibility.checkReaderWriterCompatibility(earlier, candidate), "earlier schema reading data written with the new one", messages);
            }
        }
        return messages;
    }

    private static void describe(SchemaPairCompatibility result, String direction, List<String> messages) {
        if (result.getType() == SchemaCompatibility.SchemaCompatibilityType.COMPATIBLE) {
            return;
        }
        for (Incompatibility incompatibility : result.getResult().getIncompatibilities()) {
            String detail = switch (incompatibility.getType()) {
                case READER_FIELD_MISSING_DEFAULT_VALUE -> "the field '" + incompatibility.getMessage()
                        + "' of the reading schema has no default value and is missing in the written data";
                case TYPE_MISMATCH -> "the types differ: " + incompatibility.getMessage();
                case NAME_MISMATCH -> "the names differ: " + incompatibility.getMessage();
                case MISSING_UNION_BRANCH -> "a union branch is missing: " + incompatibility.getMessage();
                case MISSING_ENUM_SYMBOLS -> "enum symbols are missing: " + incompatibility.getMessage();
                default -> incompatibility.getMessage();
            };
            messages.add("{errorType:'" + incompatibility.getType() + "', description:'" + direction + ": "
                    + detail + "', location:'" + incompatibility.getLocation() + "'}");
        }
    }
}
