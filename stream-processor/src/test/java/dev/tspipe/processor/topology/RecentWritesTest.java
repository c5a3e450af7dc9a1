package dev.tspipe.processor.topology;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import org.apache.kafka.common.utils.Bytes;
import org.junit.jupiter.api.Test;

class RecentWritesTest {

    private static Bytes key(String text) {
        return Bytes.wrap(text.getBytes(StandardCharsets.US_ASCII));
    }

    @Test
    void returnsTheLastValueWrittenUnderAnEqualKey() {
        RecentWrites recent = new RecentWrites(10);
        recent.wrote(key("dev-1#temp#1"), new byte[] {1});
        recent.wrote(key("dev-1#temp#1"), new byte[] {2});

        assertThat(recent.get(key("dev-1#temp#1"))).containsExactly(2);
        assertThat(recent.get(key("dev-1#temp#2"))).isNull();
    }

    @Test
    void startsAgainEmptyWhenFull() {
        RecentWrites recent = new RecentWrites(3);
        recent.wrote(key("a"), new byte[] {1});
        recent.wrote(key("b"), new byte[] {2});
        recent.wrote(key("c"), new byte[] {3});

        recent.wrote(key("d"), new byte[] {4});

        assertThat(recent.size()).isEqualTo(1);
        assertThat(recent.get(key("a"))).isNull();
        assertThat(recent.get(key("d"))).containsExactly(4);
    }

    @Test
    void refusesACapacityBelowOne() {
        assertThatThrownBy(() -> new RecentWrites(0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("at least 1");
    }
}
