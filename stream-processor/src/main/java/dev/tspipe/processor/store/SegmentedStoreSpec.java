package dev.tspipe.processor.store;

import java.time.Duration;
import java.util.Objects;

/**
 * What a time-segmented store is: its name, how long a row lives in stream time, and the width of a
 * segment (AnalyticDB's {@code PARTITION BY day ... LIFECYCLE N}: interval one day, retention N days).
 *
 * @param name            the store name; also the state directory's sub-directory and part of the
 *                        changelog topic name, so only {@code [A-Za-z0-9._-]}
 * @param retention       a row whose timestamp is older than {@code streamTime - retention} is expired
 * @param segmentInterval the time span of one segment (one RocksDB instance)
 */
public record SegmentedStoreSpec(String name, Duration retention, Duration segmentInterval) {

    public SegmentedStoreSpec {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(retention, "retention");
        Objects.requireNonNull(segmentInterval, "segmentInterval");
        if (!name.matches("[A-Za-z0-9._-]+") || name.equals(".") || name.equals("..")) {
            throw new IllegalArgumentException("store name '" + name + "' must be non-empty and use only "
                    + "letters, digits, '.', '_' and '-' (it names a directory and a Kafka topic)");
        }
        if (retention.toMillis() <= 0) {
            throw new IllegalArgumentException("retention of store '" + name + "' must be positive, was " + retention);
        }
        if (segmentInterval.toMillis() <= 0) {
            throw new IllegalArgumentException("segment interval of store '" + name + "' must be positive, was "
                    + segmentInterval);
        }
    }

    public static SegmentedStoreSpec of(String name, Duration retention, Duration segmentInterval) {
        return new SegmentedStoreSpec(name, retention, segmentInterval);
    }

    public long retentionMs() {
        return retention.toMillis();
    }

    public long segmentIntervalMs() {
        return segmentInterval.toMillis();
    }
}
