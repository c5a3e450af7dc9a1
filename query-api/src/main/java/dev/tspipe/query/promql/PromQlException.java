package dev.tspipe.query.promql;

/** An expression outside the subset or not PromQL: Prometheus' {@code bad_data}, with the position in the query. */
public final class PromQlException extends Exception {

    public PromQlException(int position, String reason) {
        super("parse error at char " + (position + 1) + ": " + reason, null, false, false);
    }
}
