package dev.tspipe.model.keys;

import java.nio.charset.StandardCharsets;

/**
 * The distribution key of a device: the Kafka message key of its readings and of its entry in the devices topic,
 * and what {@link DevicePartitioner} hashes (its UTF-8 bytes) to place it. Every row of a device therefore lives in
 * one partition (docs/row-keys.md).
 *
 * <table>
 *   <caption>The key's form</caption>
 *   <tr><th>layout</th><th>key</th><th>example</th></tr>
 *   <tr><td>multi-tenant</td><td>{@code tenant + "/" + device}</td><td>{@code acme/sensor-1}</td></tr>
 *   <tr><td>single-tenant</td><td>{@code device}</td><td>{@code sensor-1}</td></tr>
 * </table>
 */
public final class DistributionKey {

    /**
     * The volume one distribution key should hold at most over its lifecycle: about 10 GB per partition-key value,
     * Tablestore's guideline. The key analysis projects devices against it; the statistics flag devices over it.
     */
    public static final long VOLUME_GUIDELINE_BYTES = 10_000_000_000L;

    /** Between the tenant and the device. */
    public static final String TENANT_SEPARATOR = "/";

    private DistributionKey() {
    }

    /** The key of {@code device} of {@code tenant}; {@code tenant} null in a single-tenant layout. */
    public static String of(String tenant, String device) {
        return tenant == null ? device : tenant + TENANT_SEPARATOR + device;
    }

    /** {@link #of}'s UTF-8 bytes: the Kafka message key and what the partitioner hashes. */
    public static byte[] bytesOf(String tenant, String device) {
        return of(tenant, device).getBytes(StandardCharsets.UTF_8);
    }
}
