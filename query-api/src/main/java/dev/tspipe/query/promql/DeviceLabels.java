package dev.tspipe.query.promql;

import java.util.Map;

/**
 * The metadata of a device as labels of its series (its site, type and labels: docs/devices.md), which a selector can
 * match ({@code temperature{site="plant-1"}}); the series' own labels win where names clash ({@link SeriesSelection}).
 */
@FunctionalInterface
public interface DeviceLabels {

    /** No metadata: series have their own labels only. */
    DeviceLabels NONE = (tenant, device) -> Map.of();

    /** The labels of {@code device} of {@code tenant} (null: none); empty for a device without metadata. */
    Map<String, String> of(String tenant, String device);
}
