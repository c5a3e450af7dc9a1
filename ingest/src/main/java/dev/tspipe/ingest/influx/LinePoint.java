package dev.tspipe.ingest.influx;

import java.util.Map;
import java.util.SortedMap;

/**
 * One line of line protocol: a measurement, its tags (sorted, as InfluxDB keys them), its fields in
 * the order written, and the timestamp in the unit of the request's precision, or null when the line
 * has none (the server's clock then stamps it).
 */
public record LinePoint(String measurement, SortedMap<String, String> tags, Map<String, FieldValue> fields, Long timestamp) {
}
