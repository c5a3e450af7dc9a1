package dev.tspipe.query.series;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.tspipe.model.rows.LatestReading;
import dev.tspipe.model.rows.RawRow;
import dev.tspipe.model.rows.Rollup;

import java.util.List;
import java.util.Map;

/** The JSON shapes of the API's answers (docs/design.md §6), as records serialized by Jackson. */
public final class Answers {

    private Answers() {
    }

    /** One reading: {@code {"timestamp", "value", "tags"}}. */
    public record Reading(long timestamp, double value, Map<String, String> tags) {
        static Reading of(long timestamp, RawRow row) {
            return new Reading(timestamp, row.value(), row.tags());
        }
    }

    /** A page of readings, newest first unless {@code order} is {@code asc}. */
    public record ReadingsPage(@JsonInclude(JsonInclude.Include.NON_NULL) String tenant, String device, String metric,
                               long from, long to, String order, List<Reading> readings, String nextCursor) {
    }

    /** One rollup bucket: readings with timestamps in {@code [start, start + step)}. */
    public record Bucket(long start, long count, double sum, double min, double max, double mean, double last,
                         long lastTimestamp) {
        static Bucket of(long start, Rollup rollup) {
            return new Bucket(start, rollup.count(), rollup.sum(), rollup.min(), rollup.max(), rollup.mean(),
                    rollup.last(), rollup.lastEpochMillis());
        }
    }

    /** A page of rollup buckets of one step. */
    public record RollupsPage(@JsonInclude(JsonInclude.Include.NON_NULL) String tenant, String device, String metric,
                              String step, long from, long to, String order, List<Bucket> buckets, String nextCursor) {
    }

    /** The newest reading of a series. */
    public record Latest(@JsonInclude(JsonInclude.Include.NON_NULL) String tenant, String device, String metric,
                         long timestamp, double value, Map<String, String> tags) {
    }

    /** One metric of a device with its newest reading. */
    public record DeviceMetric(String metric, Reading latest) {
        static DeviceMetric of(String metric, LatestReading latest) {
            return new DeviceMetric(metric, Reading.of(latest.epochMillis(), latest.row()));
        }
    }

    /** The metrics of a device, by name; with its {@code metadata} when the device table has it (docs/devices.md). */
    public record DeviceMetrics(@JsonInclude(JsonInclude.Include.NON_NULL) String tenant, String device,
                                List<DeviceMetric> metrics,
                                @JsonInclude(JsonInclude.Include.NON_NULL) Boolean truncated,
                                @JsonInclude(JsonInclude.Include.NON_NULL) DeviceAnswer metadata) {
        public DeviceMetrics(String tenant, String device, List<DeviceMetric> metrics) {
            this(tenant, device, metrics, null, null);
        }

        public DeviceMetrics(String tenant, String device, List<DeviceMetric> metrics, Boolean truncated) {
            this(tenant, device, metrics, truncated, null);
        }

        /** This answer with the device's metadata (null: none). */
        public DeviceMetrics withMetadata(DeviceAnswer metadata) {
            return new DeviceMetrics(tenant, device, metrics, truncated, metadata);
        }
    }

    /**
     * A downsampled series: one point per bucket of {@code step} ms starting at {@code align + k * step}, read from
     * {@code source} ({@code raw}, {@code rollups-1m}, {@code rollups-1h}, {@code rollups-1d}).
     */
    public record Downsampled(@JsonInclude(JsonInclude.Include.NON_NULL) String tenant, String device, String metric,
                              long from, long to, long step, long align, String fn, String fill, String source,
                              List<dev.tspipe.query.downsample.Downsampler.Point> points) {
    }
}
