package dev.tspipe.query.auth;

import java.util.Locale;

/**
 * What a token may do. Each scope includes the ones before it: {@code write} can read, {@code admin}
 * can do everything, and is for every tenant.
 */
public enum Scope {
    /** The series endpoints (readings, latest, rollups, a device's metrics) of its tenant. */
    READ,
    /** Also writes of its tenant (the demo's registry; ingestion over HTTP when there is one). */
    WRITE,
    /** Every tenant, and the cluster-wide endpoints: {@code /metrics}, {@code /api/v1/stats/*}. */
    ADMIN;

    /** True if a token of this scope may do what {@code needed} allows. */
    public boolean includes(Scope needed) {
        return compareTo(needed) >= 0;
    }

    /** As written in the tokens file: {@code read}, {@code write}, {@code admin}. */
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** The scope of a label; {@link IllegalArgumentException} that lists the labels when it is none. */
    public static Scope parse(String label) {
        for (Scope scope : values()) {
            if (scope.label().equals(label)) {
                return scope;
            }
        }
        throw new IllegalArgumentException("scope '" + label + "' is not one of read, write, admin");
    }
}
