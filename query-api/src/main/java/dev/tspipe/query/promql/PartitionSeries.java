package dev.tspipe.query.promql;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tspipe.model.keys.SeriesId;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;

/**
 * What one partition gives a query: its series that the selector picks, each with its value at every instant
 * ({@link Double#NaN}: no point), or without values when only the series are asked for. Instances send it to each
 * other as JSON: {@code {"series": [{"tenant", "device", "metric", "latest", "values": [1.5, null, "+Inf"]}]}}.
 */
public record PartitionSeries(List<Values> series) {

    private static final ObjectMapper JSON = new ObjectMapper();

    /**
     * One series.
     *
     * @param latest the timestamp of its newest reading
     * @param values its value at each instant, or null when only series are asked for
     */
    public record Values(SeriesId series, long latest, double[] values) {
    }

    public byte[] toJson() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (JsonGenerator json = JSON.getFactory().createGenerator(out)) {
            json.writeStartObject();
            json.writeArrayFieldStart("series");
            for (Values one : series) {
                json.writeStartObject();
                if (one.series().tenant() != null) {
                    json.writeStringField("tenant", one.series().tenant());
                }
                json.writeStringField("device", one.series().device());
                json.writeStringField("metric", one.series().metric());
                json.writeNumberField("latest", one.latest());
                if (one.values() != null) {
                    json.writeArrayFieldStart("values");
                    for (double value : one.values()) {
                        if (Double.isNaN(value)) {
                            json.writeNull();
                        } else if (Double.isInfinite(value)) {
                            json.writeString(value > 0 ? "+Inf" : "-Inf");
                        } else {
                            json.writeNumber(value);
                        }
                    }
                    json.writeEndArray();
                }
                json.writeEndObject();
            }
            json.writeEndArray();
            json.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toByteArray();
    }

    public static PartitionSeries fromJson(byte[] body) throws IOException {
        return fromJson(JSON.readTree(body));
    }

    /** The series of {@link #toJson}, already parsed (one partition of an answer that holds several). */
    public static PartitionSeries fromJson(JsonNode root) throws IOException {
        if (root == null || !root.path("series").isArray()) {
            throw new IOException("not a partition's series: no 'series' array");
        }
        List<Values> series = new ArrayList<>();
        for (JsonNode one : root.path("series")) {
            SeriesId id = new SeriesId(one.hasNonNull("tenant") ? one.get("tenant").asText() : null,
                    one.path("device").asText(), one.path("metric").asText());
            double[] values = null;
            if (one.has("values")) {
                JsonNode array = one.get("values");
                values = new double[array.size()];
                for (int i = 0; i < values.length; i++) {
                    JsonNode value = array.get(i);
                    values[i] = value.isNull() ? Double.NaN : value.isTextual()
                            ? (value.asText().startsWith("-") ? Double.NEGATIVE_INFINITY : Double.POSITIVE_INFINITY)
                            : value.asDouble();
                }
            }
            series.add(new Values(id, one.path("latest").asLong(), values));
        }
        return new PartitionSeries(series);
    }
}
