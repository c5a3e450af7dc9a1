package dev.tspipe.ingest;

import dev.tspipe.schemas.Reading;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.time.Instant;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class LineParserTest {

    private static final long MILLIS = Instant.parse("2026-11-30T10:00:00Z").toEpochMilli();

    private static Reading parsed(ParseResult result) {
        assertThat(result).isInstanceOf(ParseResult.Parsed.class);
        return ((ParseResult.Parsed) result).reading();
    }

    private static ParseResult.Rejected rejected(ParseResult result) {
        assertThat(result).isInstanceOf(ParseResult.Rejected.class);
        return (ParseResult.Rejected) result;
    }

    @Test
    void csvWithEveryColumnInAnyOrder() {
        LineParser parser = LineParser.csv("Value, timestamp,device,metric,tenant,tags");

        Reading reading = parsed(parser.parse(2, "21.5,2026-11-30T10:00:00Z,d-1,temperature,acme,unit=°C;site=berlin"));

        assertThat(reading.getDeviceId()).isEqualTo("d-1");
        assertThat(reading.getMetric()).isEqualTo("temperature");
        assertThat(reading.getTimestamp()).isEqualTo(Instant.ofEpochMilli(MILLIS));
        assertThat(reading.getValue()).isEqualTo(21.5);
        assertThat(reading.getTenant()).isEqualTo("acme");
        assertThat(reading.getTags()).containsExactlyInAnyOrderEntriesOf(Map.of("unit", "°C", "site", "berlin"));
    }

    @Test
    void csvEpochMillisQuotedFieldsAndOptionalColumnsLeftOut() {
        LineParser parser = LineParser.csv("device,metric,timestamp,value");

        Reading reading = parsed(parser.parse(7, "\"dev,1\",\"say \"\"hi\"\"\"," + MILLIS + ",-3e2"));

        assertThat(reading.getDeviceId()).isEqualTo("dev,1");
        assertThat(reading.getMetric()).isEqualTo("say \"hi\"");
        assertThat(reading.getTimestamp().toEpochMilli()).isEqualTo(MILLIS);
        assertThat(reading.getValue()).isEqualTo(-300.0);
        assertThat(reading.getTenant()).isNull();
        assertThat(reading.getTags()).isEmpty();
    }

    @Test
    void isoTimestampsWithAnOffsetOrFractions() {
        LineParser parser = LineParser.csv("device,metric,timestamp,value");

        assertThat(parsed(parser.parse(2, "d,m,2026-11-30T11:00:00+01:00,1")).getTimestamp().toEpochMilli()).isEqualTo(MILLIS);
        assertThat(parsed(parser.parse(3, "d,m,2026-11-30T10:00:00.123Z,1")).getTimestamp().toEpochMilli()).isEqualTo(MILLIS + 123);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', quoteCharacter = '`', value = {
            "d-1,temperature,1796032800000                  | 3 columns, but the header",
            "d-1,temperature,1796032800000,abc              | value 'abc' is not a number: write a decimal number",
            "d-1,temperature,1796032800000,NaN              | not a finite number",
            "d-1,temperature,1796032800000,                 | value is empty",
            "d-1,temperature,yesterday,1                    | timestamp 'yesterday' is not a time: write epoch milliseconds",
            "d-1,temperature,2026-11-30T10:00:00,1          | it has no zone: add Z",
            "d-1,temperature,2026-13-30T10:00:00Z,1         | is not a time",
            "d-1,temperature,-5,1                           | before 1970",
            ",temperature,1796032800000,1                   | device is empty",
            "d-1, ,1796032800000,1                          | metric is empty",
            "\"d-1,temperature,1796032800000,1              | quoted field is not closed",
    })
    void badCsvLinesAreRejectedWithTheirLineNumberAndWhatToFix(String line, String reason) {
        ParseResult.Rejected rejection = rejected(LineParser.csv("device,metric,timestamp,value").parse(42, line));

        assertThat(rejection.lineNumber()).isEqualTo(42);
        assertThat(rejection.reason()).contains(reason);
    }

    @Test
    void aBadTagIsRejected() {
        ParseResult.Rejected rejection = rejected(LineParser.csv("device,metric,timestamp,value,tags")
                .parse(3, "d,m,1796032800000,1,unit"));

        assertThat(rejection.reason()).contains("tag 'unit' is not key=value");
    }

    @Test
    void aHeaderWithoutARequiredColumnOrWithAnUnknownOneIsRefused() {
        assertThatThrownBy(() -> LineParser.csv("device,metric,value"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("no column 'timestamp'");
        assertThatThrownBy(() -> LineParser.csv("device,metric,timestamp,value,unit"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("unknown column 'unit'");
        assertThatThrownBy(() -> LineParser.csv("d-1,temperature,1796032800000,1"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("first line of a CSV file must be this header");
    }

    @Test
    void jsonLineWithEveryField() {
        Reading reading = parsed(LineParser.jsonLines().parse(1, "{\"device\":\"d-1\",\"metric\":\"humidity\",\"timestamp\":"
                + MILLIS + ",\"value\":45,\"tenant\":\"acme\",\"tags\":{\"unit\":\"%\",\"floor\":2},\"extra\":true}"));

        assertThat(reading.getDeviceId()).isEqualTo("d-1");
        assertThat(reading.getMetric()).isEqualTo("humidity");
        assertThat(reading.getTimestamp().toEpochMilli()).isEqualTo(MILLIS);
        assertThat(reading.getValue()).isEqualTo(45.0);
        assertThat(reading.getTenant()).isEqualTo("acme");
        assertThat(reading.getTags()).containsExactlyInAnyOrderEntriesOf(Map.of("unit", "%", "floor", "2"));
    }

    @Test
    void jsonTimestampsAsIsoStringOrDigitsInAString() {
        LineParser parser = LineParser.jsonLines();

        assertThat(parsed(parser.parse(1, "{\"device\":\"d\",\"metric\":\"m\",\"timestamp\":\"2026-11-30T10:00:00Z\",\"value\":1}"))
                .getTimestamp().toEpochMilli()).isEqualTo(MILLIS);
        assertThat(parsed(parser.parse(2, "{\"device\":\"d\",\"metric\":\"m\",\"timestamp\":\"" + MILLIS + "\",\"value\":1,\"tenant\":null}"))
                .getTimestamp().toEpochMilli()).isEqualTo(MILLIS);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', quoteCharacter = '`', value = {
            "{\"device\":\"d\",\"metric\":\"m\",\"timestamp\":1796032800000     | not valid JSON",
            "[1,2,3]                                                              | not a JSON object",
            "{\"device\":\"d\",\"metric\":\"m\",\"value\":1}                      | field 'timestamp' is missing",
            "{\"device\":\"d\",\"metric\":\"m\",\"timestamp\":1796032800000,\"value\":\"1.5\"} | is not a JSON number: write it without quotes",
            "{\"device\":7,\"metric\":\"m\",\"timestamp\":1796032800000,\"value\":1} | field 'device' is number 7, not a string",
            "{\"device\":\"d\",\"metric\":\"m\",\"timestamp\":1.5,\"value\":1}    | timestamp 1.5 is not a time",
            "{\"device\":\"d\",\"metric\":\"m\",\"timestamp\":\"noon\",\"value\":1} | timestamp 'noon' is not a time",
            "{\"device\":\"d\",\"metric\":\"m\",\"timestamp\":1796032800000,\"value\":1,\"tags\":[1]} | tags [1] is not an object",
            "{\"device\":\"\",\"metric\":\"m\",\"timestamp\":1796032800000,\"value\":1} | device is empty",
            "{\"device\":\"d\",\"metric\":\"m\",\"timestamp\":1796032800000,\"value\":1} trailing | not valid JSON",
    })
    void badJsonLinesAreRejectedWithTheirLineNumberAndWhatToFix(String line, String reason) {
        ParseResult.Rejected rejection = rejected(LineParser.jsonLines().parse(9, line));

        assertThat(rejection.lineNumber()).isEqualTo(9);
        assertThat(rejection.reason()).contains(reason);
    }

    @Test
    void formatFromTheFileNameOrTheFirstLine() {
        assertThat(FileFormat.AUTO.resolve(java.nio.file.Path.of("a.csv"), "{")).isEqualTo(FileFormat.CSV);
        assertThat(FileFormat.AUTO.resolve(java.nio.file.Path.of("a.ndjson"), "device")).isEqualTo(FileFormat.JSONL);
        assertThat(FileFormat.AUTO.resolve(java.nio.file.Path.of("a.txt"), " {\"device\":1}")).isEqualTo(FileFormat.JSONL);
        assertThat(FileFormat.AUTO.resolve(java.nio.file.Path.of("a.txt"), "device,metric")).isEqualTo(FileFormat.CSV);
        assertThat(FileFormat.CSV.resolve(java.nio.file.Path.of("a.jsonl"), "{")).isEqualTo(FileFormat.CSV);
    }
}
