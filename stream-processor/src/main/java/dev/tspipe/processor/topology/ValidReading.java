package dev.tspipe.processor.topology;

import dev.tspipe.model.keys.SeriesId;
import dev.tspipe.model.rows.RawRow;

import java.util.Map;

/**
 * A reading that passed validation: everything the stores need, in tspipe's own types.
 *
 * @param row the bytes of its raw row ({@link RawRow#toBytes()}: the value and the tags sorted by name), canonical
 */
public record ValidReading(SeriesId series, long epochMillis, double value, byte[] row) {

    /** The reading's tags, decoded from its row (not on the hot path). */
    public Map<String, String> tags() {
        return RawRow.fromBytes(row).tags();
    }
}
