package dev.tspipe.query.promql;

import java.util.List;

/**
 * The PromQL subset tspipe answers (docs/query-api.md, "Prometheus API"), as a syntax tree. {@link #toString}
 * writes an expression back as PromQL that parses to the same tree.
 */
public sealed interface Expr {

    /** How a label is matched: {@code =}, {@code !=}, {@code =~}, {@code !~}. */
    enum MatchOp {
        EQUAL("="), NOT_EQUAL("!="), REGEX("=~"), NOT_REGEX("!~");

        private final String symbol;

        MatchOp(String symbol) {
            this.symbol = symbol;
        }

        public String symbol() {
            return symbol;
        }
    }

    /** {@code label op "value"}. */
    record Matcher(String label, MatchOp op, String value) {
        @Override
        public String toString() {
            return label + op.symbol() + quote(value);
        }
    }

    /** {@code metric{matchers}}: the metric name is the matcher on {@code __name__}. */
    record VectorSelector(List<Matcher> matchers) implements Expr {
        @Override
        public String toString() {
            return "{" + String.join(", ", matchers.stream().map(Matcher::toString).toList()) + "}";
        }
    }

    /** {@code selector[range]}. */
    record MatrixSelector(VectorSelector selector, long rangeMillis) implements Expr {
        @Override
        public String toString() {
            return selector + "[" + rangeMillis + "ms]";
        }
    }

    /** A function of a range: {@code avg_over_time(m[5m])}, {@code rate(m[1m])}, ... */
    record Call(String function, MatrixSelector argument) implements Expr {
        @Override
        public String toString() {
            return function + "(" + argument + ")";
        }
    }

    /** {@code sum by (labels) (expr)}; {@code without} when {@code without} is true. */
    record Aggregation(String operator, boolean without, List<String> labels, Expr expr) implements Expr {
        @Override
        public String toString() {
            return operator + " " + (without ? "without" : "by") + " (" + String.join(", ", labels) + ") (" + expr + ")";
        }
    }

    /** A number. */
    record NumberLiteral(double value) implements Expr {
        @Override
        public String toString() {
            return Double.toString(value);
        }
    }

    private static String quote(String value) {
        return "\"" + value.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n") + "\"";
    }
}
