package dev.tspipe.query.prometheus;

import dev.tspipe.query.series.SeriesReader;
import dev.tspipe.query.routing.Forwarder;

import java.util.List;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.function.Function;

/** How the Prometheus API reads whole partitions: the query server's routing (active task, standbys, forwarding). */
public interface PartitionReads {

    /** What reading one partition gave: its series (from a copy {@code lag} records behind, or fresh), or why not. */
    record Answer(PartitionSeries series, OptionalLong lag, List<String> failures) {
        public boolean answered() {
            return series != null;
        }
    }

    /** The input topic's partition count; empty before Kafka Streams knows it. */
    OptionalInt partitionCount();

    /** Reads {@code partition} here or at the instance that has it, which is sent {@code remote}. */
    Answer read(int partition, Function<SeriesReader.Stores, PartitionSeries> local, Forwarder.Request remote);

    /** Reads {@code partition} from this instance's copies only (a request another instance forwarded). */
    Answer readHere(int partition, Function<SeriesReader.Stores, PartitionSeries> local);
}
