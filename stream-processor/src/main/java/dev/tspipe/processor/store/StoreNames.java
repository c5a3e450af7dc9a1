package dev.tspipe.processor.store;

/** Names of the state stores, shared by the topology and the query API. */
public final class StoreNames {

    /** Raw rows: row key {@code device#metric#reversedTs} to value and tags, segmented by day. */
    public static final String RAW = "raw-rows";
    /** The newest reading of each series, keyed by the series prefix {@code device#metric#}. */
    public static final String LATEST = "latest";

    private StoreNames() {
    }

    /** The store of one rollup resolution, e.g. {@code rollups-1m}. */
    public static String rollup(RollupStep step) {
        return "rollups-" + step.label();
    }
}
