package dev.tspipe.model.analysis;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** One bad layout per rule and the finding it gives: the table of docs/row-keys.md, "Checking a layout". */
class KeyLayoutLinterTest {

    private static List<KeyLayoutLinter.Finding> check(String layout) {
        return KeyLayoutLinter.check(KeyLayoutProposal.parse(layout));
    }

    private static List<String> rules(String layout) {
        return check(layout).stream().map(KeyLayoutLinter.Finding::rule).toList();
    }

    @Test
    void tspipesOwnLayoutsAreClean() {
        assertThat(check("{device:id}#{metric:enum}#{ts:timestamp:19:reversed}")).isEmpty();
        assertThat(check("{salt:hash:4}#{tenant:id}#{device:id}#{metric:id}#{ts:timestamp:19:reversed}")).isEmpty();
        assertThat(KeyLayoutLinter.exitCode(List.of())).isZero();
    }

    /** docs/row-keys.md's table, row by row: the layout, the one rule it breaks, its severity. */
    @Test
    void eachRuleHasABadLayoutThatBreaksItAlone() {
        Map<String, String> table = Map.of(
                "{ts:timestamp:19}#{device:id}", "time-first",
                "{region:enum}#{device:id}#{ts:timestamp:19:reversed}", "low-cardinality-first",
                "{order:id:monotonic}#{ts:timestamp:19:reversed}", "monotonic-without-salt",
                "{device:id}#{reading:number}", "number-without-width",
                "{device:id}|{metric:enum}|{ts:timestamp:19:reversed}", "delimiter-not-lowest",
                "{device:id}#{salt:hash:4}#{ts:timestamp:19:reversed}", "salt-not-first",
                "{device:id}#{ts:timestamp:19}", "timestamp-not-reversed",
                "{customer_email:id}#{ts:timestamp:19:reversed}", "personal-data",
                "{region:enum:8}#{kind:enum:8}", "no-high-cardinality-id",
                "{device:id:1000}#{metric:enum:100}", "key-too-long");
        table.forEach((layout, rule) -> {
            List<String> rules = rules(layout);
            if (rule.equals("no-high-cardinality-id")) {
                // An enum leads too: both rules see it.
                assertThat(rules).as(layout).containsExactlyInAnyOrder("low-cardinality-first", rule);
            } else {
                assertThat(rules).as(layout).containsExactly(rule);
            }
        });
        assertThat(check("{ts:timestamp:19}#{device:id}").get(0).severity()).isEqualTo(KeyLayoutLinter.Severity.ERROR);
        assertThat(check("{ts:timestamp:19}#{device:id}").get(0).line())
                .startsWith("error   time-first               segment 1 (ts) is a timestamp: every write of a moment goes to "
                        + "one key range").contains("— lead with the device");
        assertThat(check("{device:id}#{ts:timestamp:19}").get(0).severity()).isEqualTo(KeyLayoutLinter.Severity.WARNING);
    }

    @Test
    void theIssuesExamplesGiveTheirFindings() {
        assertThat(check("{device:id}#{n:number}").get(0).message()).contains("54 sorts after 167");
        assertThat(check("{device:id}:{ts:timestamp:19:reversed}").get(0).message())
                .startsWith("delimiter ':' (0x3A) sorts above '-' (0x2D)");
        assertThat(check("{n:number:5}:{device:id}").stream().map(KeyLayoutLinter.Finding::message))
                .anyMatch(m -> m.startsWith("delimiter ':' (0x3A) sorts above '0' (0x30)"));
        assertThat(check("{user:id:example=alice@example.com}#{ts:timestamp:19:reversed}").get(0).message())
                .contains("looks like an e-mail address");
        assertThat(check("{order:id:monotonic}").get(0).fix()).contains("salt");
        // A salt first makes a monotonic id safe.
        assertThat(check("{salt:hash:4}#{order:id:monotonic}#{ts:timestamp:19:reversed}")).isEmpty();
    }

    @Test
    void exitCodesAreZeroOneTwo() {
        assertThat(KeyLayoutLinter.exitCode(check("{device:id}#{ts:timestamp:19}"))).isEqualTo(1);
        assertThat(KeyLayoutLinter.exitCode(check("{ts:timestamp:19}#{device:id}"))).isEqualTo(2);
    }

    @Test
    void jsonAndTheBraceFormAreTheSameLayout() {
        KeyLayoutProposal json = KeyLayoutProposal.parse("{\"delimiter\": \"#\", \"segments\": [{\"name\": \"device\", \"kind\": "
                + "\"id\"}, {\"name\": \"ts\", \"kind\": \"timestamp\", \"width\": 19, \"reversed\": true}]}");
        assertThat(json).isEqualTo(KeyLayoutProposal.parse("{device:id}#{ts:timestamp:19:reversed}"));
    }

    @Test
    void aLayoutThatCannotBeReadSaysWhy() {
        assertThatThrownBy(() -> KeyLayoutProposal.parse("")).hasMessageContaining("the layout is empty");
        assertThatThrownBy(() -> KeyLayoutProposal.parse("{device}")).hasMessageContaining("needs a name and a kind");
        assertThatThrownBy(() -> KeyLayoutProposal.parse("{device:uuid}")).hasMessageContaining("one of id, enum, number");
        assertThatThrownBy(() -> KeyLayoutProposal.parse("{a:id}#{b:id}:{c:id}")).hasMessageContaining("different delimiters");
        assertThatThrownBy(() -> KeyLayoutProposal.parse("{a:id}##{b:id}")).hasMessageContaining("one character");
        assertThatThrownBy(() -> KeyLayoutProposal.parse("{a:id")).hasMessageContaining("no closing '}'");
        assertThatThrownBy(() -> KeyLayoutProposal.parse("{a:id:wide}")).hasMessageContaining("'wide'");
        assertThatThrownBy(() -> KeyLayoutProposal.parse("device#ts")).hasMessageContaining("expected '{'");
    }
}
