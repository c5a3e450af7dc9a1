package dev.tspipe.processor.devices;

import dev.tspipe.model.devices.DeviceKeys;
import dev.tspipe.schemas.Device;
import dev.tspipe.schemas.serde.AvroDeserializer;
import dev.tspipe.schemas.serde.RegistryUnavailableSerializationException;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.streams.errors.StreamsException;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.processor.api.RecordMetadata;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * Keeps the global store of {@link DeviceTable} from the records of the devices topic: a value puts the device under
 * its key, a tombstone deletes it. Kafka Streams runs it in the global thread, also while it fills the store at start
 * ({@code StreamsBuilder.addGlobalStore} reprocesses on restore), so it sees every record.
 *
 * <p>It counts the rows exactly (a put of a new key adds one, a delete of a present key removes one) and logs a
 * warning when the table grows above {@value DeviceTable#MAX_ROWS} rows, once each time it crosses the line: every
 * node holds the whole table in memory, and a query that filters devices reads all of it (docs/devices.md).
 *
 * <p>A record that is not a device (undecodable, an unknown schema id, no id, a key that is not the device's key) is
 * logged with its topic, partition and offset and left out; the device keeps its previous version. A schema registry
 * that cannot be reached is not the record's fault: the record waits for it, however long, and device updates pause
 * meanwhile (readings are not held up: they are processed by the stream threads).
 */
final class DeviceTableUpdater implements Processor<byte[], byte[], Void, Void> {

    private static final Logger LOG = LoggerFactory.getLogger(DeviceTableUpdater.class);
    private static final long FIRST_RETRY_PAUSE_MS = 50;
    private static final long LONGEST_RETRY_PAUSE_MS = 1_000;
    private static final long WAIT_LOG_EVERY_MS = 10_000;

    private final String topic;
    private final Map<String, Object> serdeSettings;
    private ProcessorContext<Void, Void> context;
    private KeyValueStore<String, Device> store;
    private AvroDeserializer<Device> deserializer;
    private long rows;
    private boolean overLimit;

    DeviceTableUpdater(String topic, Map<String, Object> serdeSettings) {
        this.topic = topic;
        this.serdeSettings = serdeSettings;
    }

    @Override
    public void init(ProcessorContext<Void, Void> context) {
        this.context = context;
        this.store = context.getStateStore(DeviceTable.STORE);
        this.deserializer = new AvroDeserializer<>(Device.class);
        deserializer.configure(serdeSettings, false);
        // The store is empty at start (in memory); counted anyway, so that the count holds for any store.
        try (KeyValueIterator<String, Device> all = store.all()) {
            while (all.hasNext()) {
                all.next();
                rows++;
            }
        }
        overLimit = rows > DeviceTable.MAX_ROWS;
    }

    @Override
    public void process(Record<byte[], byte[]> record) {
        if (record.key() == null) {
            skip("it has no key (the key is the device id)");
            return;
        }
        String key = new String(record.key(), StandardCharsets.UTF_8);
        if (record.value() == null) {
            if (store.delete(key) != null) {
                rows--;
                overLimit = overLimit && rows > DeviceTable.MAX_ROWS;
            }
            return;
        }
        Device device = decode(record.value());
        if (device == null) {
            return;
        }
        if (device.getId().isEmpty()) {
            skip("its id is empty");
            return;
        }
        if (!DeviceKeys.keyOf(device).equals(key)) {
            skip("its key '" + key + "' is not the device's key '" + DeviceKeys.keyOf(device)
                    + "' (the id, or tenant/id when it has a tenant)");
            return;
        }
        Device previous = store.get(key);
        store.put(key, device);
        if (previous == null) {
            rows++;
            if (rows > DeviceTable.MAX_ROWS && !overLimit) {
                overLimit = true;
                LOG.warn("The device table has {} rows, more than the {} a replicated table should hold: every node keeps "
                        + "all of them in memory and reads all of them for each device filter. Keep devices in it as "
                        + "reference data only, delete the ones that are gone, or split the deployment by tenant "
                        + "(docs/devices.md)", rows, DeviceTable.MAX_ROWS);
            }
        }
    }

    /** The device of a record's value; null (logged) when it is not one. Waits while the registry cannot be reached. */
    private Device decode(byte[] value) {
        long pause = FIRST_RETRY_PAUSE_MS;
        long waitingSince = System.nanoTime();
        long loggedAt = waitingSince;
        while (true) {
            try {
                return deserializer.deserialize(topic, value);
            } catch (RegistryUnavailableSerializationException e) {
                long now = System.nanoTime();
                if ((now - loggedAt) / 1_000_000 >= WAIT_LOG_EVERY_MS) {
                    loggedAt = now;
                    LOG.warn("Device updates wait for the schema registry ({}), for {} s so far", e.getMessage(),
                            (now - waitingSince) / 1_000_000_000);
                }
                sleep(pause);
                pause = Math.min(pause * 2, LONGEST_RETRY_PAUSE_MS);
            } catch (SerializationException e) {
                skip("its value is not a device: " + e.getMessage());
                return null;
            }
        }
    }

    private void skip(String why) {
        String where = context.recordMetadata().map(DeviceTableUpdater::where).orElse("a record");
        LOG.warn("Device record {} left out: {}", where, why);
    }

    private static String where(RecordMetadata metadata) {
        return metadata.topic() + "-" + metadata.partition() + "@" + metadata.offset();
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new StreamsException("interrupted while waiting for the schema registry", e);
        }
    }

    @Override
    public void close() {
        if (deserializer != null) {
            deserializer.close();
        }
    }
}
