package dev.tspipe.query.routing;

/** The node's counters of answers another instance gave and of answers read from a copy behind. */
public record ReadCounters(Runnable forwarded, Runnable stale) {
}
