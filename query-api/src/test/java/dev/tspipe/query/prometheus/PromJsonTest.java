package dev.tspipe.query.prometheus;

import dev.tspipe.query.promql.PromQuery;
import dev.tspipe.query.promql.Instants;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;

/** The envelope and number formats against the shapes in Prometheus' docs/querying/api.md. */
class PromJsonTest {

    private static final ObjectMapper MAPPER = new ObjectMapper();

    @Test
    void timesAreUnixSecondsWithTheMillisecondsAsDecimalsWhenThereAreAny() {
        assertThat(PromJson.seconds(1_700_000_000_000L)).isEqualTo("1700000000");
        assertThat(PromJson.seconds(1_700_000_000_500L)).isEqualTo("1700000000.5");
        assertThat(PromJson.seconds(1_700_000_000_120L)).isEqualTo("1700000000.12");
        assertThat(PromJson.seconds(1_700_000_000_123L)).isEqualTo("1700000000.123");
        assertThat(PromJson.seconds(1_700_000_000_001L)).isEqualTo("1700000000.001");
        assertThat(PromJson.seconds(0)).isEqualTo("0");
        assertThat(PromJson.seconds(10_000)).isEqualTo("10");
    }

    @Test
    void valuesAreDecimalsWithoutExponentAsGoFormatsThem() {
        assertThat(PromJson.value(20.0)).isEqualTo("20");
        assertThat(PromJson.value(0.1)).isEqualTo("0.1");
        assertThat(PromJson.value(-2.5)).isEqualTo("-2.5");
        assertThat(PromJson.value(1e21)).isEqualTo("1000000000000000000000");
        assertThat(PromJson.value(1.5e-7)).isEqualTo("0.00000015");
        assertThat(PromJson.value(Double.NaN)).isEqualTo("NaN");
        assertThat(PromJson.value(Double.POSITIVE_INFINITY)).isEqualTo("+Inf");
        assertThat(PromJson.value(Double.NEGATIVE_INFINITY)).isEqualTo("-Inf");
        assertThat(PromJson.value(-0.0)).isEqualTo("-0");
        assertThat(PromJson.value(0.0)).isEqualTo("0");
    }

    /**
     * Go's {@code strconv.FormatFloat(v, 'f', -1, 64)}, which Prometheus writes values with, gives the shortest decimal
     * that reads back as the same double. {@link Double#toString} gives it from JDK 19 (JDK-4511638); on 17 it gives more
     * digits for these.
     */
    @Test
    void valuesAreTheShortestDecimalThatReadsBack() {
        assertThat(PromJson.value(1e23)).isEqualTo("100000000000000000000000");
        assertThat(PromJson.value(2.82879384806159e17)).isEqualTo("282879384806159000");
    }

    /** Seeded: every finite double is written as a plain decimal that parses back to that double. */
    @Test
    void everyFiniteValueReadsBackAsItself() {
        long seed = Long.getLong("tspipe.seed", System.nanoTime());
        Random random = new Random(seed);
        for (int i = 0; i < 20_000; i++) {
            double x = switch (i % 4) {
                case 0 -> Double.longBitsToDouble(random.nextLong());
                case 1 -> random.nextGaussian() * Math.pow(10, random.nextInt(40) - 20);
                case 2 -> random.nextInt(2_000_001) - 1_000_000;
                default -> (random.nextInt(2_000_001) - 1_000_000) / 1000.0;
            };
            if (!Double.isFinite(x)) {
                continue;
            }
            String written = PromJson.value(x);
            assertThat(written).as("seed %d (rerun with -Dtspipe.seed=%d): %s", seed, seed, x).matches("-?\\d+(\\.\\d+)?");
            assertThat(Double.parseDouble(written)).as("seed %d (rerun with -Dtspipe.seed=%d): %s", seed, seed, x)
                    .isEqualTo(x);
        }
    }

    @Test
    void aRangeQueryIsAMatrixThatLeavesOutTheInstantsWithoutAValue() throws Exception {
        Instants instants = new Instants(1_700_000_000_000L, 1_700_000_030_000L, 15_000L);
        List<PromQuery.Labeled> series = List.of(
                new PromQuery.Labeled(labels("__name__", "temperature", "device", "press-1"), new double[]{1, Double.NaN, 3.5}),
                new PromQuery.Labeled(labels("device", "press-\"2\""), new double[]{0.25, -4, 1e21}));

        assertThat(parse(PromJson.success(PromJson.matrix(series, instants), List.of()))).isEqualTo(parse("""
                {"status": "success", "data": {"resultType": "matrix", "result": [
                  {"metric": {"__name__": "temperature", "device": "press-1"},
                   "values": [[1700000000, "1"], [1700000030, "3.5"]]},
                  {"metric": {"device": "press-\\"2\\""},
                   "values": [[1700000000, "0.25"], [1700000015, "-4"], [1700000030, "1000000000000000000000"]]}
                ]}}"""));
    }

