package dev.tspipe.query.promql;

import dev.tspipe.query.promql.Expr.MatchOp;
import dev.tspipe.query.promql.Expr.Matcher;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.Test;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
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
        assertRefused("a + b", "parse error at char 3: '+' with a vector on either side is not in the subset");
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

    @Test
    void operatorsBetweenNumbersAreComputedAsTheQueryIsParsed() throws Exception {
        assertThat(PromQl.parse("1+1")).as("Grafana's Save & test").isEqualTo(new Expr.NumberLiteral(2));
        assertThat(PromQl.parse("2+3*4")).isEqualTo(new Expr.NumberLiteral(14));
        assertThat(PromQl.parse("2*3+4")).isEqualTo(new Expr.NumberLiteral(10));
        assertThat(PromQl.parse("2^3^2")).as("^ binds to the right").isEqualTo(new Expr.NumberLiteral(512));
        assertThat(PromQl.parse("2*3^2")).isEqualTo(new Expr.NumberLiteral(18));
        assertThat(PromQl.parse("(1+2)*3")).isEqualTo(new Expr.NumberLiteral(9));
        assertThat(PromQl.parse("10 % 3")).isEqualTo(new Expr.NumberLiteral(1));
        assertThat(PromQl.parse("1 - -1")).isEqualTo(new Expr.NumberLiteral(2));
        assertThat(PromQl.parse("1-1")).isEqualTo(new Expr.NumberLiteral(0));
        assertThat(PromQl.parse("8/2/2")).as("/ binds to the left").isEqualTo(new Expr.NumberLiteral(2));
        assertThat(PromQl.parse("10-4-3")).as("- binds to the left").isEqualTo(new Expr.NumberLiteral(3));
        assertThat(PromQl.parse("2^-1")).isEqualTo(new Expr.NumberLiteral(0.5));
        assertThat(PromQl.parse("1e-1+1")).isEqualTo(new Expr.NumberLiteral(1.1));
        assertThat(PromQl.parse(" ( ( 7 ) ) ")).isEqualTo(new Expr.NumberLiteral(7));
    }

    /**
     * A unary minus as Prometheus folds it: looser than {@code ^} (prometheus/prometheus#6579, so {@code -2^2} is
     * {@code -(2^2)}), tighter than the rest, repeatable and before parentheses. The last three are Prometheus' own cases
     * (promql/promqltest/testdata/operators.test).
     */
    @Test
    void aUnaryMinusAsPrometheusFoldsIt() {
        SoftAssertions.assertSoftly(softly -> {
            softly.assertThat(folded("-2^2")).as("-2^2").isEqualTo(-4.0);
            softly.assertThat(folded("-(1+2)")).as("-(1+2)").isEqualTo(-3.0);
            softly.assertThat(folded("- - - 1")).as("- - - 1").isEqualTo(-1.0);
            softly.assertThat(folded("-2^---1*3")).as("-2^---1*3").isEqualTo(-1.5);
            softly.assertThat(folded("2/-2^---1*3+2")).as("2/-2^---1*3+2").isEqualTo(-10.0);
        });
    }

    @Test
    void operatorsWithASelectorOnEitherSideAreRefused() {
        assertRefused("up + 1", "parse error at char 4: '+' with a vector on either side is not in the subset");
        assertRefused("1 + up", "parse error at char 3: '+' with a vector on either side is not in the subset");
        assertRefused("up * up", "parse error at char 4: '*' with a vector on either side is not in the subset");
        assertRefused("sum(up) / 2", "'/' with a vector on either side is not in the subset");
        assertRefused("rate(a[5m]) ^ 2", "'^' with a vector on either side is not in the subset");
        assertRefused("2 * (up)", "'*' with a vector on either side is not in the subset");
    }

    @Test
    void aParenthesizedSelectorIsTheSelector() throws Exception {
        assertThat(PromQl.parse("(up)")).isEqualTo(new Expr.VectorSelector(List.of(name("up"))));
        assertThat(PromQl.parse("( (up{device=\"d\"}) )")).isEqualTo(new Expr.VectorSelector(List.of(name("up"),
                new Matcher("device", MatchOp.EQUAL, "d"))));
    }

    @Test
    void durations() throws Exception {
        assertThat(PromQl.duration("1h30m")).isEqualTo(5_400_000);
        assertThat(PromQl.duration("250ms")).isEqualTo(250);
        assertThat(PromQl.duration("5m")).isEqualTo(300_000);
        assertThat(PromQl.duration("1d")).isEqualTo(86_400_000);
        assertThat(PromQl.duration("1m30s500ms")).isEqualTo(90_500);
        for (String notADuration : List.of("5x", "", "5m ", "m", "5", " 5m", "1.5h", "-5m")) {
            assertThatThrownBy(() -> PromQl.duration(notADuration)).as("'%s'", notADuration)
                    .isInstanceOf(PromQlException.class);
        }
    }

    /** Seeded: random sums, differences and products of small integers fold to what a shunting-yard evaluation gives. */
    @Test
    void randomArithmeticFoldsToItsValue() throws Exception {
        long seed = Long.getLong("tspipe.seed", System.nanoTime());
        Random random = new Random(seed);
        int checked = 0;
        for (int i = 0; i < 2_000; i++) {
            String query = randomArithmetic(random, 3);
            long expected;
            try {
                expected = evaluate(query);
            } catch (ArithmeticException notExactInADouble) {
                continue;
            }
            Expr parsed = PromQl.parse(query);
            assertThat(parsed).as("seed %d (rerun with -Dtspipe.seed=%d): %s", seed, seed, query)
                    .isInstanceOf(Expr.NumberLiteral.class);
            // + 0.0: 0 * -3 folds to -0.0, which is the integer 0
            assertThat(((Expr.NumberLiteral) parsed).value() + 0.0).as("seed %d (rerun with -Dtspipe.seed=%d): %s", seed,
                    seed, query).isEqualTo((double) expected);
            checked++;
        }
        assertThat(checked).as("seed %d: expressions small enough to check", seed).isGreaterThan(1_000);
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

    /** {@code operand {op operand}} with op one of + - * and an operand a digit, a negative digit or a parenthesized one. */
    private static String randomArithmetic(Random random, int depth) {
        StringBuilder text = new StringBuilder(randomOperand(random, depth));
        for (int i = random.nextInt(4); i > 0; i--) {
            text.append(space(random)).append("+-*".charAt(random.nextInt(3))).append(space(random))
                    .append(randomOperand(random, depth));
        }
        return text.toString();
    }

    private static String randomOperand(Random random, int depth) {
        if (depth > 0 && random.nextInt(3) == 0) {
            return "(" + space(random) + randomArithmetic(random, depth - 1) + space(random) + ")";
        }
        int digit = random.nextInt(10);
        return random.nextInt(5) == 0 ? "-" + digit : Integer.toString(digit);
    }

    private static String space(Random random) {
        return random.nextBoolean() ? "" : " ";
    }

    /**
     * The value of an expression of {@link #randomArithmetic} by Dijkstra's shunting-yard (* before + and -, all binding
     * to the left); an {@link ArithmeticException} when a step leaves the integers a double holds exactly.
     */
    private static long evaluate(String expression) {
        Deque<Long> values = new ArrayDeque<>();
        Deque<Character> operators = new ArrayDeque<>();
        boolean operandNext = true;
        int i = 0;
        while (i < expression.length()) {
            char c = expression.charAt(i);
            if (c == ' ') {
                i++;
            } else if (operandNext && (Character.isDigit(c) || c == '-')) {
                int start = i++;
                while (i < expression.length() && Character.isDigit(expression.charAt(i))) {
                    i++;
                }
                values.push(Long.parseLong(expression.substring(start, i)));
                operandNext = false;
            } else if (c == '(') {
                operators.push(c);
                i++;
            } else if (c == ')') {
                while (operators.peek() != '(') {
                    apply(operators.pop(), values);
                }
                operators.pop();
                i++;
            } else {
                while (!operators.isEmpty() && operators.peek() != '(' && precedence(operators.peek()) >= precedence(c)) {
                    apply(operators.pop(), values);
                }
                operators.push(c);
                operandNext = true;
                i++;
            }
        }
        while (!operators.isEmpty()) {
            apply(operators.pop(), values);
        }
        return values.pop();
    }

    private static int precedence(char operator) {
        return operator == '*' ? 2 : 1;
    }

    private static void apply(char operator, Deque<Long> values) {
        long right = values.pop();
        long left = values.pop();
        long result = switch (operator) {
            case '+' -> Math.addExact(left, right);
            case '-' -> Math.subtractExact(left, right);
            default -> Math.multiplyExact(left, right);
        };
        if (Math.abs(result) > 1L << 53) {
            throw new ArithmeticException(result + " is not exact in a double");
        }
        values.push(result);
    }

    /** The number {@code query} folds to, or the message of the exception it is refused with. */
    private static Object folded(String query) {
        try {
            Expr expr = PromQl.parse(query);
            return expr instanceof Expr.NumberLiteral number ? (Object) number.value() : expr;
        } catch (PromQlException e) {
            return e.getMessage();
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

    @Test
    void nestingAndDurationsAreBoundedWithAnError() throws Exception {
        String deep = "(".repeat(5_000) + "1" + ")".repeat(5_000);
        assertThatThrownBy(() -> PromQl.parse(deep)).isInstanceOf(PromQlException.class)
                .hasMessageContaining("nests deeper than " + PromQl.MAX_DEPTH);
        assertThatThrownBy(() -> PromQl.parse("-".repeat(5_000) + "1")).isInstanceOf(PromQlException.class)
                .hasMessageContaining("nests deeper");
        assertThatThrownBy(() -> PromQl.parse("sum(".repeat(3_000) + "up" + ")".repeat(3_000)))
                .isInstanceOf(PromQlException.class).hasMessageContaining("nests deeper");
        assertThatThrownBy(() -> PromQl.parse("rate(up[10001y])")).isInstanceOf(PromQlException.class)
                .hasMessageContaining("longer than 10,000 years");
        assertThat(PromQl.parse("(".repeat(150) + "1" + ")".repeat(150))).isEqualTo(new Expr.NumberLiteral(1));
    }
}
