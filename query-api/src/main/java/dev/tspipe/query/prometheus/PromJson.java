package dev.tspipe.query.prometheus;

import dev.tspipe.query.promql.PromQuery;
import dev.tspipe.query.promql.Instants;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;
import java.util.Collection;
import java.util.List;
import java.util.Map;

/**
 * Prometheus' JSON envelope (its docs/querying/api.md, "Format overview"): {@code {"status": "success", "data": ...,
 * "warnings": [...]}} or {@code {"status": "error", "errorType": ..., "error": ...}}; times as unix seconds (a number
 * with the milliseconds as decimals when there are any), values as strings.
 */
final class PromJson {

    private static final JsonFactory FACTORY = new JsonFactory();

    /** Writes the {@code data} of an answer. */
    @FunctionalInterface
    interface Data {
        void write(JsonGenerator json) throws IOException;
    }

    private PromJson() {
    }

    static byte[] success(Data data, Collection<String> warnings) {
        return write(json -> {
            json.writeStringField("status", "success");
            json.writeFieldName("data");
            data.write(json);
            if (!warnings.isEmpty()) {
                json.writeArrayFieldStart("warnings");
                for (String warning : warnings) {
                    json.writeString(warning);
                }
                json.writeEndArray();
            }
        });
    }

    static byte[] error(String errorType, String message) {
        return write(json -> {
            json.writeStringField("status", "error");
            json.writeStringField("errorType", errorType);
            json.writeStringField("error", message);
        });
    }

    /** {@code data} of a range query: {@code {"resultType": "matrix", "result": [{"metric", "values"}]}}. */
    static Data matrix(List<PromQuery.Labeled> series, Instants instants) {
        return json -> {
            json.writeStartObject();
            json.writeStringField("resultType", "matrix");
            json.writeArrayFieldStart("result");
            for (PromQuery.Labeled one : series) {
                json.writeStartObject();
                labels(json, "metric", one.labels());
                json.writeArrayFieldStart("values");
                for (int i = 0; i < one.values().length; i++) {
                    if (!Double.isNaN(one.values()[i])) {
                        sample(json, instants.at(i), one.values()[i]);
                    }
                }
                json.writeEndArray();
                json.writeEndObject();
            }
            json.writeEndArray();
            json.writeEndObject();
        };
    }

    /** {@code data} of an instant query: {@code {"resultType": "vector", "result": [{"metric", "value"}]}}. */
    static Data vector(List<PromQuery.Labeled> series, long time) {
        return json -> {
            json.writeStartObject();
            json.writeStringField("resultType", "vector");
            json.writeArrayFieldStart("result");
            for (PromQuery.Labeled one : series) {
                json.writeStartObject();
                labels(json, "metric", one.labels());
                json.writeFieldName("value");
                sample(json, time, one.values()[0]);
                json.writeEndObject();
            }
            json.writeEndArray();
            json.writeEndObject();
        };
    }

    /** {@code data} of a number: {@code {"resultType": "scalar", "result": [time, "value"]}}. */
    static Data scalar(double value, long time) {
        return json -> {
            json.writeStartObject();
            json.writeStringField("resultType", "scalar");
            json.writeFieldName("result");
            sample(json, time, value);
            json.writeEndObject();
        };
    }

    /** {@code data} of /series: a list of label sets. */
    static Data labelSets(Collection<Map<String, String>> sets) {
        return json -> {
            json.writeStartArray();
            for (Map<String, String> labels : sets) {
                labels(json, null, labels);
            }
            json.writeEndArray();
        };
    }

    /** {@code data} of /labels and /label/{name}/values: a list of strings. */
    static Data strings(Collection<String> strings) {
        return json -> {
            json.writeStartArray();
            for (String s : strings) {
                json.writeString(s);
            }
            json.writeEndArray();
        };
    }

    /** {@code data} of /metadata: each metric with one entry of type {@code unknown} (tspipe keeps no types). */
    static Data metadata(Collection<String> metrics) {
        return json -> {
            json.writeStartObject();
            for (String metric : metrics) {
                json.writeArrayFieldStart(metric);
                json.writeStartObject();
                json.writeStringField("type", "unknown");
                json.writeStringField("help", "");
                json.writeStringField("unit", "");
                json.writeEndObject();
                json.writeEndArray();
            }
            json.writeEndObject();
        };
    }

    /** {@code [time, "value"]}. */
    private static void sample(JsonGenerator json, long millis, double value) throws IOException {
        json.writeStartArray();
        json.writeNumber(seconds(millis));
        json.writeString(value(value));
        json.writeEndArray();
    }

    private static void labels(JsonGenerator json, String field, Map<String, String> labels) throws IOException {
        if (field != null) {
            json.writeFieldName(field);
        }
        json.writeStartObject();
        for (Map.Entry<String, String> label : labels.entrySet()) {
            json.writeStringField(label.getKey(), label.getValue());
        }
        json.writeEndObject();
    }

    /** Unix seconds as Prometheus writes them: {@code 1700000000}, {@code 1700000000.5}. */
    static String seconds(long millis) {
        return BigDecimal.valueOf(millis, 3).stripTrailingZeros().toPlainString();
    }

    /** A value as Prometheus writes it: the shortest decimal, no exponent; {@code NaN}, {@code +Inf}, {@code -Inf}. */
    static String value(double value) {
        if (Double.isNaN(value)) {
            return "NaN";
        }
        if (Double.isInfinite(value)) {
            return value > 0 ? "+Inf" : "-Inf";
        }
        if (value == 0) {
            return (1 / value < 0) ? "-0" : "0";
        }
        String digits = Double.toString(value);
        if (digits.length() > 17) {
            // Java 17's Double.toString sometimes gives more digits than needed (JDK-4511638, fixed in 19): the
            // fewest significant digits that read back as the same double, as Go's FormatFloat(v, 'f', -1, 64).
            for (int precision = 1; precision < 17; precision++) {
                BigDecimal shorter = new BigDecimal(value).round(new MathContext(precision, RoundingMode.HALF_EVEN));
                if (shorter.doubleValue() == value) {
                    return shorter.stripTrailingZeros().toPlainString();
                }
            }
        }
        return new BigDecimal(digits).stripTrailingZeros().toPlainString();
    }

    private static byte[] write(Data fields) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (JsonGenerator json = FACTORY.createGenerator(out)) {
            json.writeStartObject();
            fields.write(json);
            json.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toByteArray();
    }
}
