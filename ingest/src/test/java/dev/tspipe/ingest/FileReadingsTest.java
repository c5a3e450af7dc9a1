package dev.tspipe.ingest;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** A file's readings in order: the CSV header and blank lines skipped, the file's line numbers, stopping on request. */
class FileReadingsTest {

    @TempDir
    Path dir;

    @Test
    void csvLinesAfterTheHeaderInFileOrderWithTheFilesLineNumbers() throws IOException {
        Path file = Files.writeString(dir.resolve("r.csv"), "\n\uFEFFdevice,metric,timestamp,value\nd1,t,1000,1.5\n\nd2,t,2000,x\nd3,t,3000,2\n");
        List<ParseResult> results = new ArrayList<>();
        long[] chars = {0};

        FileReadings.forEach(file, FileFormat.AUTO, (result, read) -> {
            results.add(result);
            chars[0] += read;
            return true;
        });

        assertThat(results).extracting(ParseResult::lineNumber).containsExactly(3L, 5L, 6L);
        assertThat(((ParseResult.Parsed) results.get(0)).reading().getDeviceId()).isEqualTo("d1");
        assertThat(((ParseResult.Rejected) results.get(1)).reason()).contains("not a number");
        assertThat(chars[0]).isEqualTo(Files.readString(file).length());
    }

    @Test
    void jsonLinesStopWhenTheVisitorSaysSo() throws IOException {
        Path file = Files.writeString(dir.resolve("r.jsonl"), """
                {"device":"d1","metric":"t","timestamp":1000,"value":1}
                {"device":"d2","metric":"t","timestamp":2000,"value":2}
                {"device":"d3","metric":"t","timestamp":3000,"value":3}
                """);
        List<String> devices = new ArrayList<>();

        FileReadings.forEach(file, FileFormat.AUTO, (result, read) -> {
            devices.add(((ParseResult.Parsed) result).reading().getDeviceId());
            return devices.size() < 2;
        });

        assertThat(devices).containsExactly("d1", "d2");
    }

    @Test
    void aBadHeaderIsRefusedBeforeAnyLineIsVisited() throws IOException {
        Path file = Files.writeString(dir.resolve("r.txt"), "device,metric,value\nd1,t,1\n");
        List<ParseResult> results = new ArrayList<>();

        assertThatThrownBy(() -> FileReadings.forEach(file, FileFormat.CSV, (result, read) -> results.add(result)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("r.txt line 1", "no column 'timestamp'");
        assertThat(results).isEmpty();
    }
}
