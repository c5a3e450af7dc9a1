package dev.tspipe.query.promql;

import dev.tspipe.model.keys.SeriesId;
import dev.tspipe.query.promql.Expr.MatchOp;
import dev.tspipe.query.promql.Expr.Matcher;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class SeriesSelectionTest {

    private static final QueryBudget BUDGET = QueryBudget.full(java.time.Clock.systemUTC());

    private static final SeriesId ACME_PRESS_1 = SeriesId.of("acme", "press-1", "temperature");
    private static final SeriesId ACME_PRESS_2 = SeriesId.of("acme", "press-2", "pressure");
    private static final SeriesId GLOBEX_DEV_1 = SeriesId.of("globex", "dev-1", "temperature");
    private static final SeriesId SINGLE_TENANT = SeriesId.of("dev", "temperature");
    private static final List<SeriesId> ALL = List.of(ACME_PRESS_1, ACME_PRESS_2, GLOBEX_DEV_1, SINGLE_TENANT);

    @Test
    void theFourOperatorsOnNameDeviceAndTenant() {
        assertThat(selected(null, m("__name__", MatchOp.EQUAL, "temperature"))).containsExactly(ACME_PRESS_1, GLOBEX_DEV_1,
                SINGLE_TENANT);
        assertThat(selected(null, m("__name__", MatchOp.NOT_EQUAL, "temperature"))).containsExactly(ACME_PRESS_2);
        assertThat(selected(null, m("__name__", MatchOp.REGEX, "pres.*"))).containsExactly(ACME_PRESS_2);
        assertThat(selected(null, m("__name__", MatchOp.NOT_REGEX, "pres.*"))).containsExactly(ACME_PRESS_1, GLOBEX_DEV_1,
                SINGLE_TENANT);

        assertThat(selected(null, m("device", MatchOp.EQUAL, "press-1"))).containsExactly(ACME_PRESS_1);
        assertThat(selected(null, m("device", MatchOp.NOT_EQUAL, "press-1"))).containsExactly(ACME_PRESS_2, GLOBEX_DEV_1,
                SINGLE_TENANT);
        assertThat(selected(null, m("device", MatchOp.REGEX, "press-[12]"))).containsExactly(ACME_PRESS_1, ACME_PRESS_2);
        assertThat(selected(null, m("device", MatchOp.NOT_REGEX, "press-[12]"))).containsExactly(GLOBEX_DEV_1, SINGLE_TENANT);

        assertThat(selected(null, m("tenant", MatchOp.EQUAL, "acme"))).containsExactly(ACME_PRESS_1, ACME_PRESS_2);
        assertThat(selected(null, m("tenant", MatchOp.NOT_EQUAL, "acme"))).containsExactly(GLOBEX_DEV_1, SINGLE_TENANT);
        assertThat(selected(null, m("tenant", MatchOp.REGEX, "acme|globex"))).containsExactly(ACME_PRESS_1, ACME_PRESS_2,
                GLOBEX_DEV_1);
        assertThat(selected(null, m("tenant", MatchOp.NOT_REGEX, "glob.*"))).containsExactly(ACME_PRESS_1, ACME_PRESS_2,
                SINGLE_TENANT);
    }

    @Test
    void everyMatcherMustHold() {
        assertThat(selected(null, m("__name__", MatchOp.EQUAL, "temperature"), m("tenant", MatchOp.EQUAL, "acme")))
                .containsExactly(ACME_PRESS_1);
        assertThat(selected(null, m("__name__", MatchOp.EQUAL, "temperature"), m("__name__", MatchOp.EQUAL, "pressure")))
                .isEmpty();
        assertThat(selected(null)).as("no matcher").containsExactlyElementsOf(ALL);
    }

    @Test
    void aLabelTheSeriesHasNotGotIsTheEmptyString() {
        assertThat(selected(null, m("job", MatchOp.EQUAL, ""))).containsExactlyElementsOf(ALL);
        assertThat(selected(null, m("job", MatchOp.EQUAL, "x"))).isEmpty();
        assertThat(selected(null, m("job", MatchOp.NOT_EQUAL, "x"))).containsExactlyElementsOf(ALL);
        assertThat(selected(null, m("job", MatchOp.NOT_EQUAL, ""))).isEmpty();
        assertThat(selected(null, m("job", MatchOp.REGEX, ".*"))).containsExactlyElementsOf(ALL);
        assertThat(selected(null, m("job", MatchOp.REGEX, ".+"))).isEmpty();
        assertThat(selected(null, m("job", MatchOp.NOT_REGEX, ".+"))).containsExactlyElementsOf(ALL);

        assertThat(selected(null, m("tenant", MatchOp.EQUAL, ""))).as("a single-tenant series has no tenant")
                .containsExactly(SINGLE_TENANT);
    }

    @Test
    void regularExpressionsAreAnchoredAtBothEnds() {
        assertThat(selected(null, m("device", MatchOp.REGEX, "dev"))).containsExactly(SINGLE_TENANT);
        assertThat(selected(null, m("device", MatchOp.REGEX, "dev.*"))).containsExactly(GLOBEX_DEV_1, SINGLE_TENANT);
        assertThat(selected(null, m("device", MatchOp.REGEX, "ess"))).isEmpty();
        assertThat(selected(null, m("device", MatchOp.REGEX, "press|dev"))).as("the alternation is anchored as a whole")
                .containsExactly(SINGLE_TENANT);
        assertThat(selected(null, m("device", MatchOp.NOT_REGEX, "dev"))).containsExactly(ACME_PRESS_1, ACME_PRESS_2,
                GLOBEX_DEV_1);
    }

    @Test
    void aCallerBoundToATenantSeesOnlyItsSeries() {
        assertThat(selected("acme")).containsExactly(ACME_PRESS_1, ACME_PRESS_2);
        assertThat(selected("acme", m("__name__", MatchOp.EQUAL, "temperature"))).containsExactly(ACME_PRESS_1);
        assertThat(selected("acme", m("tenant", MatchOp.EQUAL, "globex"))).isEmpty();
        assertThat(selected("acme", m("tenant", MatchOp.NOT_EQUAL, "acme"))).isEmpty();
        assertThat(selected("initech")).isEmpty();
    }

    @Test
    void theLabelsOfASeriesNameFirstAndTenantOnlyWhenItHasOne() {
        assertThat(SeriesSelection.labels(SINGLE_TENANT)).containsExactly(Map.entry("__name__", "temperature"),
                Map.entry("device", "dev"));
        assertThat(SeriesSelection.labels(ACME_PRESS_1)).containsExactly(Map.entry("__name__", "temperature"),
                Map.entry("device", "press-1"), Map.entry("tenant", "acme"));
    }

    @Test
    void theDeviceIsKnownOnlyFromANonEmptyEqualMatcher() {
        assertThat(new SeriesSelection(List.of(m("device", MatchOp.EQUAL, "press-1")), null).device()).contains("press-1");
        assertThat(new SeriesSelection(List.of(m("__name__", MatchOp.EQUAL, "up"), m("device", MatchOp.EQUAL, "press-1")),
                "acme").device()).contains("press-1");
        assertThat(new SeriesSelection(List.of(m("device", MatchOp.EQUAL, "")), null).device()).isEmpty();
        assertThat(new SeriesSelection(List.of(m("device", MatchOp.REGEX, "press-1")), null).device()).isEmpty();
        assertThat(new SeriesSelection(List.of(m("device", MatchOp.NOT_EQUAL, "press-1")), null).device()).isEmpty();
        assertThat(new SeriesSelection(List.of(m("device", MatchOp.NOT_REGEX, "press-1")), null).device()).isEmpty();
        assertThat(new SeriesSelection(List.of(m("__name__", MatchOp.EQUAL, "up")), null).device()).isEmpty();
    }

    @Test
    void theTenantIsTheCallersOneElseFromANonEmptyEqualMatcher() {
        assertThat(new SeriesSelection(List.of(), "acme").tenant()).contains("acme");
        assertThat(new SeriesSelection(List.of(m("tenant", MatchOp.EQUAL, "globex")), "acme").tenant()).contains("acme");
        assertThat(new SeriesSelection(List.of(m("tenant", MatchOp.EQUAL, "globex")), null).tenant()).contains("globex");
        assertThat(new SeriesSelection(List.of(m("tenant", MatchOp.EQUAL, "")), null).tenant()).isEmpty();
        assertThat(new SeriesSelection(List.of(m("tenant", MatchOp.REGEX, "globex")), null).tenant()).isEmpty();
        assertThat(new SeriesSelection(List.of(m("tenant", MatchOp.NOT_EQUAL, "globex")), null).tenant()).isEmpty();
        assertThat(new SeriesSelection(List.of(), null).tenant()).isEmpty();
    }

    private static Matcher m(String label, MatchOp op, String value) {
        return new Matcher(label, op, value);
    }

    /** The series of {@link #ALL} that the matchers pick, in that order. */
    private static List<SeriesId> selected(String tenantOnly, Matcher... matchers) {
        SeriesSelection selection = new SeriesSelection(List.of(matchers), tenantOnly);
        return ALL.stream().filter(s -> selection.matches(s, BUDGET)).toList();
    }

    @Test
    void theLabelsOfAMetricWrittenWithLabelsAreLabelsAndAClashIsExported() {
        SeriesId disk = SeriesId.of("acme", "web-1:9100", "node_disk_read_bytes_total{device=\"sda\",job=\"node\"}");
        assertThat(SeriesSelection.labels(disk)).containsExactly(Map.entry("__name__", "node_disk_read_bytes_total"),
                Map.entry("device", "web-1:9100"), Map.entry("exported_device", "sda"),
                Map.entry("job", "node"), Map.entry("tenant", "acme"));
        assertThat(new SeriesSelection(List.of(new Matcher("__name__", MatchOp.EQUAL, "node_disk_read_bytes_total"),
                new Matcher("job", MatchOp.REGEX, "no.*")), null).matches(disk, BUDGET)).isTrue();
        assertThat(new SeriesSelection(List.of(new Matcher("exported_device", MatchOp.EQUAL, "sdb")), null)
                .matches(disk, BUDGET)).isFalse();
    }

    @Test
    void aRegularExpressionThatBacktracksWithoutEndIsA422NotAHungThread() {
        SeriesId long_ = SeriesId.of("a".repeat(28) + "!", "m");
        SeriesSelection catastrophic = new SeriesSelection(List.of(new Matcher("device", MatchOp.REGEX, "(.*a){20}")), null);
        long started = System.nanoTime();
        assertThatThrownBy(() -> catastrophic.matches(long_, BUDGET)).isInstanceOf(dev.tspipe.query.error.ApiException.class)
                .hasMessageContaining("takes too long").extracting(e -> ((dev.tspipe.query.error.ApiException) e).status()).isEqualTo(422);
        assertThat(System.nanoTime() - started).as("gave up, not finished").isLessThan(java.util.concurrent.TimeUnit.SECONDS.toNanos(30));
        assertThat(new SeriesSelection(List.of(new Matcher("device", MatchOp.REGEX, "(a+)+!")), null).matches(long_, BUDGET)).isTrue();
    }
    @Test
    void aDevicesMetadataIsMatchableAndTheSeriesOwnLabelsWinOnAClash() {
        DeviceLabels metadata = (tenant, device) -> device.equals("press-1")
                ? Map.of("site", "plant-1", "device", "other", "job", "meta", "line", "3", "bad-name", "x", "__hidden", "y")
                : Map.of();
        SeriesId withJob = SeriesId.of("acme", "press-1", "up{job=\"node\"}");

        assertThat(SeriesSelection.labels(withJob, metadata)).containsExactly(Map.entry("__name__", "up"),
                Map.entry("device", "press-1"), Map.entry("job", "node"), Map.entry("line", "3"), Map.entry("site", "plant-1"),
                Map.entry("tenant", "acme"));
        SeriesSelection plant1 = new SeriesSelection(List.of(m("site", MatchOp.EQUAL, "plant-1")), null, metadata);
        assertThat(ALL.stream().filter(s -> plant1.matches(s, BUDGET))).containsExactly(ACME_PRESS_1);
        assertThat(new SeriesSelection(List.of(m("site", MatchOp.EQUAL, "")), null, metadata).matches(ACME_PRESS_2, BUDGET)).isTrue();
        assertThat(new SeriesSelection(List.of(m("device", MatchOp.EQUAL, "other")), null, metadata).matches(ACME_PRESS_1, BUDGET))
                .isFalse();
        assertThat(new SeriesSelection(List.of(m("site", MatchOp.EQUAL, "plant-1")), null).matches(ACME_PRESS_1, BUDGET))
                .as("without metadata").isFalse();
    }
}
