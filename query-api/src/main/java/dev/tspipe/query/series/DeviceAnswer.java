package dev.tspipe.query.series;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.tspipe.schemas.Device;

import java.util.Map;
import java.util.TreeMap;

/**
 * A device's metadata as the API answers it: {@code {"id", "tenant" (when it has one), "site", "type", "labels",
 * "registered"}}, {@code site} and {@code type} null when not set, {@code registered} in epoch milliseconds.
 */
public record DeviceAnswer(String id, @JsonInclude(JsonInclude.Include.NON_NULL) String tenant, String site, String type,
                           Map<String, String> labels, long registered) {

    public static DeviceAnswer of(Device device) {
        return new DeviceAnswer(device.getId(), device.getTenant(), device.getSite(), device.getType(),
                new TreeMap<>(device.getLabels()), device.getRegistered().toEpochMilli());
    }
}
