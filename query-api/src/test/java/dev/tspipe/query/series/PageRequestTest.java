package dev.tspipe.query.series;

import dev.tspipe.query.error.ApiException;
import dev.tspipe.model.keys.SeriesId;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class PageRequestTest {

    private static final SeriesId SERIES = SeriesId.of("d", "m");

    @Test
    void defaultsAreEverythingNewestFirstAHundredRows() {
        PageRequest request = PageRequest.parse("readings", SERIES, null, null, null, null, null);
        assertThat(request.window()).isEqualTo(new TimeWindow(0, TimeWindow.EVERYTHING_TO));
        assertThat(request.limit()).isEqualTo(100);
        assertThat(request.order()).isEqualTo(Order.DESC);
        assertThat(request.cursor()).isNull();
    }

    @Test
    void fromAndToTakeEpochMillisAndIsoInstants() {
        assertThat(TimeWindow.parse("1700000000000", "2026-11-01T00:00:00Z"))
                .isEqualTo(new TimeWindow(1_700_000_000_000L, 1_793_491_200_000L));
        assertThat(TimeWindow.parse("2026-11-01T00:00:00.001Z", null).from()).isEqualTo(1_793_491_200_001L);
        assertThat(TimeWindow.parse("5", "6")).isEqualTo(new TimeWindow(5, 6));
    }

    @ParameterizedTest(name = "from={0} to={1} limit={2} order={3} -> names {4}")
    @CsvSource(value = {
            "yesterday, , , , from",
            "2026-13-01T00:00:00Z, , , , from",
            "-1, , , , from",
            "99999999999999999999, , , , from",
            ", 1.5, , , to",
            ", 2026-11-01, , , to",
            "10, 10, , , from",
            "11, 10, , , from",
            ", , 0, , limit",
            ", , 10001, , limit",
            ", , ten, , limit",
            ", , -5, , limit",
            ", , , newest, order",
            ", , , up, order"})
    void everyBadFormIsA400NamingTheParameter(String from, String to, String limit, String order, String parameter) {
        assertThatThrownBy(() -> PageRequest.parse("readings", SERIES, from, to, limit, order, null))
                .isInstanceOfSatisfying(ApiException.class, e -> {
                    assertThat(e.status()).isEqualTo(400);
                    assertThat(e.code()).isEqualTo("bad-parameter");
                    assertThat(e.getMessage()).startsWith(parameter + ": ");
                });
    }

    @Test
    void limitBoundsAndOrderCaseAreAccepted() {
        assertThat(PageRequest.parse("readings", SERIES, null, null, "1", "ASC", null).limit()).isEqualTo(1);
        assertThat(PageRequest.parse("readings", SERIES, null, null, "10000", "asc", null).order()).isEqualTo(Order.ASC);
    }

    @Test
    void stepMustBeOneOfTheRollupSteps() {
        assertThat(SeriesRoutes.step("1h").label()).isEqualTo("1h");
        for (String bad : new String[] {null, "", "5m", "1w", "hour"}) {
            assertThatThrownBy(() -> SeriesRoutes.step(bad)).isInstanceOfSatisfying(ApiException.class,
                    e -> assertThat(e.getMessage()).startsWith("step: ").contains("1m, 1h, 1d"));
        }
    }

    @Test
    void aCursorNarrowsTheWindowToWhatComesAfterTheLastRow() {
        PageRequest first = PageRequest.parse("readings", SERIES, "100", "200", "10", "desc", null);
        PageRequest next = PageRequest.parse("readings", SERIES, "100", "200", "10", "desc", first.nextCursor(150));
        assertThat(next.remaining()).isEqualTo(new TimeWindow(100, 150));

        PageRequest ascending = PageRequest.parse("readings", SERIES, "100", "200", "10", "asc", null);
        PageRequest nextAscending = PageRequest.parse("readings", SERIES, "100", "200", "10", "asc", ascending.nextCursor(150));
        assertThat(nextAscending.remaining()).isEqualTo(new TimeWindow(151, 200));
    }
}
