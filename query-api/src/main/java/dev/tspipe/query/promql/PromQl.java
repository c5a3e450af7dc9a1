package dev.tspipe.query.promql;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * A recursive-descent parser of the PromQL subset tspipe answers:
 *
 * <pre>
 * expr        = product {("+" | "-") product}              operators between numbers only
 * product     = unary {("*" | "/" | "%") unary}
 * unary       = ("+" | "-") unary | term ["^" unary]
 * term        = aggregation | call | selector | number | "(" expr ")"
 * aggregation = op [grouping] "(" expr ")" [grouping]        op: sum avg min max count
 * grouping    = ("by" | "without") "(" [label {"," label} [","]] ")"
 * call        = function "(" selector "[" duration "]" ")"  function: avg_over_time min_over_time max_over_time
 *                                                            sum_over_time count_over_time last_over_time rate increase
 * selector    = metric ["{" [matcher {"," matcher} [","]] "}"] | "{" matcher {"," matcher} [","] "}"
 * matcher     = label ("=" | "!=" | "=~" | "!~") string
 * duration    = (digits unit)+                               unit: ms s m h d w y
 * </pre>
 *
 * Strings take double or single quotes with Go's escapes ({@code \\}, {@code \"}, {@code \'}, {@code \n},
 * {@code \t}) or back quotes without escapes. Anything else (binary operators, offsets, subqueries, other
 * functions, operators between vectors) is refused with the position and what the subset takes. Operators
 * between numbers are computed as the query is parsed ({@code 1+1}, which Grafana's "Save &amp; test" sends).
 */
public final class PromQl extends PromQlScanner {

    /** The aggregation operators of the subset, by name, in the order of {@link AggregationOperator}. */
    static final Set<String> AGGREGATIONS = names(Arrays.stream(AggregationOperator.values())
            .map(AggregationOperator::promQlName));
    /** The functions of a range of the subset, by name, in the order of {@link RangeFunction}. */
    static final Set<String> RANGE_FUNCTIONS = names(Arrays.stream(RangeFunction.values())
            .filter(function -> function != RangeFunction.SELECTOR).map(RangeFunction::promQlName));

    /** The deepest nesting taken: far beyond any real query, far below what overflows a thread's stack. */
    static final int MAX_DEPTH = 200;

    private int depth;

    private static Set<String> names(java.util.stream.Stream<String> names) {
        java.util.LinkedHashSet<String> set = names.collect(java.util.stream.Collectors.toCollection(
                java.util.LinkedHashSet::new));
        return java.util.Collections.unmodifiableSet(set);
    }

    private PromQl(String query) {
        super(query);
    }

    /** The tree of {@code query}; a {@link PromQlException} with the position when it is outside the subset. */
    public static Expr parse(String query) throws PromQlException {
        PromQl parser = new PromQl(query);
        parser.skipSpace();
        if (parser.atEnd()) {
            throw new PromQlException(0, "no expression");
        }
        Expr expr = parser.expr();
        parser.skipSpace();
        if (!parser.atEnd()) {
            throw parser.error("unexpected '" + parser.rest() + "': offset, @ and operators between vectors are not in "
                    + "the subset tspipe answers (docs/query-api.md)");
        }
        return expr;
    }

    /**
     * Operators by precedence as Prometheus has them: {@code + -}, then {@code * / %}, then a unary sign, then
     * {@code ^} (so {@code -2^2} is -4), which binds to the right and takes a signed operand ({@code 2^-1}).
     */
    private Expr expr() throws PromQlException {
        Expr left = product();
        while (true) {
            skipSpace();
            if (!peekIs('+') && !peekIs('-')) {
                return left;
            }
            int at = pos;
            char op = query.charAt(pos++);
            left = fold(at, op, left, product());
        }
    }

    private Expr product() throws PromQlException {
        Expr left = unary();
        while (true) {
            skipSpace();
            if (!peekIs('*') && !peekIs('/') && !peekIs('%')) {
                return left;
            }
            int at = pos;
            char op = query.charAt(pos++);
            left = fold(at, op, left, unary());
        }
    }

    private Expr unary() throws PromQlException {
        // Every nesting (parentheses, calls, aggregations, signs, powers) passes here: bound the recursion.
        if (++depth > MAX_DEPTH) {
            throw error("the query nests deeper than " + MAX_DEPTH + " levels");
        }
        try {
            return signed();
        } finally {
            depth--;
        }
    }

    private Expr signed() throws PromQlException {
        skipSpace();
        if (peekIs('-') || peekIs('+')) {
            int at = pos;
            char sign = query.charAt(pos++);
            Expr operand = unary();
            if (!(operand instanceof Expr.NumberLiteral number)) {
                throw new PromQlException(at, "a sign before a vector is not in the subset tspipe answers; only before "
                        + "numbers (docs/query-api.md)");
            }
            return sign == '-' ? new Expr.NumberLiteral(-number.value()) : number;
        }
        Expr base = term();
        skipSpace();
        if (peekIs('^')) {
            int at = pos++;
            return fold(at, '^', base, unary());
        }
        return base;
    }

    /** An operator between two numbers, computed; between anything else, refused. */
    private static Expr fold(int at, char op, Expr left, Expr right) throws PromQlException {
        if (!(left instanceof Expr.NumberLiteral a) || !(right instanceof Expr.NumberLiteral b)) {
            throw new PromQlException(at, "'" + op + "' with a vector on either side is not in the subset tspipe "
                    + "answers; only between numbers (docs/query-api.md)");
        }
        return new Expr.NumberLiteral(switch (op) {
            case '+' -> a.value() + b.value();
            case '-' -> a.value() - b.value();
            case '*' -> a.value() * b.value();
            case '/' -> a.value() / b.value();
            case '%' -> a.value() % b.value();
            default -> Math.pow(a.value(), b.value());
        });
    }

    private Expr term() throws PromQlException {
        skipSpace();
        if (atEnd()) {
            throw error("an expression is missing");
        }
        char c = peek();
        if (c == '{') {
            return selector(null);
        }
        if (c == '(') {
            pos++;
            Expr inner = expr();
            skipSpace();
            expect(')');
            return inner;
        }
        if (Character.isDigit(c) || c == '.') {
            return number();
        }
        int start = pos;
        String name = identifier(true);
        skipSpace();
        if (AGGREGATIONS.contains(name) && (peekIs('(') || peekWord("by") || peekWord("without"))) {
            return aggregation(name);
        }
        if (peekIs('(')) {
            if (!RANGE_FUNCTIONS.contains(name)) {
                throw new PromQlException(start, "function '" + name + "' is not in the subset; it takes "
                        + String.join(", ", RANGE_FUNCTIONS.stream().sorted().toList()) + " and the aggregations "
                        + String.join(", ", AGGREGATIONS.stream().sorted().toList()));
            }
            pos++;
            skipSpace();
            Expr argument = expr();
            if (!(argument instanceof Expr.MatrixSelector range)) {
                throw new PromQlException(start, name + "() takes a range selector such as metric[5m]");
            }
            skipSpace();
            expect(')');
            return new Expr.Call(name, range);
        }
        return selector(name);
    }

    private Expr aggregation(String operator) throws PromQlException {
        Boolean without = null;
        List<String> labels = List.of();
        if (peekWord("by") || peekWord("without")) {
            without = identifier(false).equals("without");
            labels = labelList();
            skipSpace();
        }
        expect('(');
        Expr inner = expr();
        skipSpace();
        expect(')');
        skipSpace();
        if (peekWord("by") || peekWord("without")) {
            if (without != null) {
                throw error("by/without is given twice");
            }
            without = identifier(false).equals("without");
            labels = labelList();
        }
        return new Expr.Aggregation(operator, without != null && without, labels, inner);
    }

    private List<String> labelList() throws PromQlException {
        skipSpace();
        expect('(');
        return List.copyOf(commaList(')', () -> identifier(false), "in the label list"));
    }

    /** One item of a comma list. */
    @FunctionalInterface
    private interface Item<T> {
        T parse() throws PromQlException;
    }

    /**
     * Items separated by commas (a trailing one allowed) up to {@code close}, after the opening bracket; the parser
     * then stands after {@code close}.
     */
    private <T> List<T> commaList(char close, Item<T> item, String where) throws PromQlException {
        List<T> items = new ArrayList<>();
        skipSpace();
        while (!peekIs(close)) {
            items.add(item.parse());
            skipSpace();
            if (peekIs(',')) {
                pos++;
                skipSpace();
            } else if (!peekIs(close)) {
                throw error("expected ',' or '" + close + "' " + where);
            }
        }
        pos++;
        return items;
    }

    private Expr selector(String metric) throws PromQlException {
        List<Expr.Matcher> matchers = new ArrayList<>();
        if (metric != null) {
            matchers.add(new Expr.Matcher("__name__", Expr.MatchOp.EQUAL, metric));
        }
        skipSpace();
        if (peekIs('{')) {
            pos++;
            matchers.addAll(commaList('}', this::matcher, "after a label matcher"));
            if (metric == null && matchers.stream().allMatch(m -> m.op() != Expr.MatchOp.EQUAL && m.op() != Expr.MatchOp.REGEX
                    || m.value().isEmpty())) {
                throw error("a selector needs a metric name or a matcher that does not match the empty string");
            }
        }
        Expr.VectorSelector vector = new Expr.VectorSelector(List.copyOf(matchers));
        skipSpace();
        if (peekIs('[')) {
            pos++;
            skipSpace();
            long range = duration();
            skipSpace();
            if (peekIs(':')) {
                throw error("subqueries are not in the subset");
            }
            expect(']');
            return new Expr.MatrixSelector(vector, range);
        }
        return vector;
    }

    private Expr.Matcher matcher() throws PromQlException {
        String label = identifier(false);
        skipSpace();
        Expr.MatchOp op;
        if (query.startsWith("=~", pos)) {
            op = Expr.MatchOp.REGEX;
        } else if (query.startsWith("!~", pos)) {
            op = Expr.MatchOp.NOT_REGEX;
        } else if (query.startsWith("!=", pos)) {
            op = Expr.MatchOp.NOT_EQUAL;
        } else if (peekIs('=')) {
            op = Expr.MatchOp.EQUAL;
        } else {
            throw error("expected =, !=, =~ or !~ after label '" + label + "'");
        }
        pos += op.symbol().length();
        skipSpace();
        int start = pos;
        String value = string();
        if (op == Expr.MatchOp.REGEX || op == Expr.MatchOp.NOT_REGEX) {
            try {
                Pattern.compile(value);
            } catch (PatternSyntaxException e) {
                throw new PromQlException(start, "the regular expression " + value + " is not valid: " + e.getDescription());
            }
        }
        return new Expr.Matcher(label, op, value);
    }

    /** A duration such as {@code 5m}, {@code 1h30m}, {@code 250ms} in milliseconds; a {@link PromQlException} otherwise. */
    public static long duration(String text) throws PromQlException {
        PromQl parser = new PromQl(text);
        long millis = parser.duration();
        if (!parser.atEnd()) {
            throw parser.error("'" + text + "' is not a duration such as 5m, 1h30m or 30s");
        }
        return millis;
    }

    private Expr number() throws PromQlException {
        int start = pos;
        while (!atEnd() && (Character.isDigit(peek()) || peek() == '.' || peek() == 'e' || peek() == 'E'
                || (peek() == '-' || peek() == '+') && (query.charAt(pos - 1) == 'e' || query.charAt(pos - 1) == 'E'))) {
            pos++;
        }
        try {
            return new Expr.NumberLiteral(Double.parseDouble(query.substring(start, pos)));
        } catch (NumberFormatException e) {
            throw new PromQlException(start, "'" + query.substring(start, pos) + "' is not a number");
        }
    }


}
