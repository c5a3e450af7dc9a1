package dev.tspipe.processor.topology;

/**
 * A record after decoding: either accepted (and keyed by its device or not) or rejected, with the
 * original key and value bytes kept for the dead-letter topic.
 */
record Routed(ReadingValidator.Verdict verdict, byte[] originalKey, byte[] originalValue, byte[] deviceKey) {

    boolean rejected() {
        return verdict instanceof ReadingValidator.Rejected;
    }

    ReadingValidator.Accepted accepted() {
        return (ReadingValidator.Accepted) verdict;
    }

    /** Whether the Kafka key is the reading's distribution key, so the record is in the right partition. */
    boolean keyedByDevice() {
        return java.util.Arrays.equals(originalKey, deviceKey);
    }
}
