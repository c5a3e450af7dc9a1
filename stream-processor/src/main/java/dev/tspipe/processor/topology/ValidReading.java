package dev.tspipe.processor.topology;

import dev.tspipe.processor.keys.SeriesId;
import dev.tspipe.processor.rows.RawRow;

/** A reading that passed validation: everything the stores need, in tspipe's own types. */
public record ValidReading(SeriesId series, long epochMillis, double value, java.util.Map<String, String> tags) {

    public RawRow row() {
        return new RawRow(value, tags);
    }
}
