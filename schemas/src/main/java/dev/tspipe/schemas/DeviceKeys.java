package dev.tspipe.schemas;

/**
 * The key of a device in the devices topic and in every node's device table: {@code tenant/id} when it has a tenant,
 * else {@code id}, as readings are keyed (docs/devices.md).
 */
public final class DeviceKeys {

    private DeviceKeys() {
    }

    public static String keyOf(String tenant, String id) {
        return tenant == null ? id : tenant + "/" + id;
    }

    public static String keyOf(Device device) {
        return keyOf(device.getTenant(), device.getId());
    }
}
