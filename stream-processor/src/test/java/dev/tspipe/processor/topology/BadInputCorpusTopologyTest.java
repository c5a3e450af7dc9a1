package dev.tspipe.processor.topology;

import dev.tspipe.processor.badinput.BadInputCorpus;
import dev.tspipe.processor.badinput.CorpusExpectations;
import dev.tspipe.schemas.registry.MockSchemaRegistry;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The bad-input corpus ({@code bad-input/corpus.tsv}) through the topology, a valid reading
 * before every case and after the last: each bad record is one dead letter with its reason and
 * original bytes, every valid one is stored. The same corpus runs on the real broker in
 * {@code BadInputCorpusIT}.
 */
class BadInputCorpusTopologyTest extends TopologyTestBase {

    @Test
    void everyBadRecordIsADeadLetterWithItsReasonAndBytesAndEveryGoodOneIsStored() {
        Map<String, Integer> ids = BadInputCorpus.register(MockSchemaRegistry.client(scope), config.readingsTopic());
        List<BadInputCorpus.Input> inputs = BadInputCorpus.inputs(ids);
        assertThat(inputs).as("corpus cases").hasSizeGreaterThanOrEqualTo(30);

        List<CorpusExpectations.Sent> sent = new ArrayList<>();
        for (int i = 0; i <= inputs.size(); i++) {
            sent.add(pipe(BadInputCorpus.filler(i, ids), sent.size()));
            if (i < inputs.size()) {
                sent.add(pipe(inputs.get(i), sent.size()));
            }
        }

        List<CorpusExpectations.Letter> letters = dlq.readRecordsToList().stream()
                .map(r -> new CorpusExpectations.Letter(r.key(), r.value(), r.headers())).toList();
        CorpusExpectations.assertDeadLetters(sent, letters);
        CorpusExpectations.assertStored(sent, config.keyLayout(), CorpusExpectations.Rows.of(this::store));
    }

    /** Sends one record; the driver's single input partition numbers them from 0. */
    private CorpusExpectations.Sent pipe(BadInputCorpus.Input input, long offset) {
        RecordHeaders headers = new RecordHeaders();
        input.headers().forEach(headers::add);
        readings.pipeInput(new TestRecord<>(input.key(), input.value(), headers));
        return new CorpusExpectations.Sent(input, config.readingsTopic(), 0, offset);
    }
}
