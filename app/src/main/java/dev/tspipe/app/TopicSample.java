package dev.tspipe.app;

import dev.tspipe.ingest.OffsetRanges;
import dev.tspipe.ingest.Progress;
import dev.tspipe.processor.topology.ReadingDecoder;
import dev.tspipe.processor.topology.ReadingValidator;
import dev.tspipe.processor.topology.RejectReason;
import dev.tspipe.schemas.serde.AvroSerdeConfig;
import dev.tspipe.schemas.serde.RegistryUnavailableSerializationException;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.AuthenticationException;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;

/**
 * The newest records of a topic, judged as the pipeline judges them ({@link ReadingDecoder}), for
 * {@code tspipe keys analyze}. The N newest are taken from each partition in proportion to its records
 * ({@link #newest}), so that every partition's part covers about the same recent time and the devices of a busy
 * partition weigh as much as they do in the topic. Reads without a consumer group: nothing is committed.
 */
final class TopicSample implements AutoCloseable {


    private final KafkaConsumer<byte[], byte[]> consumer;
    private final String topic;
    private final String bootstrapServers;
    private final List<TopicPartition> partitions;

    private TopicSample(KafkaConsumer<byte[], byte[]> consumer, String topic, String bootstrapServers,
                        List<TopicPartition> partitions) {
        this.consumer = consumer;
        this.topic = topic;
        this.bootstrapServers = bootstrapServers;
        this.partitions = partitions;
    }

    /**
     * A sample of {@code topic}, whose partitions are known once this returns.
     *
     * @param clientSettings Kafka client settings ({@code bootstrap.servers}, security); registry keys are left out
     * @throws UserError when Kafka cannot be reached, refuses this client, or has no such topic
     */
    static TopicSample open(Map<String, Object> clientSettings, String topic) {
        Map<String, Object> settings = new HashMap<>(clientSettings);
        settings.keySet().removeIf(AvroSerdeConfig::isSetting);
        settings.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        settings.putIfAbsent(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        settings.putIfAbsent(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 2_000);
        // A command should not wait Kafka's default minute when the brokers are gone.
        settings.putIfAbsent(ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 15_000);
        String servers = String.valueOf(settings.get(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG));
        KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(settings, new ByteArrayDeserializer(),
                new ByteArrayDeserializer());
        try {
            List<PartitionInfo> infos = consumer.partitionsFor(topic);
            if (infos == null || infos.isEmpty()) {
                throw new UserError("topic '" + topic + "' does not exist on " + servers + "; give the readings topic "
                        + "with --topic");
            }
            List<TopicPartition> partitions = infos.stream().map(info -> new TopicPartition(topic, info.partition()))
                    .sorted(Comparator.comparingInt(TopicPartition::partition)).toList();
            return new TopicSample(consumer, topic, servers, partitions);
        } catch (RuntimeException e) {
            consumer.close();
            throw userError(e, topic, servers);
        }
    }

    /** Partitions of the topic. */
    int partitions() {
        return partitions.size();
    }

    /**
     * How many of the newest records to take from each partition: {@code sample} in all, in proportion to the records
     * each holds (largest remainders get the rounding), or all of them when the topic holds no more.
     *
     * @param available records per partition
     */
    static Map<Integer, Long> newest(Map<Integer, Long> available, long sample) {
        long total = available.values().stream().mapToLong(Long::longValue).sum();
        Map<Integer, Long> take = new TreeMap<>(available);
        if (total <= sample) {
            return take;
        }
        long given = 0;
        List<Map.Entry<Integer, Double>> remainders = new ArrayList<>();
        for (Map.Entry<Integer, Long> partition : available.entrySet()) {
            double exact = (double) sample * partition.getValue() / total;
            long whole = (long) Math.floor(exact);
            take.put(partition.getKey(), whole);
            given += whole;
            remainders.add(Map.entry(partition.getKey(), exact - whole));
        }
        remainders.sort(Map.Entry.<Integer, Double>comparingByValue().reversed().thenComparing(Map.Entry.comparingByKey()));
        for (int i = 0; given < sample; i++, given++) {
            take.merge(remainders.get(i).getKey(), 1L, Long::sum);
        }
        return take;
    }

    /**
     * Reads the newest {@code sample} records (fewer when the topic holds fewer) and gives the verdict on each to
     * {@code sink}; a record without a value is undecodable, as the pipeline finds it.
     *
     * @return the records read
     */
    long read(long sample, ReadingDecoder decoder, boolean progressBar, Consumer<ReadingValidator.Verdict> sink) {
        try {
            Map<TopicPartition, Long> begins = consumer.beginningOffsets(partitions);
            Map<TopicPartition, Long> ends = consumer.endOffsets(partitions);
            Map<Integer, Long> available = new TreeMap<>();
            partitions.forEach(tp -> available.put(tp.partition(), ends.get(tp) - begins.get(tp)));
            Map<Integer, Long> take = newest(available, sample);
            Map<TopicPartition, Long> from = new HashMap<>();
            long total = 0;
            for (TopicPartition tp : partitions) {
                long n = take.get(tp.partition());
                if (n > 0) {
                    from.put(tp, ends.get(tp) - n);
                    total += n;
                }
            }
            long[] read = {0};
            try (Progress progress = Progress.bar(progressBar, "analyze", total, "records", 1)) {
                OffsetRanges.read(consumer, from, ends, record -> {
                    read[0]++;
                    progress.stepBy(1);
                    sink.accept(record.value() == null
                            ? new ReadingValidator.Rejected(RejectReason.UNDECODABLE, "a record without a value")
                            : decoder.verdict(topic, record.value()));
                    return true;
                });
            }
            return read[0];
        } catch (RegistryUnavailableSerializationException e) {
            throw new UserError("the schema registry cannot be reached (" + e.getMessage() + "): is it running, and is "
                    + "--schema-registry-url right?");
        } catch (KafkaException e) {
            throw userError(e, topic, bootstrapServers);
        }
    }

    private static RuntimeException userError(RuntimeException e, String topic, String servers) {
        if (e instanceof UserError) {
            return e;
        }
        if (e instanceof AuthenticationException refused) {
            return KafkaOptions.credentialsRefused(servers, refused);
        }
        if (e instanceof AuthorizationException) {
            return new UserError("Kafka at " + servers + " does not allow this client to read topic '" + topic + "' ("
                    + e.getMessage() + "); grant it DESCRIBE and READ on the topic");
        }
        if (e instanceof KafkaException) {
            return new UserError("cannot read topic '" + topic + "' on " + servers + " (" + e.getMessage() + "): is the "
                    + "broker running ('tspipe demo' starts one)? Set --bootstrap-servers otherwise");
        }
        return e;
    }

    @Override
    public void close() {
        consumer.close();
    }
}
