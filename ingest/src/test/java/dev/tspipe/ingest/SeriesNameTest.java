package dev.tspipe.ingest;

import org.junit.jupiter.api.Test;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;

class SeriesNameTest {

    @Test
    void labelsSortedQuotedAndEscapedAsPrometheusWritesASeries() {
        Map<String, String> labels = new LinkedHashMap<>();
        labels.put("mode", "idle");
        labels.put("cpu", "0");
        assertThat(SeriesName.of("node_cpu_seconds_total", labels)).isEqualTo("node_cpu_seconds_total{cpu=\"0\",mode=\"idle\"}");
        assertThat(SeriesName.of("up", Map.of())).isEqualTo("up");
        assertThat(SeriesName.of("up", Map.of("job", ""))).as("an empty label is no label").isEqualTo("up");
        assertThat(SeriesName.of("m", Map.of("path", "C:\\tmp \"x\"\nend"))).isEqualTo("m{path=\"C:\\\\tmp \\\"x\\\"\\nend\"}");
        assertThat(SeriesName.of("m", Map.of("host-name", "a"))).as("a tag that is no identifier").isEqualTo("m{\"host-name\"=\"a\"}");
    }

    @Test
    void aPlainMetricOrOneNotInThatFormHasNoLabels() {
        assertThat(SeriesName.parse("temperature")).isEqualTo(new SeriesName.Parsed("temperature", new TreeMap<>()));
        for (String odd : new String[] {"{a=\"b\"}", "m{}", "m{a=b}", "m{a=\"b\"", "m{a=\"b\",}", "m{a=\"b\"x}", "m{a=\"b\",a=\"c\"}",
                "m{a=\"\\q\"}", "weird{name"}) {
            assertThat(SeriesName.parse(odd)).as(odd).isEqualTo(new SeriesName.Parsed(odd, new TreeMap<>()));
        }
    }

    @Test
    void randomLabelsReadBackAsWritten() {
        long seed = Long.getLong("tspipe.seed", System.nanoTime());
        Random random = new Random(seed);
        String alphabet = "ab_Z09 -.,=\"\\{}\n#%é";
        for (int round = 0; round < 5_000; round++) {
            TreeMap<String, String> labels = new TreeMap<>();
            for (int l = random.nextInt(4); l > 0; l--) {
                labels.put(text(random, alphabet), text(random, alphabet));
            }
            String name = "m" + text(random, "abc._:");
            String metric = SeriesName.of(name, labels);
            SeriesName.Parsed parsed = SeriesName.parse(metric);
            assertThat(parsed.name()).as("seed " + seed + ": " + metric).isEqualTo(name);
            assertThat(parsed.labels()).as("seed " + seed + ": " + metric).isEqualTo(labels);
        }
    }

    private static String text(Random random, String alphabet) {
        StringBuilder text = new StringBuilder();
        for (int i = 1 + random.nextInt(6); i > 0; i--) {
            text.append(alphabet.charAt(random.nextInt(alphabet.length())));
        }
        return text.toString();
    }
}
