package dev.tspipe.ingest;

import dev.tspipe.schemas.Reading;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.Serializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The importer over a mock producer: shuffled order, exact line numbers across blank lines, and giving up. */
class FileImporterTest {

    @TempDir
    Path dir;

    private static final Serializer<Reading> NAMES = (topic, r) -> (r.getDeviceId() + "@" + r.getTimestamp().toEpochMilli())
            .getBytes(StandardCharsets.UTF_8);

    private Path sortedFile(int lines) throws IOException {
        List<String> content = new ArrayList<>(List.of("device,metric,timestamp,value"));
        for (int i = 0; i < lines; i++) {
            content.add("d" + i + ",temperature," + (1_796_032_800_000L + i) + ",1.0");
        }
        return Files.write(dir.resolve("sorted.csv"), content);
    }

    @Test
    void aSortedFileIsSentCompletelyButNotInFileOrder() throws IOException {
        MockProducer<byte[], byte[]> mock = new MockProducer<>(true, null, new ByteArraySerializer(), new ByteArraySerializer());
        Serializer<Reading> values = NAMES;
        Path file = sortedFile(5_000);

        ImportSummary summary = new FileImporter(new ReadingProducer(mock, values, (topic, batch) -> { throw new AssertionError("no batches here"); }, "readings", 1, 0),
                FileImporter.Options.defaults(dir.resolve("rejects.tsv")).withThreads(2)).importFiles(List.of(file));

        List<String> sent = mock.history().stream().map(ProducerRecord::key).map(k -> new String(k, StandardCharsets.UTF_8)).toList();
        List<String> inFileOrder = new ArrayList<>();
        for (int i = 0; i < 5_000; i++) {
            inFileOrder.add("d" + i);
        }
        assertThat(summary.imported()).isEqualTo(5_000);
        assertThat(summary.rejectsFile()).isEmpty();
        assertThat(dir.resolve("rejects.tsv")).doesNotExist();
        assertThat(sent).containsExactlyInAnyOrderElementsOf(inFileOrder).isNotEqualTo(inFileOrder);
    }

    @Test
    void lineNumbersStayTheFilesAcrossBlankLinesAndChunks() throws IOException {
        MockProducer<byte[], byte[]> mock = new MockProducer<>(true, null, new ByteArraySerializer(), new ByteArraySerializer());
        Serializer<Reading> values = NAMES;
        Path file = Files.writeString(dir.resolve("gaps.jsonl"), String.join("\n",
                "",
                "{\"device\":\"d1\",\"metric\":\"m\",\"timestamp\":1,\"value\":1}",
                "",
                "{\"device\":\"d1\",\"metric\":\"m\",\"timestamp\":2,\"value\":\"x\"}",
                "{\"device\":\"d1\",\"metric\":\"m\",\"timestamp\":3,\"value\":3}",
                "not json"));
        Path rejects = dir.resolve("gaps.rejects.tsv");

        ImportSummary summary = new FileImporter(new ReadingProducer(mock, values, (topic, batch) -> { throw new AssertionError("no batches here"); }, "readings", 1, 0),
                new FileImporter.Options(FileFormat.AUTO, 2, 2, rejects, false, 1)).importFiles(List.of(file));

        assertThat(summary.lines()).isEqualTo(4);
        assertThat(summary.imported()).isEqualTo(2);
        assertThat(summary.rejected()).isEqualTo(2);
        assertThat(Files.readAllLines(rejects)).extracting(line -> line.split("\t")[1]).containsExactlyInAnyOrder("4", "6");
    }

    @Test
    void whenNothingCanBeWrittenTheImportStopsInsteadOfFailingEveryLine() throws IOException {
        Serializer<Reading> unreachable = (topic, r) -> {
            throw new SerializationException("schema registry unreachable");
        };
        MockProducer<byte[], byte[]> mock = new MockProducer<>(true, null, new ByteArraySerializer(), new ByteArraySerializer());
        Serializer<Reading> values = unreachable;
        Path file = sortedFile(20_000);

        assertThatThrownBy(() -> new FileImporter(new ReadingProducer(mock, values, (topic, batch) -> { throw new AssertionError("no batches here"); }, "readings", 1, 0),
                FileImporter.Options.defaults(dir.resolve("rejects.tsv")).withThreads(2)).importFiles(List.of(file)))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("none could");
    }

    @Test
    void aBadHeaderIsFoundBeforeAnythingIsSent() throws IOException {
        Path good = sortedFile(10);
        Path bad = Files.writeString(dir.resolve("bad.csv"), "device,metric,time,value\n");

        assertThatThrownBy(() -> FileImporter.checkFiles(List.of(good, bad), FileFormat.AUTO))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("bad.csv line 1").hasMessageContaining("unknown column 'time'");
    }
}
