package dev.tspipe.processor.store;

import java.util.Collection;
import java.util.Collections;
import java.util.EnumMap;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;

/**
 * The segments of a task's tables at one moment, by table and id: those {@link Segments} keeps now, or a copy of
 * them as an applied write left them, which the reads of that write look their segments up in ({@link CommitView}).
 *
 * <p>Thread rule: a copy, any thread (it never changes); the live set, as {@link Segments} says.
 */
final class SegmentSet {

    private final SeriesStoreSpec spec;
    private final Map<Table, NavigableMap<Long, Segment>> byTable;

    private SegmentSet(SeriesStoreSpec spec, Map<Table, NavigableMap<Long, Segment>> byTable) {
        this.spec = spec;
        this.byTable = byTable;
    }

    /** An empty set, to be changed by its owner ({@link Segments}). */
    static SegmentSet live(SeriesStoreSpec spec) {
        Map<Table, NavigableMap<Long, Segment>> byTable = new EnumMap<>(Table.class);
        for (Table table : Table.values()) {
            byTable.put(table, new TreeMap<>());
        }
        return new SegmentSet(spec, byTable);
    }

    /** An unchangeable copy of this set as it is now. */
    SegmentSet copy() {
        Map<Table, NavigableMap<Long, Segment>> copy = new EnumMap<>(Table.class);
        byTable.forEach((table, segments) -> copy.put(table, Collections.unmodifiableNavigableMap(new TreeMap<>(segments))));
        return new SegmentSet(spec, copy);
    }

    /** The segments of {@code table} by id (changeable only in the live set). */
    NavigableMap<Long, Segment> ofTable(Table table) {
        return byTable.get(table);
    }

    /** The segment of a row of {@code table} at {@code epochMillis}, or null. */
    Segment get(Table table, long epochMillis) {
        return byTable.get(table).get(spec.segmentOf(table, epochMillis));
    }

    /** The segments of {@code table}, oldest first (a view). */
    Collection<Segment> of(Table table) {
        return byTable.get(table).values();
    }

    /** The segments of {@code table} that hold rows of {@code [fromMillis, toMillis]}, oldest first (a view). */
    Collection<Segment> overlapping(Table table, long fromMillis, long toMillis) {
        return byTable.get(table).subMap(spec.segmentOf(table, fromMillis), true, spec.segmentOf(table, toMillis), true).values();
    }

    /** Whether {@code segment} is in this set. */
    boolean contains(Segment segment) {
        return byTable.get(segment.table).get(segment.id) == segment;
    }
}
