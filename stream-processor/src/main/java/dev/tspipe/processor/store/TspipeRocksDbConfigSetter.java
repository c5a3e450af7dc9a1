package dev.tspipe.processor.store;

import java.util.Map;
import org.apache.kafka.streams.state.RocksDBConfigSetter;
import org.apache.kafka.streams.state.internals.BlockBasedTableConfigWithAccessibleCache;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.Options;

/**
 * Puts Kafka Streams' built-in RocksDB stores under tspipe's one memory budget ({@link RocksDbMemory}):
 * the shared block cache, write buffer manager and bloom filter. Set it with
 * {@code rocksdb.config.setter = dev.tspipe.processor.store.TspipeRocksDbConfigSetter}.
 *
 * <p>Follows the bounded-memory pattern of the Kafka Streams documentation: the table config Kafka
 * Streams created (a {@code BlockBasedTableConfigWithAccessibleCache}, so that Kafka Streams' metrics
 * read the cache back) gets the shared cache; {@link #close} closes nothing, because the shared
 * objects outlive every store.
 */
public final class TspipeRocksDbConfigSetter implements RocksDBConfigSetter {

    @Override
    public void setConfig(String storeName, Options options, Map<String, Object> configs) {
        BlockBasedTableConfig tableConfig = options.tableFormatConfig() instanceof BlockBasedTableConfig existing
                ? existing
                : new BlockBasedTableConfigWithAccessibleCache();
        RocksDbMemory.applyToBuiltIn(options, tableConfig);
    }

    @Override
    public void close(String storeName, Options options) {
        // The cache, write buffer manager and filter are shared by every store: never closed here.
    }
}
