package dev.tspipe.processor.topology;

import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.common.utils.Bytes;

/**
 * The values the ingest processor last wrote to one store, by key: the current bucket of each series
 * (rollups) or its latest reading. The next reading of the same series and bucket starts from here
 * instead of reading the row back through Kafka Streams' store layers (a sorted-map lookup in the record
 * cache, or a RocksDB read); during a backfill that is nearly every reading for the hourly and daily
 * buckets and the latest value.
 *
 * <p>Exact, not a guess: the processor is the only writer of its task's stores, and it records every
 * value it puts. It is a read cache only; every write still goes to the store (and so to the changelog,
 * in the task's transaction). Bounded: holding {@code capacity} rows, it starts again empty. The
 * processor creates new ones whenever it is initialised, so a task that is closed and revived after an
 * aborted transaction never sees values of the aborted writes.
 */
final class RecentWrites {

    private final int capacity;
    private final Map<Bytes, byte[]> values;

    RecentWrites(int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity must be at least 1, was " + capacity);
        }
        this.capacity = capacity;
        this.values = new HashMap<>();
    }

    /** The value last written under {@code key}, or null if it is not remembered. */
    byte[] get(Bytes key) {
        return values.get(key);
    }

    /** Remembers what was just written to the store under {@code key}. */
    void wrote(Bytes key, byte[] value) {
        if (values.size() >= capacity) {
            values.clear();
        }
        values.put(key, value);
    }

    int size() {
        return values.size();
    }
}
