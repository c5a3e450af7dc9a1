package dev.tspipe.bench.e2e;

import com.fasterxml.jackson.core.json.JsonReadFeature;
import com.fasterxml.jackson.core.json.JsonWriteFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tspipe.schemas.Reading;
import dev.tspipe.schemas.serde.AvroSerdeConfig;
import dev.tspipe.schemas.serde.SpecificAvroSerde;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Grouped;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.TimeWindows;
import org.apache.kafka.streams.state.WindowStore;

import java.io.IOException;
import java.time.Duration;
import java.util.Map;

/**
 * The naive baseline: what a typical team writes for per-series minute aggregates with the
 * Kafka Streams DSL. Readings are re-keyed by series ({@code device|metric}, which repartitions),
 * windowed by one minute and aggregated into the default RocksDB window store, with a Jackson
 * JSON serde for the aggregate. No raw rows, no coarser rollups, no latest values: it does less
 * than tspipe, on purpose.
 *
 * <p>Without grace (as typically written) it drops most of a backlog: the repartition topic
 * interleaves batches of the upstream tasks that are minutes of event time apart, and a record
 * whose window closed in stream time is skipped ({@code dropped-records-total}). The harness
 * therefore also runs it with a grace period longer than the input's span, where it aggregates
 * every reading (a grace of 5 minutes still dropped 84% of a 3-hour backlog).
 */
final class BaselineTopology {

    static final String STORE = "minute-aggregates";

    /** The aggregate of one series in one minute; immutable, serialized as JSON. */
    record MinuteAggregate(long count, double sum, double min, double max, double last) {

        static MinuteAggregate empty() {
            return new MinuteAggregate(0, 0, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, Double.NaN);
        }

        MinuteAggregate add(double value) {
            return new MinuteAggregate(count + 1, sum + value, Math.min(min, value), Math.max(max, value), value);
        }
    }

    private BaselineTopology() {
    }

    /** The topology; pure, no I/O until Kafka Streams runs it. */
    static Topology build(String inputTopic, String schemaRegistryUrl, Duration grace) {
        Serde<Reading> readings = new SpecificAvroSerde<>(Reading.class);
        readings.configure(Map.of(AvroSerdeConfig.SCHEMA_REGISTRY_URL, schemaRegistryUrl,
                AvroSerdeConfig.SPECIFIC_AVRO_READER, true), false);
        StreamsBuilder builder = new StreamsBuilder();
        builder.stream(inputTopic, Consumed.with(Serdes.String(), readings))
                .groupBy((device, reading) -> reading.getDeviceId() + "|" + reading.getMetric(),
                        Grouped.with("by-series", Serdes.String(), readings))
                .windowedBy(grace.isZero() ? TimeWindows.ofSizeWithNoGrace(Duration.ofMinutes(1))
                        : TimeWindows.ofSizeAndGrace(Duration.ofMinutes(1), grace))
                .aggregate(MinuteAggregate::empty, (series, reading, aggregate) -> aggregate.add(reading.getValue()),
                        Materialized.<String, MinuteAggregate, WindowStore<Bytes, byte[]>>as(STORE)
                                .withKeySerde(Serdes.String())
                                .withValueSerde(jsonSerde()));
        return builder.build();
    }

    /** Jackson, as a team would write it; infinities and NaN (the empty aggregate) are allowed. */
    static Serde<MinuteAggregate> jsonSerde() {
        ObjectMapper mapper = new ObjectMapper()
                .enable(JsonWriteFeature.WRITE_NAN_AS_STRINGS.mappedFeature())
                .enable(JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS.mappedFeature());
        return Serdes.serdeFrom(
                (topic, aggregate) -> {
                    try {
                        return aggregate == null ? null : mapper.writeValueAsBytes(aggregate);
                    } catch (IOException e) {
                        throw new SerializationException("cannot write " + aggregate + " as JSON", e);
                    }
                },
                (topic, bytes) -> {
                    try {
                        return bytes == null ? null : mapper.readValue(bytes, MinuteAggregate.class);
                    } catch (IOException e) {
                        throw new SerializationException("cannot read a minute aggregate from JSON", e);
                    }
                });
    }
}
