package dev.tspipe.model.keys;

import java.util.Objects;

/**
 * One time series: a metric of a device, optionally of a tenant. It is the part of a row key
 * that groups rows; every row of a series is contiguous in a store.
 *
 * @param tenant the owner when tspipe runs multi-tenant, else {@code null}
 * @param device the distribution key: every row of a device lives in one Kafka partition
 * @param metric what is measured
 */
public record SeriesId(String tenant, String device, String metric) {

    public SeriesId {
        Objects.requireNonNull(device, "device");
        Objects.requireNonNull(metric, "metric");
    }

    /** A series of a single-tenant deployment. */
    public static SeriesId of(String device, String metric) {
        return new SeriesId(null, device, metric);
    }

    /** A series of a tenant. */
    public static SeriesId of(String tenant, String device, String metric) {
        return new SeriesId(Objects.requireNonNull(tenant, "tenant"), device, metric);
    }

    /** The Kafka message key of this series' readings: its device's {@link DistributionKey}. */
    public String distributionKey() {
        return DistributionKey.of(tenant, device);
    }
}
