package dev.tspipe.query.promql;

import dev.tspipe.query.promql.Expr.MatchOp;
import dev.tspipe.query.promql.Expr.Matcher;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class PromQlTest {

    private static Matcher name(String metric) {
        return new Matcher("__name__", MatchOp.EQUAL, metric);
    }

    @Test
    void selectorsWithEveryMatcher() throws Exception {
        assertThat(PromQl.parse("temperature")).isEqualTo(new Expr.VectorSelector(List.of(name("temperature"))));
        assertThat(PromQl.parse(" temperature { device = \"press-1\" , tenant!='acme', site=~\"b.*\", rack!~`r[0-9]+`, } "))
                .isEqualTo(new Expr.VectorSelector(List.of(name("temperature"), new Matcher("device", MatchOp.EQUAL, "press-1"),
                        new Matcher("tenant", MatchOp.NOT_EQUAL, "acme"), new Matcher("site", MatchOp.REGEX, "b.*"),
                        new Matcher("rack", MatchOp.NOT_REGEX, "r[0-9]+"))));
        assertThat(PromQl.parse("{__name__=~\"node_.*\", device=\"a\\\"b\\\\c\"}")).isEqualTo(new Expr.VectorSelector(List.of(
                new Matcher("__name__", MatchOp.REGEX, "node_.*"), new Matcher("device", MatchOp.EQUAL, "a\"b\\c"))));
        assertThat(PromQl.parse("node:load:avg1m")).isEqualTo(new Expr.VectorSelector(List.of(name("node:load:avg1m"))));
    }

    @Test
    void rangesFunctionsAndAggregationsAsGrafanaWritesThem() throws Exception {
        Expr.MatrixSelector range = new Expr.MatrixSelector(new Expr.VectorSelector(List.of(name("temperature"),
                new Matcher("device", MatchOp.EQUAL, "d"))), 90 * 60_000L);
        assertThat(PromQl.parse("temperature{device=\"d\"}[1h30m]")).isEqualTo(range);
        assertThat(PromQl.parse("avg_over_time(temperature{device=\"d\"}[1h30m])")).isEqualTo(new Expr.Call("avg_over_time", range));
        assertThat(PromQl.parse("sum by (device) (rate(requests[5m]))")).isEqualTo(new Expr.Aggregation("sum", false,
                List.of("device"), new Expr.Call("rate", new Expr.MatrixSelector(new Expr.VectorSelector(List.of(name("requests"))),
                300_000))));
        assertThat(PromQl.parse("max(temperature) without (site, rack,)")).isEqualTo(new Expr.Aggregation("max", true,
                List.of("site", "rack"), new Expr.VectorSelector(List.of(name("temperature")))));
        assertThat(PromQl.parse("count(up)")).isEqualTo(new Expr.Aggregation("count", false, List.of(),
                new Expr.VectorSelector(List.of(name("up")))));
        assertThat(PromQl.parse("1e3")).isEqualTo(new Expr.NumberLiteral(1000));
        assertThat(PromQl.parse("sum{a=\"b\"}")).as("a metric named like an aggregation")
                .isEqualTo(new Expr.VectorSelector(List.of(name("sum"), new Matcher("a", MatchOp.EQUAL, "b"))));
    }

    @Test
    void whatIsOutsideTheSubsetIsRefusedWithItsPosition() {
        assertRefused("", "parse error at char 1: no expression");
        assertRefused("a + b", "parse error at char 3: unexpected '+ b': binary operators");
        assertRefused("a offset 5m", "parse error at char 3: unexpected 'offset 5m'");
        assertRefused("histogram_quantile(0.9, a)", "function 'histogram_quantile' is not in the subset");
        assertRefused("rate(a)", "rate() takes a range selector such as metric[5m]");
        assertRefused("a[5m:1m]", "subqueries are not in the subset");
        assertRefused("a[5x]", "'5x' is not a duration");
        assertRefused("a{b}", "expected =, !=, =~ or !~ after label 'b'");
        assertRefused("a{b=c}", "expected a quoted string");
        assertRefused("a{b=\"c}", "the string has no closing \"");
        assertRefused("a{b=~\"(\"}", "the regular expression ( is not valid");
        assertRefused("{a!=\"x\"}", "a selector needs a metric name or a matcher that does not match the empty string");
        assertRefused("sum by (a) (b) by (c)", "by/without is given twice");
        assertRefused("sum(a", "expected ')' at the end");
    }

    /** Seeded random trees in the subset: each written as PromQL parses back to itself. */
    @Test
    void randomExpressionsSurviveAWriteAndAParse() throws Exception {
        long seed = Long.getLong("tspipe.seed", System.nanoTime());
        Random random = new Random(seed);
        for (int i = 0; i < 2_000; i++) {
            Expr expr = randomExpr(random, 3);
            assertThat(PromQl.parse(expr.toString())).as("seed %d (rerun with -Dtspipe.seed=%d): %s", seed, seed, expr)
                    .isEqualTo(expr);
        }
    }

    private static void assertRefused(String query, String message) {
        assertThatThrownBy(() -> PromQl.parse(query)).isInstanceOf(PromQlException.class).hasMessageContaining(message);
    }

    private static Expr randomExpr(Random random, int depth) {
        int kind = depth == 0 ? random.nextInt(2) : random.nextInt(4);
        return switch (kind) {
            case 0 -> randomSelector(random);
            case 1 -> new Expr.Call(pick(random, List.copyOf(PromQl.RANGE_FUNCTIONS)),
                    new Expr.MatrixSelector(randomSelector(random), 1 + random.nextInt(10_000_000)));
            case 2 -> new Expr.Aggregation(pick(random, List.copyOf(PromQl.AGGREGATIONS)), random.nextBoolean(),
                    labels(random), randomExpr(random, depth - 1));
            default -> new Expr.NumberLiteral(random.nextGaussian() * 1e6);
        };
    }

    private static Expr.VectorSelector randomSelector(Random random) {
        List<Matcher> matchers = new ArrayList<>();
        matchers.add(name("m_" + random.nextInt(100)));
        for (int i = 0; i < random.nextInt(4); i++) {
            MatchOp op = MatchOp.values()[random.nextInt(4)];
            String value = op == MatchOp.REGEX || op == MatchOp.NOT_REGEX ? "v.*" + random.nextInt(9)
                    : List.of("plain", "with \"quotes\"", "back\\slash", "new\nline", "é").get(random.nextInt(5));
            matchers.add(new Matcher("l" + random.nextInt(5), op, value));
        }
        return new Expr.VectorSelector(matchers);
    }

    private static List<String> labels(Random random) {
        List<String> labels = new ArrayList<>();
        for (int i = 0; i < random.nextInt(3); i++) {
            labels.add("l" + random.nextInt(5));
        }
        return labels;
    }

    private static String pick(Random random, List<String> values) {
        return values.get(random.nextInt(values.size()));
    }
}
