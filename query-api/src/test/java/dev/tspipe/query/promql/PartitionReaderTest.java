package dev.tspipe.query.promql;

import dev.tspipe.model.keys.KeyLayout;
import dev.tspipe.model.keys.SeriesId;
import dev.tspipe.query.promql.Expr.MatchOp;
import dev.tspipe.query.promql.Expr.Matcher;
import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class PartitionReaderTest {

    private static final Matcher ANY_NAME = new Matcher("__name__", MatchOp.REGEX, ".+");

    @Test
    void anUnanchoredSelectorReadsOnlyTheAskingTenantsRows() {
        MemoryLatestStore latest = twoTenants(KeyLayout.MULTI_TENANT);
        PartitionReader reader = new PartitionReader(KeyLayout.MULTI_TENANT);

        PartitionSeries bound = reader.series(latest.source(KeyLayout.MULTI_TENANT), new SeriesSelection(List.of(ANY_NAME), "globex"), 0, budget());

        assertThat(bound.series()).hasSize(100).allMatch(one -> one.series().tenant().equals("globex"));
        assertThat(latest.rowsRead()).isEqualTo(100);

        latest.resetRowsRead();
        PartitionSeries named = reader.series(latest.source(KeyLayout.MULTI_TENANT),
                new SeriesSelection(List.of(ANY_NAME, new Matcher("tenant", MatchOp.EQUAL, "globex")), null), 0, budget());
        assertThat(named.series()).hasSize(100);
        assertThat(latest.rowsRead()).isEqualTo(100);
    }

    @Test
    void saltedKeysStillAnswerTheTenantsSeriesOnly() {
        KeyLayout salted = new KeyLayout(true, true);
        MemoryLatestStore latest = twoTenants(salted);
        PartitionReader reader = new PartitionReader(salted);

        PartitionSeries answer = reader.series(latest.source(salted), new SeriesSelection(List.of(ANY_NAME), "globex"), 0, budget());

        assertThat(answer.series()).hasSize(100).allMatch(one -> one.series().tenant().equals("globex"));
    }

    /** A latest store with 2,200 series of acme, 100 of globex, and 100 of a tenant ordered after both. */
    private static MemoryLatestStore twoTenants(KeyLayout layout) {
        MemoryLatestStore latest = new MemoryLatestStore();
        for (int i = 0; i < 2_200; i++) {
            latest.put(layout, SeriesId.of("acme", "acme-pad-" + i, "temperature"));
        }
        for (int i = 0; i < 100; i++) {
            latest.put(layout, SeriesId.of("globex", "globex-pad-" + i, "temperature"));
            latest.put(layout, SeriesId.of("globexx", "globexx-pad-" + i, "temperature"));
        }
        return latest;
    }

    private static QueryBudget budget() {
        return QueryBudget.full(Clock.systemUTC());
    }
}
