package dev.tspipe.processor.topology;

/**
 * A record after decoding: either rejected, or accepted with its {@link Placement}; the original
 * key and value bytes are kept for the dead-letter topic.
 */
record Routed(ReadingValidator.Verdict verdict, byte[] originalKey, byte[] originalValue, byte[] deviceKey,
              Placement placement) {

    /** Where an accepted record is relative to the task that owns its device. */
    enum Placement {
        /** Keyed by its distribution key and in that key's partition: stored by the task that read it. */
        HERE(null),
        /** Keyed by something else (null, a gateway id): re-routed by device. */
        OTHER_KEY("other-key"),
        /** Keyed right but in another partition than murmur2 places the key (e.g. librdkafka's CRC32 default): re-routed. */
        OTHER_PARTITION("other-partition");

        private final String reason;

        Placement(String reason) {
            this.reason = reason;
        }

        /** The stable code of why a record is re-routed, as counted in metrics; null for {@link #HERE}. */
        String reason() {
            return reason;
        }
    }

    static Routed rejected(ReadingValidator.Rejected verdict, byte[] originalKey, byte[] originalValue) {
        return new Routed(verdict, originalKey, originalValue, null, null);
    }
}
