package dev.tspipe.bench.e2e;

import io.questdb.client.Sender;

import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The QuestDB table the harness's peer column writes, and how a reading becomes one of its rows: device and metric
 * are symbols, each tag key a symbol column of its own, the value a double and the event time the designated
 * timestamp. Readings with the same (ts, device, metric) are one row ({@code DEDUP UPSERT KEYS}: the last write wins,
 * as in tspipe).
 */
final class QuestDbTable {

    static final String NAME = "readings";
    private static final Set<String> FIXED_COLUMNS = Set.of("device", "metric", "value", "ts");
    private static final Pattern COLUMN_NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");

    private final List<String> tagKeys;

    private QuestDbTable(List<String> tagKeys) {
        this.tagKeys = tagKeys;
    }

    /** The table for readings with these tag keys; a key that cannot be a column of its own is refused. */
    static QuestDbTable forTagKeys(List<String> tagKeys) {
        for (String key : tagKeys) {
            if (!COLUMN_NAME.matcher(key).matches() || FIXED_COLUMNS.contains(key.toLowerCase(java.util.Locale.ROOT))) {
                throw new IllegalArgumentException("tag key '" + key + "' cannot be a QuestDB column of its own: it must be a plain"
                        + " identifier other than " + FIXED_COLUMNS);
            }
        }
        return new QuestDbTable(List.copyOf(tagKeys));
    }

    /** {@code CREATE TABLE readings (device SYMBOL, metric SYMBOL, <tag> SYMBOL..., value DOUBLE, ts TIMESTAMP) ...}. */
    String createStatement() {
        StringBuilder ddl = new StringBuilder("CREATE TABLE ").append(NAME).append(" (device SYMBOL, metric SYMBOL, ");
        for (String key : tagKeys) {
            ddl.append(key).append(" SYMBOL, ");
        }
        return ddl.append("value DOUBLE, ts TIMESTAMP) TIMESTAMP(ts) PARTITION BY DAY WAL DEDUP UPSERT KEYS(ts, device, metric)").toString();
    }

    /** Appends one row per reading to the sender, which flushes as it is configured to; the caller flushes the rest. */
    static void append(Sender sender, ReadingRows rows) {
        for (int row = 0; row < rows.size(); row++) {
            sender.table(NAME).symbol("device", rows.device(row)).symbol("metric", rows.metric(row));
            for (Map.Entry<String, String> tag : rows.tags(row).entrySet()) {
                sender.symbol(tag.getKey(), tag.getValue());
            }
            sender.doubleColumn("value", rows.value(row)).at(rows.timestampMillis(row), ChronoUnit.MILLIS);
        }
    }
}
