package dev.tspipe.schemas.registry;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class SchemaRegistryCoreTest {

    private static final String V1 = """
            {"type":"record","name":"R","fields":[{"name":"a","type":"string"}]}""";
    private static final String V1_REFORMATTED = """
            {
              "type" : "record", "name" : "R",
              "fields" : [ { "name" : "a", "type" : "string" } ]
            }""";
    private static final String V2_WITH_DEFAULT = """
            {"type":"record","name":"R","fields":[{"name":"a","type":"string"},{"name":"b","type":"int","default":0}]}""";
    private static final String V2_WITHOUT_DEFAULT = """
            {"type":"record","name":"R","fields":[{"name":"a","type":"string"},{"name":"b","type":"int"}]}""";

    private final List<RegistryEvent> journal = new ArrayList<>();
    private final SchemaRegistryCore core = new SchemaRegistryCore(journal::add);

    @Test
    void registeringTwiceOrReformattedGivesTheSameIdAndVersion() {
        RegisteredSchema first = core.register("s-value", V1);
        RegisteredSchema again = core.register("s-value", V1_REFORMATTED);

        assertThat(first).isEqualTo(new RegisteredSchema("s-value", 1, 1, SchemaRegistryCore.canonical(V1)));
        assertThat(again).isEqualTo(first);
        assertThat(journal).hasSize(1);
    }

    @Test
    void theSameSchemaUnderTwoSubjectsHasOneId() {
        int a = core.register("a-value", V1).id();
        int b = core.register("b-value", V1).id();

        assertThat(b).isEqualTo(a);
        assertThat(core.subjects()).containsExactly("a-value", "b-value");
    }

    @Test
    void backwardIsTheDefaultAndAcceptsANewFieldWithADefault() {
        core.register("s", V1);
        RegisteredSchema v2 = core.register("s", V2_WITH_DEFAULT);

        assertThat(core.globalCompatibility()).isEqualTo(CompatibilityLevel.BACKWARD);
        assertThat(v2.version()).isEqualTo(2);
        assertThat(v2.id()).isEqualTo(2);
        assertThat(core.versions("s")).containsExactly(1, 2);
        assertThat(core.version("s", "latest")).isEqualTo(v2);
    }

    @Test
    void aNewFieldWithoutDefaultIsIncompatibleUnderBackwardButAcceptedUnderNone() {
        core.register("s", V1);

        assertThatThrownBy(() -> core.register("s", V2_WITHOUT_DEFAULT))
                .isInstanceOfSatisfying(RegistryException.class, e -> {
                    assertThat(e.httpStatus()).isEqualTo(409);
                    assertThat(e.errorCode()).isEqualTo(409);
                })
                .hasMessageContaining("READER_FIELD_MISSING_DEFAULT_VALUE");
        assertThat(core.testCompatibility("s", "latest", V2_WITHOUT_DEFAULT)).isNotEmpty();

        core.setCompatibility("s", CompatibilityLevel.NONE);
        assertThat(core.register("s", V2_WITHOUT_DEFAULT).version()).isEqualTo(2);
        assertThat(core.subjectCompatibility("s", false)).isEqualTo(CompatibilityLevel.NONE);
    }

    @Test
    void forwardChecksTheOtherDirection() {
        core.setCompatibility(null, CompatibilityLevel.FORWARD);
        core.register("s", V2_WITHOUT_DEFAULT);

        // Old readers (with b, no default) cannot read new data without b.
        assertThat(core.testCompatibility("s", "1", V1)).isNotEmpty();
        assertThat(core.testCompatibility("s", "1", V2_WITH_DEFAULT)).isEmpty();
    }

    @Test
    void lookupFindsTheVersionOrSaysWhatIsMissing() {
        core.register("s", V1);

        assertThat(core.lookup("s", V1_REFORMATTED).version()).isEqualTo(1);
        assertThatThrownBy(() -> core.lookup("s", V2_WITH_DEFAULT)).isInstanceOfSatisfying(RegistryException.class,
                e -> assertThat(e.errorCode()).isEqualTo(RegistryException.SCHEMA_NOT_FOUND));
        assertThatThrownBy(() -> core.lookup("other", V1)).isInstanceOfSatisfying(RegistryException.class,
                e -> assertThat(e.errorCode()).isEqualTo(RegistryException.SUBJECT_NOT_FOUND));
    }

    @Test
    void errorsCarryConfluentsCodes() {
        core.register("s", V1);

        assertThat(codeOf(() -> core.schemaById(99))).isEqualTo(40403);
        assertThat(codeOf(() -> core.versions("nope"))).isEqualTo(40401);
        assertThat(codeOf(() -> core.version("s", "7"))).isEqualTo(40402);
        assertThat(codeOf(() -> core.version("s", "x"))).isEqualTo(42202);
        assertThat(codeOf(() -> core.version("s", "0"))).isEqualTo(42202);
        assertThat(codeOf(() -> core.register("s", "{not json"))).isEqualTo(42201);
        assertThat(codeOf(() -> core.register("s", ""))).isEqualTo(42201);
        assertThat(codeOf(() -> CompatibilityLevel.parse("SIDEWAYS"))).isEqualTo(42203);
        assertThat(codeOf(() -> core.subjectCompatibility("s", false))).isEqualTo(40408);
        assertThat(core.subjectCompatibility("s", true)).isEqualTo(CompatibilityLevel.BACKWARD);
    }

    @Test
    void deletingASubjectHidesItButKeepsItsIdsAndVersionNumbersGoOn() {
        int id = core.register("s", V1).id();

        assertThat(core.deleteSubject("s")).containsExactly(1);
        assertThat(core.subjects()).isEmpty();
        assertThat(codeOf(() -> core.versions("s"))).isEqualTo(40401);
        assertThat(core.schemaById(id)).isEqualTo(SchemaRegistryCore.canonical(V1));

        RegisteredSchema again = core.register("s", V2_WITHOUT_DEFAULT);
        assertThat(again.version()).as("no compatibility check against deleted versions").isEqualTo(2);
    }

    @Test
    void replayingTheJournalRebuildsTheSameState() {
        core.register("s", V1);
        core.register("s", V2_WITH_DEFAULT);
        core.register("t", V1);
        core.setCompatibility("t", CompatibilityLevel.FULL);
        core.deleteSubject("t");

        SchemaRegistryCore replayed = new SchemaRegistryCore(SchemaRegistryCore.Journal.NONE);
        journal.forEach(replayed::apply);

        assertThat(replayed.subjects()).isEqualTo(core.subjects());
        assertThat(replayed.version("s", "latest")).isEqualTo(core.version("s", "latest"));
        assertThat(replayed.schemaById(1)).isEqualTo(core.schemaById(1));
        assertThat(replayed.subjectCompatibility("t", false)).isEqualTo(CompatibilityLevel.FULL);
        assertThat(replayed.register("u", V2_WITHOUT_DEFAULT).id()).as("ids continue after replay").isEqualTo(3);
    }

    @Test
    void aFailingJournalLeavesTheStateUnchanged() {
        SchemaRegistryCore failing = new SchemaRegistryCore(event -> {
            throw new IllegalStateException("disk full");
        });

        assertThatThrownBy(() -> failing.register("s", V1)).hasMessage("disk full");
        assertThat(failing.subjects()).isEmpty();
        assertThat(codeOf(() -> failing.schemaById(1))).isEqualTo(40403);
    }

    private static int codeOf(Runnable action) {
        try {
            action.run();
        } catch (RegistryException e) {
            return e.errorCode();
        }
        throw new AssertionError("expected a RegistryException");
    }
}
