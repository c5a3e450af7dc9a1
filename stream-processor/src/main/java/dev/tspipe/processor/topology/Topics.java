package dev.tspipe.processor.topology;

/** Default topic names, shared by producers, the topology and the query side (docs/design.md §3). */
public final class Topics {

    /** Input: Avro {@code Reading}s keyed by device id ({@code tenant/device} when a tenant is set). */
    public static final String READINGS = "readings";
    /** Bad input: the original key and bytes, with headers that say why. */
    public static final String READINGS_DLQ = "readings-dlq";
    /** Device metadata: Avro {@code Device}s keyed like readings, compacted; every node holds all of it (docs/devices.md). */
    public static final String DEVICES = "devices";
    /** Name of the repartition step for records not keyed by their device (topic {@code <application.id>-readings-by-device-repartition}). */
    public static final String BY_DEVICE_REPARTITION = "readings-by-device";

    private Topics() {
    }
}
