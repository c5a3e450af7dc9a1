package dev.tspipe.processor.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.apache.kafka.streams.state.internals.BlockBasedTableConfigWithAccessibleCache;
import org.junit.jupiter.api.Test;
import org.rocksdb.Cache;
import org.rocksdb.Options;

class TspipeRocksDbConfigSetterTest {

    /** Options as Kafka Streams' RocksDBStore hands them to the setter: with its own table config. */
    private static Options kafkaStreamsOptions() {
        Options options = new Options();
        options.setTableFormatConfig(new BlockBasedTableConfigWithAccessibleCache());
        return options;
    }

    @Test
    void twoStoresGetTheSameSharedCache() {
        TspipeRocksDbConfigSetter setter = new TspipeRocksDbConfigSetter();
        try (Options first = kafkaStreamsOptions(); Options second = kafkaStreamsOptions()) {
            setter.setConfig("counts", first, Map.of());
            setter.setConfig("latest", second, Map.of());
            Cache firstCache = ((BlockBasedTableConfigWithAccessibleCache) first.tableFormatConfig()).blockCache();
            Cache secondCache = ((BlockBasedTableConfigWithAccessibleCache) second.tableFormatConfig()).blockCache();
            assertThat(firstCache).isSameAs(secondCache).isSameAs(RocksDbMemory.blockCache());
            assertThat(first.writeBufferManager()).isSameAs(second.writeBufferManager())
                    .isSameAs(RocksDbMemory.writeBufferManager());
            assertThat(((BlockBasedTableConfigWithAccessibleCache) first.tableFormatConfig()).filterPolicy())
                    .isSameAs(RocksDbMemory.bloomFilter());
            setter.close("counts", first);
            setter.close("latest", second);
        }
        assertThat(RocksDbMemory.blockCache().isOwningHandle()).as("shared cache still open after close").isTrue();
    }

    @Test
    void theBudgetIsSetOnceBeforeUse() {
        RocksDbMemory.blockCache();
        assertThatThrownBy(() -> RocksDbMemory.configure(RocksDbMemory.budgetBytes() * 2))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("already");
        assertThatThrownBy(() -> RocksDbMemory.configure(1024)).isInstanceOf(IllegalArgumentException.class);
        RocksDbMemory.configure(RocksDbMemory.budgetBytes());
    }
}
