package dev.tspipe.ingest;

import java.time.Duration;
import java.util.Collections;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * What a replay did.
 *
 * @param replayedByPartition records re-produced, by source partition (every partition looked at, zeros included)
 * @param failed              records that could not be written to the target topic; see the log
 * @param elapsed             wall-clock time of the replay
 */
public record ReplaySummary(SortedMap<Integer, Long> replayedByPartition, long failed, Duration elapsed) {

    public ReplaySummary {
        replayedByPartition = Collections.unmodifiableSortedMap(new TreeMap<>(replayedByPartition));
    }

    /** Records re-produced from all partitions. */
    public long replayed() {
        return replayedByPartition.values().stream().mapToLong(Long::longValue).sum();
    }

    /** One line for a user: the total, the failures, and the count of each partition. */
    public String describe() {
        String partitions = replayedByPartition.entrySet().stream()
                .map(e -> e.getKey() + "=" + e.getValue()).collect(Collectors.joining(", "));
        return String.format("%,d records replayed, %,d failed in %.1f s (by partition: %s)", replayed(), failed,
                Math.max(elapsed.toMillis(), 1) / 1000.0, partitions.isEmpty() ? "none" : partitions);
    }

    static ReplaySummary of(Map<Integer, Long> counts, long failed, Duration elapsed) {
        return new ReplaySummary(new TreeMap<>(counts), failed, elapsed);
    }
}
