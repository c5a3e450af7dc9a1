package dev.tspipe.query.devices;

import dev.tspipe.model.devices.DeviceFilter;
import dev.tspipe.model.devices.DeviceKeys;
import dev.tspipe.processor.devices.DeviceTable;
import dev.tspipe.schemas.Device;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StoreQueryParameters;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.QueryableStoreTypes;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * This node's copy of the device table ({@link DeviceTable}): every node holds all of it, so every read here is local,
 * never forwarded. While Kafka Streams has not opened the store (before it runs, while it closes) a read throws
 * Kafka Streams' {@code InvalidStateStoreException}, which the query server answers with a 503.
 */
public final class DeviceDirectory {

    /** The order of lists: by id, then tenant (none first). */
    static final Comparator<Device> BY_ID = Comparator.comparing(Device::getId)
            .thenComparing(Device::getTenant, Comparator.nullsFirst(Comparator.naturalOrder()));

    private final KafkaStreams streams;

    public DeviceDirectory(KafkaStreams streams) {
        this.streams = streams;
    }

    private ReadOnlyKeyValueStore<String, Device> store() {
        return streams.store(StoreQueryParameters.fromNameAndType(DeviceTable.STORE, QueryableStoreTypes.keyValueStore()));
    }

    /** The device {@code id} of {@code tenant} (null: none). */
    public Optional<Device> get(String tenant, String id) {
        return Optional.ofNullable(store().get(DeviceKeys.keyOf(tenant, id)));
    }

    /** Every device the filter picks, by id: a scan of the whole table, which is small (docs/devices.md). */
    public List<Device> matching(DeviceFilter filter) {
        List<Device> picked = new ArrayList<>();
        try (KeyValueIterator<String, Device> all = store().all()) {
            while (all.hasNext()) {
                Device device = all.next().value;
                if (filter.matches(device)) {
                    picked.add(device);
                }
            }
        }
        picked.sort(BY_ID);
        return picked;
    }

    /** The rows of the table here (exact: the store is a map in memory). */
    public long rows() {
        return store().approximateNumEntries();
    }

    /**
     * The metadata of a device as labels of its series: its labels, and {@code site} and {@code type} when set (which
     * win over labels of those names); empty for an unknown device.
     */
    public Map<String, String> labels(String tenant, String id) {
        Device device = store().get(DeviceKeys.keyOf(tenant, id));
        if (device == null) {
            return Map.of();
        }
        Map<String, String> labels = new LinkedHashMap<>(device.getLabels());
        if (device.getSite() != null) {
            labels.put(DeviceFilter.SITE, device.getSite());
        }
        if (device.getType() != null) {
            labels.put(DeviceFilter.TYPE, device.getType());
        }
        return labels;
    }
}
