package dev.tspipe.processor.topology;

import org.apache.kafka.common.errors.GroupAuthorizationException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.streams.errors.StreamsException;
import org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

class StreamThreadReplacementTest {

    @Test
    void everyFailureReplacesTheThreadAfterAPauseThatDoublesUpToTenSeconds() {
        List<Long> pauses = new ArrayList<>();
        StreamThreadReplacement handler = new StreamThreadReplacement(pauses::add);

        for (int i = 0; i < 6; i++) {
            assertThat(handler.handle(new StreamsException("registry down")))
                    .isEqualTo(StreamThreadExceptionResponse.REPLACE_THREAD);
        }

        assertThat(pauses).containsExactly(1_000L, 2_000L, 4_000L, 8_000L, 10_000L, 10_000L);
        assertThat(handler.replaced()).isEqualTo(6);
    }

    @Test
    void pausesNeverOverflowHoweverManyFailuresInARow() {
        assertThat(StreamThreadReplacement.pauseAfter(1)).isEqualTo(1_000);
        assertThat(StreamThreadReplacement.pauseAfter(64)).isEqualTo(10_000);
        assertThat(StreamThreadReplacement.pauseAfter(Integer.MAX_VALUE)).isEqualTo(10_000);
    }

    @Test
    void aMissingAclIsNamedWithItsResource() {
        StreamsException topic = new StreamsException(new TopicAuthorizationException(Set.of("readings")));
        assertThat(StreamThreadReplacement.refusal(topic)).startsWith("access to topic(s) [readings]");
        assertThat(StreamThreadReplacement.refusal(new StreamsException(new GroupAuthorizationException("no", "tspipe"))))
                .startsWith("access to consumer group 'tspipe'");
        assertThat(StreamThreadReplacement.refusal(new StreamsException("registry down"))).isNull();
    }
}
