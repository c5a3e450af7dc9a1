package dev.tspipe.processor.store;

import java.io.File;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.StreamsMetrics;
import org.apache.kafka.streams.processor.CommitCallback;
import org.apache.kafka.streams.processor.StateRestoreCallback;
import org.apache.kafka.streams.processor.StateStore;
import org.apache.kafka.streams.processor.StateStoreContext;
import org.apache.kafka.streams.processor.TaskId;
import org.apache.kafka.streams.processor.api.MockProcessorContext;
import org.apache.kafka.streams.processor.api.RecordMetadata;

/** Opens a {@link SegmentedKeyValueStore} on a state directory with Kafka Streams' mock context, keeping the restore callback. */
final class StoreFixture {

    final MockProcessorContext<Object, Object> processorContext;
    final SegmentedKeyValueStore store;
    StateRestoreCallback restoreCallback;

    private StoreFixture(File stateDir, SegmentedStoreSpec spec, String processingGuarantee) {
        Properties properties = new Properties();
        properties.put(StreamsConfig.APPLICATION_ID_CONFIG, "store-test");
        properties.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "localhost:9092");
        properties.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, processingGuarantee);
        processorContext = new MockProcessorContext<>(properties, new TaskId(0, 3), stateDir);
        store = new SegmentedKeyValueStore(spec);
        store.init(new CapturingContext(processorContext.getStateStoreContext()), store);
    }

    /** A store of an at-least-once application (Kafka Streams' default). */
    static StoreFixture open(File stateDir, SegmentedStoreSpec spec) {
        return new StoreFixture(stateDir, spec, StreamsConfig.AT_LEAST_ONCE);
    }

    static StoreFixture open(File stateDir, SegmentedStoreSpec spec, String processingGuarantee) {
        return new StoreFixture(stateDir, spec, processingGuarantee);
    }

    /** Delegates to the mock context and keeps the restore callback the store registers. */
    private final class CapturingContext implements StateStoreContext {
        private final StateStoreContext delegate;

        CapturingContext(StateStoreContext delegate) {
            this.delegate = delegate;
        }

        @Override
        public String applicationId() {
            return delegate.applicationId();
        }

        @Override
        public TaskId taskId() {
            return delegate.taskId();
        }

        @Override
        public Optional<RecordMetadata> recordMetadata() {
            return delegate.recordMetadata();
        }

        @Override
        public Serde<?> keySerde() {
            return delegate.keySerde();
        }

        @Override
        public Serde<?> valueSerde() {
            return delegate.valueSerde();
        }

        @Override
        public File stateDir() {
            return delegate.stateDir();
        }

        @Override
        public StreamsMetrics metrics() {
            return delegate.metrics();
        }

        @Override
        public void register(StateStore store, StateRestoreCallback callback) {
            restoreCallback = callback;
            delegate.register(store, callback);
        }

        @Override
        public void register(StateStore store, StateRestoreCallback callback, CommitCallback commitCallback) {
            restoreCallback = callback;
            delegate.register(store, callback, commitCallback);
        }

        @Override
        public Map<String, Object> appConfigs() {
            return delegate.appConfigs();
        }

        @Override
        public Map<String, Object> appConfigsWithPrefix(String prefix) {
            return delegate.appConfigsWithPrefix(prefix);
        }
    }
}
