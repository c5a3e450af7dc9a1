package dev.tspipe.schemas;

import dev.tspipe.schemas.registry.CompatibilityLevel;
import org.apache.avro.Schema;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every released version of Reading.avsc and ReadingBatch.avsc is kept in test resources (released/Reading-vN.avsc);
 * the current schema must read data written with each of them (BACKWARD_TRANSITIVE), so that
 * consumers can be upgraded before producers, as Confluent's BACKWARD rule promises.
 */
class ReadingSchemaEvolutionTest {

    @Test
    void currentSchemaReadsEveryReleasedVersion() throws IOException {
        assertThat(CompatibilityLevel.BACKWARD_TRANSITIVE.incompatibilities(Reading.getClassSchema(), released("Reading"))).isEmpty();
    }

    @Test
    void currentBatchSchemaReadsEveryReleasedVersion() throws IOException {
        assertThat(CompatibilityLevel.BACKWARD_TRANSITIVE.incompatibilities(ReadingBatch.getClassSchema(), released("ReadingBatch")))
                .isEmpty();
    }

    /** Every released version of the schema {@code name} (released/{name}-vN.avsc), oldest first; at least one. */
    private List<Schema> released(String name) throws IOException {
        List<Schema> released = new ArrayList<>();
        for (int version = 1; ; version++) {
            try (InputStream in = getClass().getResourceAsStream("/released/" + name + "-v" + version + ".avsc")) {
                if (in == null) {
                    break;
                }
                released.add(new Schema.Parser().parse(in));
            }
        }
        assertThat(released).as("released versions of " + name).isNotEmpty();
        return released;
    }

    @Test
    void theContractOfDesignSection3Holds() {
        Schema schema = Reading.getClassSchema();

        assertThat(schema.getFullName()).isEqualTo("dev.tspipe.schemas.Reading");
        assertThat(schema.getField("timestamp").schema().getLogicalType().getName()).isEqualTo("timestamp-millis");
        assertThat(schema.getField("tags").defaultVal()).isEqualTo(java.util.Map.of());
        assertThat(schema.getField("tenant").schema().getTypes()).extracting(Schema::getType)
                .containsExactly(Schema.Type.NULL, Schema.Type.STRING);
    }
}
