package dev.tspipe.query.prometheus;

import dev.tspipe.query.promql.PartitionSeries;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tspipe.query.routing.ScatterGather;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The answer of the internal partition route ({@link PrometheusApi#PARTITION_PATH}): Prometheus' envelope around the
 * series of each partition read (as {@link PartitionSeries#toJson} writes them), by number, and the lag of those read
 * from a copy behind:
 * <pre>{"status":"success","data":{"partitions":{"1":{"series":[...]},"3":{"series":[...]}},"lags":{"3":5}}}</pre>
 */
final class PartitionsAnswer {

    private static final ObjectMapper JSON = new ObjectMapper();

    private PartitionsAnswer() {
    }

    static byte[] write(ScatterGather.Result<PartitionSeries> result) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes("{\"status\":\"success\",\"data\":{\"partitions\":{".getBytes(StandardCharsets.UTF_8));
        String separator = "";
        for (Map.Entry<Integer, PartitionSeries> one : result.answers().entrySet()) {
            out.writeBytes((separator + "\"" + one.getKey() + "\":").getBytes(StandardCharsets.UTF_8));
            out.writeBytes(one.getValue().toJson());
            separator = ",";
        }
        StringBuilder lags = new StringBuilder("},\"lags\":{");
        separator = "";
        for (Map.Entry<Integer, Long> lag : result.lags().entrySet()) {
            lags.append(separator).append('"').append(lag.getKey()).append("\":").append(lag.getValue());
            separator = ",";
        }
        out.writeBytes(lags.append("}}}").toString().getBytes(StandardCharsets.UTF_8));
        return out.toByteArray();
    }

    /** The partitions of {@code asked} that the answer has, and which of them a copy behind read (with its lag). */
    static ScatterGather.Batch<PartitionSeries> read(byte[] body, Set<Integer> asked) throws IOException {
        JsonNode data = JSON.readTree(body).path("data");
        Map<Integer, PartitionSeries> series = new TreeMap<>();
        Map<Integer, Long> lags = new TreeMap<>();
        for (int p : asked) {
            JsonNode one = data.path("partitions").get(Integer.toString(p));
            if (one != null) {
                series.put(p, PartitionSeries.fromJson(one));
            }
            JsonNode lag = data.path("lags").get(Integer.toString(p));
            if (lag != null && lag.canConvertToLong()) {
                lags.put(p, lag.asLong());
            }
        }
        return new ScatterGather.Batch<>(series, lags.keySet(), lags);
    }
}
