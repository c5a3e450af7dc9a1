package dev.tspipe.query.routing;

import dev.tspipe.query.error.ApiException;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.junit.jupiter.api.Test;

import java.util.Optional;
import java.util.function.Supplier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class LocalCopyTest {

    private static final Supplier<String> UNKNOWN_SERIES = () -> {
        throw ApiException.notFound("unknown-series", "no reading of series 'temp' of device 'd-1' is stored");
    };
    private static final Supplier<String> NOT_QUERYABLE = () -> {
        throw new InvalidStateStoreException("the store is restoring");
    };

    @Test
    void aCopyThatAnswersIsTheAnswerFreshOrStale() {
        assertThat(LocalCopy.read(() -> "rows", false)).contains("rows");
        assertThat(LocalCopy.read(() -> "rows", true)).contains("rows");
    }

    @Test
    void aStoreThatIsNotQueryableHereIsPassedOver() {
        assertThat(LocalCopy.read(NOT_QUERYABLE, false)).isEmpty();
        assertThat(LocalCopy.read(NOT_QUERYABLE, true)).isEmpty();
    }

    /** Only the caught-up active task may say that a series does not exist. */
    @Test
    void anUnknownSeriesIs404FromTheActiveTaskButPassedOverFromACopyBehind() {
        assertThatThrownBy(() -> LocalCopy.read(UNKNOWN_SERIES, false))
                .isInstanceOfSatisfying(ApiException.class, e -> assertThat(e.status()).isEqualTo(404));
        assertThat(LocalCopy.read(UNKNOWN_SERIES, true)).isEqualTo(Optional.empty());
    }

    @Test
    void aBadParameterIs400FromAnyCopy() {
        Supplier<String> badWindow = () -> {
            throw ApiException.badParameter("from", "after 'to'");
        };
        assertThatThrownBy(() -> LocalCopy.read(badWindow, true))
                .isInstanceOfSatisfying(ApiException.class, e -> assertThat(e.status()).isEqualTo(400));
    }
}
