package dev.tspipe.embedded.registry;

import dev.tspipe.embedded.registry.SchemasTopicCodec.Entry;
import dev.tspipe.embedded.registry.SchemasTopicCodec.MalformedRecordException;
import dev.tspipe.schemas.registry.CompatibilityLevel;
import dev.tspipe.schemas.registry.RegistryEvent;
import dev.tspipe.schemas.registry.RegistryException;
import dev.tspipe.schemas.registry.SchemaRegistryCore;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.stream.LongStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class SchemasTopicCodecTest {

    private static final String SCHEMA = "{\"type\":\"string\"}";

    @Test
    void aRegisteredSchemaIsWrittenAsConfluentsSchemaRecord() {
        Entry entry = SchemasTopicCodec.encode(new RegistryEvent.SchemaRegistered("s", 2, 7, SCHEMA));

        assertThat(entry.key()).isEqualTo("{\"keytype\":\"SCHEMA\",\"subject\":\"s\",\"version\":2,\"magic\":1}");
        assertThat(entry.value()).isEqualTo("{\"subject\":\"s\",\"version\":2,\"id\":7,\"schema\":\"{\\\"type\\\":\\\"string\\\"}\",\"deleted\":false}");
    }

    @Test
    void globalAndSubjectConfigAreConfigRecords() {
        Entry global = SchemasTopicCodec.encode(new RegistryEvent.CompatibilityChanged(null, CompatibilityLevel.FULL));
        Entry subject = SchemasTopicCodec.encode(new RegistryEvent.CompatibilityChanged("s", CompatibilityLevel.NONE));

        assertThat(global.key()).isEqualTo("{\"keytype\":\"CONFIG\",\"subject\":null,\"magic\":0}");
        assertThat(global.value()).isEqualTo("{\"compatibilityLevel\":\"FULL\"}");
        assertThat(subject.key()).isEqualTo("{\"keytype\":\"CONFIG\",\"subject\":\"s\",\"magic\":0}");
        assertThat(subject.value()).isEqualTo("{\"compatibilityLevel\":\"NONE\"}");
    }

    @Test
    void aSubjectDeleteIsADeleteSubjectRecord() {
        Entry entry = SchemasTopicCodec.encode(new RegistryEvent.SubjectDeleted("s"));

        assertThat(entry.key()).isEqualTo("{\"keytype\":\"DELETE_SUBJECT\",\"subject\":\"s\",\"magic\":0}");
        assertThat(entry.value()).isEqualTo("{\"subject\":\"s\"}");
    }

    @Test
    void everyEventDecodesToItself() {
        List<RegistryEvent> events = List.of(
                new RegistryEvent.SchemaRegistered("readings-value", 1, 1, SCHEMA),
                new RegistryEvent.SchemaRegistered("a subject/with \"odd\" chars ü", Integer.MAX_VALUE, Integer.MAX_VALUE, SCHEMA),
                new RegistryEvent.CompatibilityChanged(null, CompatibilityLevel.BACKWARD_TRANSITIVE),
                new RegistryEvent.CompatibilityChanged("s", CompatibilityLevel.FORWARD),
                new RegistryEvent.SubjectDeleted("s"));

        for (RegistryEvent event : events) {
            Entry entry = SchemasTopicCodec.encode(event);
            assertThat(SchemasTopicCodec.decode(entry.key(), entry.value())).contains(event);
        }
    }

    @Test
    void recordsWrittenByConfluentsRegistryAreRead() {
        // Confluent adds fields this registry does not use, and writes NOOP records when electing a leader.
        assertThat(SchemasTopicCodec.decode("{\"keytype\":\"NOOP\",\"magic\":0}", null)).isEmpty();
        assertThat(SchemasTopicCodec.decode("{\"keytype\":\"SCHEMA\",\"subject\":\"s\",\"version\":1,\"magic\":1}",
                "{\"subject\":\"s\",\"version\":1,\"id\":3,\"schemaType\":\"AVRO\",\"schema\":\"\\\"string\\\"\",\"deleted\":false}"))
                .contains(new RegistryEvent.SchemaRegistered("s", 1, 3, "\"string\""));
        assertThat(SchemasTopicCodec.decode("{\"magic\":0,\"keytype\":\"CONFIG\",\"subject\":null}",
                "{\"compatibilityLevel\":\"full\",\"alias\":null}"))
                .contains(new RegistryEvent.CompatibilityChanged(null, CompatibilityLevel.FULL));
        assertThat(SchemasTopicCodec.decode("{\"keytype\":\"DELETE_SUBJECT\",\"subject\":\"s\",\"magic\":0}",
                "{\"subject\":\"s\",\"version\":4}"))
                .contains(new RegistryEvent.SubjectDeleted("s"));
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', nullValues = "NULL", value = {
            "not json                                                   | {}",
            "[1]                                                        | {}",
            "NULL                                                       | {}",
            "{\"subject\":\"s\"}                                        | {}",
            "{\"keytype\":\"MYSTERY\",\"subject\":\"s\"}                | {}",
            "{\"keytype\":\"SCHEMA\",\"subject\":\"s\",\"version\":1}   | NULL",
            "{\"keytype\":\"SCHEMA\",\"subject\":\"s\",\"version\":1}   | {\"subject\":\"s\",\"version\":1,\"schema\":\"x\"}",
            "{\"keytype\":\"SCHEMA\",\"subject\":\"s\",\"version\":1}   | {\"subject\":\"s\",\"version\":\"1\",\"id\":1,\"schema\":\"x\"}",
            "{\"keytype\":\"SCHEMA\",\"subject\":\"s\",\"version\":1}   | {\"subject\":\"s\",\"version\":1,\"id\":1.5,\"schema\":\"x\"}",
            "{\"keytype\":\"SCHEMA\",\"subject\":\"s\",\"version\":1}   | {\"subject\":\"s\",\"version\":1,\"id\":1,\"schema\":\"x\",\"deleted\":true}",
            "{\"keytype\":\"SCHEMA\",\"subject\":\"s\",\"version\":1}   | {\"subject\":\"s\",\"version\":1,\"id\":1,\"schema\":\"x\",\"schemaType\":\"PROTOBUF\"}",
            "{\"keytype\":\"CONFIG\",\"subject\":null}                  | {\"compatibilityLevel\":\"SIDEWAYS\"}",
            "{\"keytype\":\"CONFIG\",\"subject\":null}                  | {}",
            "{\"keytype\":\"DELETE_SUBJECT\"}                           | {}",
    })
    void malformedOrUnsupportedRecordsAreRejectedWithWhatIsWrong(String key, String value) {
        assertThatThrownBy(() -> SchemasTopicCodec.decode(key, value))
                .isInstanceOf(MalformedRecordException.class)
                .message().isNotBlank();
    }

    static LongStream seeds() {
        Long seed = Long.getLong("tspipe.seed");
        return seed != null ? LongStream.of(seed) : LongStream.of(1, 2, 3, 42, 1234, 99_999);
    }

    /**
     * Compaction keeps only the last record of each key. Whatever sequence of registrations,
     * deletes, re-registrations and config changes happened, replaying the compacted journal must
     * give the same registry as replaying the whole one. Each case is a seed; {@code -Dtspipe.seed=N} runs seed N alone.
     */
    @ParameterizedTest(name = "seed {0} (rerun with -Dtspipe.seed={0})")
    @MethodSource("seeds")
    void replayingTheCompactedJournalGivesTheSameRegistry(long seed) {
        Random random = new Random(seed);
        List<Entry> journal = new ArrayList<>();
        SchemaRegistryCore live = new SchemaRegistryCore(event -> journal.add(SchemasTopicCodec.encode(event)));
        live.setCompatibility(null, CompatibilityLevel.NONE);
        List<String> subjects = List.of("a", "b", "c");
        for (int step = 0; step < 300; step++) {
            String subject = subjects.get(random.nextInt(subjects.size()));
            try {
                switch (random.nextInt(10)) {
                    case 0, 1 -> live.deleteSubject(subject);
                    case 2 -> live.setCompatibility(random.nextBoolean() ? null : subject,
                            CompatibilityLevel.values()[random.nextInt(CompatibilityLevel.values().length)]);
                    default -> live.register(subject, "{\"type\":\"enum\",\"name\":\"E\",\"symbols\":[\"S" + random.nextInt(8) + "\"]}");
                }
            } catch (RegistryException expected) {
                // Deleting a deleted subject, or an incompatible schema: nothing was journaled.
            }
        }

        List<Entry> compacted = compact(journal);
        SchemaRegistryCore fromCompacted = replay(compacted);
        SchemaRegistryCore fromWhole = replay(journal);

        assertThat(compacted.size()).as("compaction dropped records").isLessThan(journal.size());
        assertSameState(fromWhole, live, subjects);
        assertSameState(fromCompacted, live, subjects);
        // Ids continue after the highest one in every copy.
        String fresh = "{\"type\":\"fixed\",\"name\":\"F\",\"size\":16}";
        int next = live.register("z", fresh).id();
        assertThat(fromCompacted.register("z", fresh).id()).isEqualTo(next);
        assertThat(fromWhole.register("z", fresh).id()).isEqualTo(next);
    }

    private static List<Entry> compact(List<Entry> journal) {
        Map<String, Integer> lastIndexByKey = new HashMap<>();
        for (int i = 0; i < journal.size(); i++) {
            lastIndexByKey.put(journal.get(i).key(), i);
        }
        List<Entry> compacted = new ArrayList<>();
        for (int i = 0; i < journal.size(); i++) {
            if (lastIndexByKey.get(journal.get(i).key()) == i) {
                compacted.add(journal.get(i));
            }
        }
        return compacted;
    }

    private static SchemaRegistryCore replay(List<Entry> journal) {
        SchemaRegistryCore core = new SchemaRegistryCore(SchemaRegistryCore.Journal.NONE);
        for (Entry entry : journal) {
            SchemasTopicCodec.decode(entry.key(), entry.value()).ifPresent(core::apply);
        }
        return core;
    }

    private static void assertSameState(SchemaRegistryCore actual, SchemaRegistryCore expected, List<String> subjects) {
        assertThat(actual.subjects()).isEqualTo(expected.subjects());
        assertThat(actual.globalCompatibility()).isEqualTo(expected.globalCompatibility());
        for (String subject : subjects) {
            assertThat(outcome(() -> actual.subjectCompatibility(subject, false)))
                    .isEqualTo(outcome(() -> expected.subjectCompatibility(subject, false)));
            assertThat(outcome(() -> actual.versions(subject))).isEqualTo(outcome(() -> expected.versions(subject)));
            for (int version = 1; version <= 300; version++) {
                String v = Integer.toString(version);
                assertThat(outcome(() -> actual.version(subject, v))).isEqualTo(outcome(() -> expected.version(subject, v)));
            }
        }
        for (int id = 1; id <= 10; id++) {
            int i = id;
            assertThat(outcome(() -> actual.schemaById(i))).isEqualTo(outcome(() -> expected.schemaById(i)));
        }
    }

    /** A query's answer, or the registry error code it failed with. */
    private static Object outcome(java.util.function.Supplier<?> query) {
        try {
            return Optional.ofNullable(query.get());
        } catch (RegistryException e) {
            return e.errorCode();
        }
    }
}
