package dev.tspipe.ingest.influx;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class LineProtocolTest {

    @Test
    void theExamplesOfInfluxDbsReference() throws Exception {
        assertThat(LineProtocol.parse("myMeasurement,tag1=value1,tag2=value2 fieldKey=\"fieldValue\" 1556813561098000000"))
                .containsExactly(new LinePoint("myMeasurement", new TreeMap<>(Map.of("tag1", "value1", "tag2", "value2")),
                        Map.of("fieldKey", new FieldValue.StringValue("fieldValue")), 1556813561098000000L));
        LinePoint cpu = LineProtocol.parse("cpu,host=server01,region=us-west usage_idle=92.5,usage_user=3i,up=t,load=1u").get(0);
        assertThat(cpu.measurement()).isEqualTo("cpu");
        assertThat(cpu.tags()).containsExactly(Map.entry("host", "server01"), Map.entry("region", "us-west"));
        assertThat(cpu.fields()).containsExactly(Map.entry("usage_idle", new FieldValue.FloatValue(92.5)),
                Map.entry("usage_user", new FieldValue.IntegerValue(3)), Map.entry("up", new FieldValue.BooleanValue(true)),
                Map.entry("load", new FieldValue.UnsignedValue(1)));
        assertThat(cpu.timestamp()).isNull();
    }

    @Test
    void escapesInEveryPlace() throws Exception {
        LinePoint point = LineProtocol.parse(
                "my\\ measure\\,ment,tag\\ key\\,x\\=y=tag\\ value\\,z\\=1 field\\ key\\=a=\"say \\\"hi\\\" \\\\ back\",f=-1.5e3 -42").get(0);
        assertThat(point.measurement()).isEqualTo("my measure,ment");
        assertThat(point.tags()).containsExactly(Map.entry("tag key,x=y", "tag value,z=1"));
        assertThat(point.fields()).containsExactly(Map.entry("field key=a", new FieldValue.StringValue("say \"hi\" \\ back")),
                Map.entry("f", new FieldValue.FloatValue(-1500)));
        assertThat(point.timestamp()).isEqualTo(-42);
        // An equals sign needs no escape in a measurement; a string may hold spaces, commas and '='.
        assertThat(LineProtocol.parse("a=b c=\"x, y=z w\"").get(0)).isEqualTo(new LinePoint("a=b", new TreeMap<>(),
                Map.of("c", new FieldValue.StringValue("x, y=z w")), null));
    }

    @Test
    void everyFormOfEachType() throws Exception {
        String[] trues = {"t", "T", "true", "True", "TRUE"};
        String[] falses = {"f", "F", "false", "False", "FALSE"};
        for (String t : trues) {
            assertThat(field(t)).isEqualTo(new FieldValue.BooleanValue(true));
        }
        for (String f : falses) {
            assertThat(field(f)).isEqualTo(new FieldValue.BooleanValue(false));
        }
        assertThat(field("1")).isEqualTo(new FieldValue.FloatValue(1));
        assertThat(field("-0.5")).isEqualTo(new FieldValue.FloatValue(-0.5));
        assertThat(field(".5")).isEqualTo(new FieldValue.FloatValue(0.5));
        assertThat(field("1.")).isEqualTo(new FieldValue.FloatValue(1));
        assertThat(field("+2E-3")).isEqualTo(new FieldValue.FloatValue(0.002));
        assertThat(field("-9223372036854775808i")).isEqualTo(new FieldValue.IntegerValue(Long.MIN_VALUE));
        assertThat(field("18446744073709551615u")).isEqualTo(new FieldValue.UnsignedValue(-1L));
        assertThat(field("\"\"")).isEqualTo(new FieldValue.StringValue(""));
    }

    @Test
    void blankLinesCommentsAndCrLfAreSkipped() throws Exception {
        List<LinePoint> points = LineProtocol.parse("# a comment\r\n\r\n  \r\nm v=1 1\r\nm v=2 2\n\n");
        assertThat(points).extracting(LinePoint::timestamp).containsExactly(1L, 2L);
    }

    @Test
    void wrongLinesAreRefusedWithTheirNumberAndWhatIsWrong() {
        assertRefused("m v=1\n,t=a v=1", 2, "the measurement is missing");
        assertRefused("m", 1, "no fields");
        assertRefused("m,t v=1", 1, "tag 't' has no '=value'");
        assertRefused("m,t= v=1", 1, "a tag needs a key and a value");
        assertRefused("m v", 1, "field 'v' has no '=value'");
        assertRefused("m v=", 1, "field 'v' has no value");
        assertRefused("m =1", 1, "a field needs a key");
        assertRefused("m v=\"open", 1, "the string of field 'v' has no closing quote");
        assertRefused("m v=1x", 1, "field 'v' = 1x is not a float");
        assertRefused("m v=9223372036854775808i", 1, "is not a float");
        assertRefused("m v=-1u", 1, "is not a float");
        assertRefused("m v=1e999", 1, "beyond a 64-bit float");
        assertRefused("m v=NaN", 1, "is not a float");
        assertRefused("m v=1 12:00", 1, "the timestamp '12:00' is not a whole number");
        assertRefused("m v=\"a\"x", 1, "unexpected 'x' after field 'v'");
    }

    /**
     * Seeded random points with every type and escapes everywhere, written by an independent encoder of the
     * grammar: each parses back to itself.
     */
    @Test
    void randomPointsSurviveAWriteAndAParse() throws Exception {
        long seed = Long.getLong("tspipe.seed", System.nanoTime());
        Random random = new Random(seed);
        for (int round = 0; round < 200; round++) {
            List<LinePoint> points = new ArrayList<>();
            StringBuilder body = new StringBuilder();
            for (int i = 0; i < 1 + random.nextInt(20); i++) {
                LinePoint point = randomPoint(random);
                points.add(point);
                body.append(encode(point)).append(random.nextBoolean() ? "\n" : "\r\n");
            }
            assertThat(LineProtocol.parse(body.toString())).as("seed %d (rerun with -Dtspipe.seed=%d):%n%s", seed, seed, body)
                    .isEqualTo(points);
        }
    }

    // ---------------------------------------------------------------------------------------------

    private static FieldValue field(String text) throws LineProtocolException {
        return LineProtocol.parse("m v=" + text).get(0).fields().get("v");
    }

    private static void assertRefused(String body, int line, String reason) {
        assertThatThrownBy(() -> LineProtocol.parse(body)).isInstanceOf(LineProtocolException.class)
                .hasMessageStartingWith("line " + line + ": ").hasMessageContaining(reason)
                .satisfies(e -> assertThat(((LineProtocolException) e).line()).isEqualTo(line));
    }

    private static final String CHARS = "abcXYZ019_-. ,=\"\\é";

    private static String text(Random random, int min) {
        StringBuilder text = new StringBuilder();
        int length = min + random.nextInt(8);
        for (int i = 0; i < length; i++) {
            text.append(CHARS.charAt(random.nextInt(CHARS.length())));
        }
        return text.toString();
    }

    private static LinePoint randomPoint(Random random) {
        String measurement;
        do {
            measurement = text(random, 1);
        } while (measurement.startsWith("#") || measurement.startsWith(" ") || measurement.endsWith("\\"));
        TreeMap<String, String> tags = new TreeMap<>();
        for (int i = 0; i < random.nextInt(4); i++) {
            tags.put(name(random), name(random));
        }
        Map<String, FieldValue> fields = new LinkedHashMap<>();
        for (int i = 0; i < 1 + random.nextInt(4); i++) {
            FieldValue value = switch (random.nextInt(5)) {
                case 0 -> new FieldValue.FloatValue(random.nextGaussian() * Math.pow(10, random.nextInt(20) - 10));
                case 1 -> new FieldValue.IntegerValue(random.nextLong());
                case 2 -> new FieldValue.UnsignedValue(random.nextLong());
                case 3 -> new FieldValue.BooleanValue(random.nextBoolean());
                default -> new FieldValue.StringValue(text(random, 0));
            };
            fields.put(name(random), value);
        }
        return new LinePoint(measurement, tags, fields, random.nextBoolean() ? null : random.nextLong());
    }

    private static String name(Random random) {
        String name;
        do {
            name = text(random, 1);
        } while (name.endsWith("\\"));
        return name;
    }

    /** The line protocol of a point, escaped as InfluxDB's reference says. */
    private static String encode(LinePoint point) {
        StringBuilder line = new StringBuilder(escape(point.measurement(), ", "));
        point.tags().forEach((k, v) -> line.append(',').append(escape(k, ",= ")).append('=').append(escape(v, ",= ")));
        line.append(' ');
        List<String> fields = new ArrayList<>();
        point.fields().forEach((k, v) -> fields.add(escape(k, ",= ") + "=" + value(v)));
        line.append(String.join(",", fields));
        if (point.timestamp() != null) {
            line.append(' ').append(point.timestamp());
        }
        return line.toString();
    }

    private static String value(FieldValue value) {
        if (value instanceof FieldValue.FloatValue f) {
            return Double.toString(f.value());
        } else if (value instanceof FieldValue.IntegerValue n) {
            return n.value() + "i";
        } else if (value instanceof FieldValue.UnsignedValue u) {
            return Long.toUnsignedString(u.bits()) + "u";
        } else if (value instanceof FieldValue.BooleanValue b) {
            return b.value() ? "true" : "F";
        }
        return "\"" + ((FieldValue.StringValue) value).value().replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
    }

    private static String escape(String text, String special) {
        StringBuilder escaped = new StringBuilder();
        for (char c : text.toCharArray()) {
            if (special.indexOf(c) >= 0 || c == '\\') {
                escaped.append('\\');
            }
            escaped.append(c);
        }
        return escaped.toString();
    }
}
