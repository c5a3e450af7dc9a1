package dev.tspipe.app;

import dev.tspipe.ingest.ReadingProducer;
import picocli.CommandLine.Option;

import java.time.Duration;
import java.util.Map;

/** {@code --batch N} and {@code --batch-linger}: many readings of a device in one Kafka record (docs/ingest.md, "Batches"). */
final class BatchOptions {

    @Option(names = "--batch", paramLabel = "N", defaultValue = "1",
            description = {"Readings of one device per Kafka record, as a ReadingBatch: up to N.",
                    "Default: ${DEFAULT-VALUE} (one record per reading). 100 is a good start."})
    int readings;

    @Option(names = "--batch-linger", paramLabel = "D", defaultValue = "100ms", converter = DurationConverter.class,
            description = {"How long a device's readings wait for their batch to fill",
                    "before it leaves anyway. Default: ${DEFAULT-VALUE}."})
    Duration linger;

    /** The producer settings that say so. */
    Map<String, Object> producerSettings() {
        if (readings < 1) {
            throw new UserError("--batch must be at least 1 (1 sends each reading alone), not " + readings);
        }
        return Map.of(ReadingProducer.BATCH_READINGS, readings, ReadingProducer.BATCH_LINGER_MS, (int) Math.min(Integer.MAX_VALUE, linger.toMillis()));
    }
}
