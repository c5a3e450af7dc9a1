package dev.tspipe.model.keys;

/** Parts that cannot form a row key: the reading is refused (to the dead-letter topic) with {@link #reason()}. */
public final class InvalidKeyException extends IllegalArgumentException {

    /** Why; the codes are stable and are what the dead-letter topic's reason header carries. */
    public enum Reason {
        /** Device or metric empty, tenant present or missing against the layout, unpaired surrogate. */
        INVALID_FIELD("invalid-field"),
        /** Timestamp outside 0 .. 253402300799999 (years 1970 to 9999). */
        INVALID_TIMESTAMP("invalid-timestamp"),
        /** The encoded key would exceed 1,024 bytes. */
        KEY_TOO_LONG("key-too-long");

        private final String code;

        Reason(String code) {
            this.code = code;
        }

        public String code() {
            return code;
        }
    }

    private final Reason reason;

    InvalidKeyException(Reason reason, String message) {
        super(message);
        this.reason = reason;
    }

    public Reason reason() {
        return reason;
    }
}
