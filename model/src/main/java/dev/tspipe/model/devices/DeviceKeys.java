package dev.tspipe.model.devices;

import dev.tspipe.model.keys.DistributionKey;
import dev.tspipe.schemas.Device;

/**
 * The key of a device in the devices topic and in every node's device table: {@code tenant/id} when it has a tenant,
 * else {@code id}: the device's {@link DistributionKey}, as its readings are keyed (docs/devices.md).
 */
public final class DeviceKeys {

    private DeviceKeys() {
    }

    public static String keyOf(String tenant, String id) {
        return DistributionKey.of(tenant, id);
    }

    public static String keyOf(Device device) {
        return keyOf(device.getTenant(), device.getId());
    }
}
