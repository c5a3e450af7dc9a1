package dev.tspipe.processor.topology;

/**
 * Why a record went to the dead-letter topic. The codes are stable: they are written in the
 * {@code tspipe.error.reason} header and counted in metrics; never rename one.
 */
public enum RejectReason {
    /** Not Avro in the Confluent wire format, or not readable with its schema; or a null value. */
    UNDECODABLE("undecodable"),
    /** The schema id is not known to the registry. */
    UNKNOWN_SCHEMA("unknown-schema"),
    /** A field is missing, empty or of the wrong type; a tenant against the deployment's tenancy. */
    INVALID_FIELD("invalid-field"),
    /** The value is NaN or infinite. */
    INVALID_VALUE("invalid-value"),
    /** The timestamp is outside 1970-01-01 .. 9999-12-31. */
    INVALID_TIMESTAMP("invalid-timestamp"),
    /** Older than the raw lifecycle, measured from stream time. */
    EXPIRED("expired"),
    /** Further ahead of stream time than the configured margin. */
    FUTURE("future"),
    /** The row key would be over 1,024 bytes. */
    KEY_TOO_LONG("key-too-long"),
    /** The record value is over the size limit (1 MiB by default). */
    TOO_LARGE("too-large"),
    /** Processing failed unexpectedly; the record is kept so that it can be replayed after a fix. */
    PROCESSING_ERROR("processing-error");

    private final String code;

    RejectReason(String code) {
        this.code = code;
    }

    public String code() {
        return code;
    }
}
