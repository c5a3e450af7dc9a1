package dev.tspipe.bench.e2e;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The QuestDB column's table: each tag key a symbol column; a key that cannot be one is refused with its name. */
class QuestDbTableTest {

    @Test
    void theHarnessInputsTableHasItsUnitTagAsASymbolColumn() {
        assertThat(QuestDbTable.forTagKeys(List.of("unit")).createStatement()).isEqualTo("CREATE TABLE readings (device SYMBOL,"
                + " metric SYMBOL, unit SYMBOL, value DOUBLE, ts TIMESTAMP) TIMESTAMP(ts) PARTITION BY DAY WAL"
                + " DEDUP UPSERT KEYS(ts, device, metric)");
        assertThat(QuestDbTable.forTagKeys(List.of()).createStatement()).startsWith("CREATE TABLE readings (device SYMBOL, metric SYMBOL,"
                + " value DOUBLE, ts TIMESTAMP)");
        assertThat(QuestDbTable.forTagKeys(List.of("firmware", "site")).createStatement())
                .contains("metric SYMBOL, firmware SYMBOL, site SYMBOL, value DOUBLE");
    }

    @Test
    void aTagKeyThatCannotBeAColumnOfItsOwnIsRefused() {
        for (String key : List.of("value", "TS", "device", "metric", "unit of measure", "1st", "a;b", "")) {
            assertThatThrownBy(() -> QuestDbTable.forTagKeys(List.of("unit", key))).as(key)
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("tag key '" + key + "'");
        }
    }
}