    @Test
    void anInstantQueryIsAVectorWithOneValueASeries() throws Exception {
        List<PromQuery.Labeled> series = List.of(
                new PromQuery.Labeled(labels("__name__", "up", "device", "a"), new double[]{1}),
                new PromQuery.Labeled(labels("__name__", "up", "device", "b"), new double[]{Double.POSITIVE_INFINITY}));
        byte[] json = PromJson.success(PromJson.vector(series, 1_700_000_000_500L), List.of());

        assertThat(new String(json, StandardCharsets.UTF_8)).as("the time is a JSON number, the value a string")
                .contains("\"value\":[1700000000.5,\"1\"]");
        assertThat(parse(json)).isEqualTo(parse("""
                {"status": "success", "data": {"resultType": "vector", "result": [
                  {"metric": {"__name__": "up", "device": "a"}, "value": [1700000000.5, "1"]},
                  {"metric": {"__name__": "up", "device": "b"}, "value": [1700000000.5, "+Inf"]}
                ]}}"""));
        assertThat(parse(PromJson.success(PromJson.vector(List.of(), 1_700_000_000_000L), List.of()))).isEqualTo(parse("""
                {"status": "success", "data": {"resultType": "vector", "result": []}}"""));
    }

    @Test
    void aNumberIsAScalarOfOneTimeAndValue() throws Exception {
        assertThat(parse(PromJson.success(PromJson.scalar(2, 1_700_000_000_123L), List.of()))).isEqualTo(parse("""
                {"status": "success", "data": {"resultType": "scalar", "result": [1700000000.123, "2"]}}"""));
    }

    @Test
    void seriesLabelsAndMetadataAnswers() throws Exception {
        assertThat(parse(PromJson.success(PromJson.labelSets(List.of(labels("__name__", "up", "device", "a"),
                labels("__name__", "up", "device", "b", "tenant", "acme"))), List.of()))).isEqualTo(parse("""
                {"status": "success", "data": [
                  {"__name__": "up", "device": "a"},
                  {"__name__": "up", "device": "b", "tenant": "acme"}
                ]}"""));
        assertThat(parse(PromJson.success(PromJson.strings(List.of("__name__", "device")), List.of()))).isEqualTo(parse("""
                {"status": "success", "data": ["__name__", "device"]}"""));
        assertThat(parse(PromJson.success(PromJson.strings(List.of()), List.of()))).isEqualTo(parse("""
                {"status": "success", "data": []}"""));
        assertThat(parse(PromJson.success(PromJson.metadata(List.of("temperature", "up")), List.of()))).isEqualTo(parse("""
                {"status": "success", "data": {
                  "temperature": [{"type": "unknown", "help": "", "unit": ""}],
                  "up": [{"type": "unknown", "help": "", "unit": ""}]
                }}"""));
    }

    @Test
    void warningsArePresentOnlyWhenThereAreAny() throws Exception {
        JsonNode with = parse(PromJson.success(PromJson.strings(List.of("a")), List.of("partition 3 did not answer", "limit")));
        assertThat(with).isEqualTo(parse("""
                {"status": "success", "data": ["a"], "warnings": ["partition 3 did not answer", "limit"]}"""));

        JsonNode without = parse(PromJson.success(PromJson.strings(List.of("a")), List.of()));
        assertThat(without.has("warnings")).isFalse();
    }

    @Test
    void anErrorHasItsTypeAndMessage() throws Exception {
        assertThat(parse(PromJson.error("bad_data", "invalid parameter \"query\": parse error"))).isEqualTo(parse("""
                {"status": "error", "errorType": "bad_data", "error": "invalid parameter \\"query\\": parse error"}"""));
    }

    private static Map<String, String> labels(String... namesAndValues) {
        Map<String, String> labels = new TreeMap<>();
        for (int i = 0; i < namesAndValues.length; i += 2) {
            labels.put(namesAndValues[i], namesAndValues[i + 1]);
        }
        return labels;
    }

    private static JsonNode parse(byte[] json) throws Exception {
        return MAPPER.readTree(json);
    }

    private static JsonNode parse(String json) throws Exception {
        return MAPPER.readTree(json);
    }
}
