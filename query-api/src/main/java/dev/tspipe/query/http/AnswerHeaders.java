package dev.tspipe.query.http;

/** Headers of an answer that say where it was read (docs/query-api.md, "Stale answers"). */
public final class AnswerHeaders {

    /** Marks an answer served from a standby replica (or a restoring task); {@link #LAG} says how far behind. */
    public static final String STALE = "X-Tspipe-Stale";
    /** The changelog lag, in records, of the copy that answered. */
    public static final String LAG = "X-Tspipe-Lag";

    private AnswerHeaders() {
    }
}
