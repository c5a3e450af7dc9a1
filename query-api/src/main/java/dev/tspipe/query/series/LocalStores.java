package dev.tspipe.query.series;

import dev.tspipe.query.routing.LocalCopy;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StoreQueryParameters;
import org.apache.kafka.streams.state.QueryableStoreTypes;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;

import java.util.Optional;
import java.util.function.Function;

/** This instance's copies of a partition's stores, read as every route reads them (the active task, or a stale copy). */
public final class LocalStores {

    private final KafkaStreams streams;

    public LocalStores(KafkaStreams streams) {
        this.streams = streams;
    }

    /** The read on partition {@code partition}'s copy here; empty when that copy cannot answer ({@link LocalCopy}). */
    public <T> Optional<T> read(Function<SeriesReader.Stores, T> read, int partition, boolean stale) {
        return LocalCopy.read(() -> read.apply(name -> store(name, partition, stale)), stale);
    }

    private ReadOnlyKeyValueStore<Bytes, byte[]> store(String name, int partition, boolean stale) {
        StoreQueryParameters<ReadOnlyKeyValueStore<Bytes, byte[]>> parameters = StoreQueryParameters
                .fromNameAndType(name, QueryableStoreTypes.<Bytes, byte[]>keyValueStore()).withPartition(partition);
        return streams.store(stale ? parameters.enableStaleStores() : parameters);
    }
}
