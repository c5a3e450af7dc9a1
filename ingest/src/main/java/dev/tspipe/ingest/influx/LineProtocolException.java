package dev.tspipe.ingest.influx;

/** A line that is not line protocol: its number (from 1) and what is wrong, as InfluxDB reports it. */
public final class LineProtocolException extends Exception {

    private final int line;

    public LineProtocolException(int line, String reason) {
        super("line " + line + ": " + reason, null, false, false);
        this.line = line;
    }

    public int line() {
        return line;
    }
}
