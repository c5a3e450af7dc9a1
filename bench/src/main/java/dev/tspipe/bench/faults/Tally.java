package dev.tspipe.bench.faults;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * Discrepancy counts by group (the fault window a reading's last write fell in, or the placement of
 * its device) and figure ({@code rawLost}, {@code 1m.countDouble}, ...), plus their totals.
 */
final class Tally {

    static final String[] FIGURES = {"writes", "rawLost", "rawWrong", "rawUnexpected",
            "1m.countLost", "1m.countDouble", "1m.wrong", "1h.countLost", "1h.countDouble", "1h.wrong",
            "1d.countLost", "1d.countDouble", "1d.wrong"};

    private final Map<String, Map<String, Long>> groups = new TreeMap<>();

    void add(String group, String figure, long n) {
        groups.computeIfAbsent(group, g -> zeros()).merge(figure, n, Long::sum);
        groups.computeIfAbsent("total", g -> zeros()).merge(figure, n, Long::sum);
    }

    void ensure(String group) {
        groups.computeIfAbsent(group, g -> zeros());
    }

    long total(String figure) {
        return groups.getOrDefault("total", zeros()).getOrDefault(figure, 0L);
    }

    /** Readings missing: raw rows not found. */
    long lost() {
        return total("rawLost");
    }

    /** Readings counted more than once in a bucket, over every step. */
    long countedTwice() {
        return total("1m.countDouble") + total("1h.countDouble") + total("1d.countDouble");
    }

    /** Readings missing from bucket counts, over every step. */
    long bucketLost() {
        return total("1m.countLost") + total("1h.countLost") + total("1d.countLost");
    }

    /** Raw rows with another value or never written, and buckets whose count is right but sum, min, max or last is not. */
    long wrong() {
        return total("rawWrong") + total("rawUnexpected") + total("1m.wrong") + total("1h.wrong") + total("1d.wrong");
    }

    /** Nothing lost, counted twice or wrong, in the raw rows or any bucket. */
    boolean clean() {
        return lost() == 0 && bucketLost() == 0 && countedTwice() == 0 && wrong() == 0;
    }

    Map<String, Map<String, Long>> asMap() {
        return groups;
    }

    /** A markdown table, one row per group, {@code total} last. */
    String table(String groupHeading) {
        StringBuilder out = new StringBuilder("| " + groupHeading + " | writes | raw lost | raw wrong | raw unexpected "
                + "| 1m lost/twice/wrong | 1h lost/twice/wrong | 1d lost/twice/wrong |\n|---|---:|---:|---:|---:|---:|---:|---:|\n");
        groups.keySet().stream().filter(g -> !g.equals("total")).forEach(g -> row(out, g));
        row(out, "total");
        return out.toString();
    }

    private void row(StringBuilder out, String group) {
        Map<String, Long> f = groups.getOrDefault(group, zeros());
        out.append(String.format("| %s | %,d | %,d | %,d | %,d | %s | %s | %s |%n", group, f.get("writes"), f.get("rawLost"),
                f.get("rawWrong"), f.get("rawUnexpected"), step(f, "1m"), step(f, "1h"), step(f, "1d")));
    }

    private static String step(Map<String, Long> f, String step) {
        return f.get(step + ".countLost") + "/" + f.get(step + ".countDouble") + "/" + f.get(step + ".wrong");
    }

    private static Map<String, Long> zeros() {
        Map<String, Long> zeros = new LinkedHashMap<>();
        for (String figure : FIGURES) {
            zeros.put(figure, 0L);
        }
        return zeros;
    }
}
