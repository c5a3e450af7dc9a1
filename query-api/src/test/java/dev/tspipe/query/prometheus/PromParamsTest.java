package dev.tspipe.query.prometheus;

import dev.tspipe.query.error.ApiException;
import dev.tspipe.query.promql.Instants;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The instants of a range query: every span whose points Prometheus would refuse is refused, overflowing ones too. */
class PromParamsTest {

    /**
     * HttpFuzzIT (seed 2622281470453) sent {@code start=-9223372036854775.808&end=0&step=1m30s}: {@code end - start}
     * wrapped to a negative span, passed the resolution check, and the node evaluated for longer than the client waited.
     */
    @Test
    void aSpanTooLongForALongIsRefusedAsTooManyPoints() {
        for (long[] range : new long[][] {{Long.MIN_VALUE, 0}, {Long.MIN_VALUE, Long.MAX_VALUE}, {-1, Long.MAX_VALUE},
                {Long.MIN_VALUE + 1, 1}}) {
            assertThatThrownBy(() -> PromParams.instants(range[0], range[1], 90_000))
                    .isInstanceOfSatisfying(ApiException.class, e -> {
                        assertThat(e.status()).isEqualTo(400);
                        assertThat(e.getMessage()).contains("exceeded maximum resolution of 11000 points");
                    });
        }
    }

    @Test
    void theLongestAcceptedSpanAndTheFirstRefusedOne() {
        long step = 90_000;
        Instants longest = PromParams.instants(-5_000, -5_000 + (Instants.MAX_POINTS - 1) * step + step - 1, step);
        assertThat(longest.count()).isEqualTo(Instants.MAX_POINTS);
        assertThatThrownBy(() -> PromParams.instants(-5_000, -5_000 + Instants.MAX_POINTS * step, step))
                .isInstanceOf(ApiException.class);
    }

    @Test
    void theCountOfAnOverflowingSpanSaturates() {
        assertThat(new Instants(Long.MIN_VALUE, Long.MAX_VALUE, 1).count()).isEqualTo(Integer.MAX_VALUE);
        assertThat(new Instants(Long.MIN_VALUE, 0, 90_000).count()).isEqualTo(Integer.MAX_VALUE);
        assertThat(Instants.span(Long.MIN_VALUE, 0)).isEqualTo(Long.MAX_VALUE);
        assertThat(Instants.span(-10, 20)).isEqualTo(30);
    }
}
