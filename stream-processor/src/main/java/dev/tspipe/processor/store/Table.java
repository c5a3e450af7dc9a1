package dev.tspipe.processor.store;

import dev.tspipe.model.keys.MalformedKeyException;
import dev.tspipe.model.keys.RowKey;

/**
 * The five tables of a task's {@link SeriesStore}. Each is a Kafka Streams store name (so interactive
 * queries and the changelog topics keep their names) and a family of RocksDB column families, one per
 * segment, in the task's one RocksDB database (docs/storage.md).
 */
public enum Table {
    /** Raw rows: row key {@code device#metric#reversedTs} to value and tags. */
    RAW(StoreNames.RAW, null),
    /** 1-minute buckets: {@code device#metric#reversedBucketStart} to counters. */
    MINUTE(StoreNames.rollup(RollupStep.MINUTE), RollupStep.MINUTE),
    /** 1-hour buckets. */
    HOUR(StoreNames.rollup(RollupStep.HOUR), RollupStep.HOUR),
    /** 1-day buckets. */
    DAY(StoreNames.rollup(RollupStep.DAY), RollupStep.DAY),
    /** The newest reading of each series, keyed by the series prefix {@code device#metric#}: never expires. */
    LATEST(StoreNames.LATEST, null);

    private final String storeName;
    private final RollupStep step;

    Table(String storeName, RollupStep step) {
        this.storeName = storeName;
        this.step = step;
    }

    /** The Kafka Streams store name, e.g. {@code rollups-1m}; its changelog is {@code <application.id>-<name>-changelog}. */
    public String storeName() {
        return storeName;
    }

    /** The rollup resolution, or null for raw rows and latest. */
    public RollupStep step() {
        return step;
    }

    /** Whether keys end with a reversed timestamp (all but {@link #LATEST}), so that rows are partitioned by time and expire. */
    public boolean timeKeyed() {
        return this != LATEST;
    }

    /**
     * Whether the changelog carries one record per series and commit with all of that series' new rows
     * (raw rows and 1-minute buckets: nearly one new row per reading), rather than one record per key
     * (hourly and daily buckets and latest values, which the write-back buffer folds).
     */
    public boolean grouped() {
        return this == RAW || this == MINUTE;
    }

    /**
     * The epoch millis of a key of this table, by which it is in a segment and expires: its reversed timestamp (see
     * {@link RowKey#timestampOf}); 0 for {@link #LATEST}, which has one segment and never expires.
     *
     * @throws IllegalArgumentException naming the key, if a time-keyed table's key does not end with a valid timestamp
     */
    long timeOf(byte[] key) {
        if (!timeKeyed()) {
            return 0;
        }
        try {
            return RowKey.timestampOf(key);
        } catch (MalformedKeyException e) {
            throw new IllegalArgumentException("key '" + printable(key) + "' does not end with a valid "
                    + RowKey.TIMESTAMP_DIGITS + "-digit reversed timestamp (see RowKey): " + e.getMessage(), e);
        }
    }

    /** A key as text for a message: printable ASCII as it is, any other byte (and the backslash) as {@code \xNN}. */
    static String printable(byte[] key) {
        StringBuilder out = new StringBuilder(key.length);
        for (byte b : key) {
            int u = b & 0xFF;
            if (u >= 0x20 && u < 0x7F && u != '\\') {
                out.append((char) u);
            } else {
                out.append(String.format("\\x%02X", u));
            }
        }
        return out.toString();
    }

    public static Table of(RollupStep step) {
        return switch (step) {
            case MINUTE -> MINUTE;
            case HOUR -> HOUR;
            case DAY -> DAY;
        };
    }

    /** The table stored under a Kafka Streams store name, or null. */
    public static Table ofStoreName(String name) {
        for (Table table : values()) {
            if (table.storeName.equals(name)) {
                return table;
            }
        }
        return null;
    }
}
