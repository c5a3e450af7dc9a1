package dev.tspipe.query.prometheus;

import dev.tspipe.ingest.SeriesName;
import dev.tspipe.processor.keys.SeriesId;
import dev.tspipe.query.ApiException;
import dev.tspipe.query.promql.Expr;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Predicate;
import java.util.regex.Pattern;

/**
 * Which series a PromQL selector picks, by the labels of {@link #labels}; a label a series has not got is, as in
 * PromQL, the empty string ({@code job=""} matches every series, {@code job="x"} none). Regular expressions are
 * anchored at both ends, as in Prometheus.
 */
public final class SeriesSelection {

    public static final String NAME = "__name__";
    public static final String DEVICE = "device";
    public static final String TENANT = "tenant";

    private final List<Expr.Matcher> matchers;
    private final List<Predicate<String>> tests;
    private final String tenantOnly;

    /**
     * @param matchers   the selector's matchers
     * @param tenantOnly the one tenant the caller may read (a token bound to a tenant, or {@code tenant=}), or null for any
     */
    public SeriesSelection(List<Expr.Matcher> matchers, String tenantOnly) {
        this.matchers = List.copyOf(matchers);
        this.tests = matchers.stream().map(SeriesSelection::test).toList();
        this.tenantOnly = tenantOnly;
    }

    public List<Expr.Matcher> matchers() {
        return matchers;
    }

    /**
     * The labels of a series: {@code __name__}, the labels of its metric when it has them ({@code up{job="node"}},
     * as {@link SeriesName} writes them), {@code device}, and {@code tenant} when it has one. A metric's label that
     * is named as one of those is {@code exported_<name>}, as Prometheus renames a scraped label that clashes.
     */
    public static Map<String, String> labels(SeriesId series) {
        SeriesName.Parsed metric = SeriesName.parse(series.metric());
        Map<String, String> labels = new TreeMap<>();
        metric.labels().forEach((label, value) -> labels.put(
                label.equals(NAME) || label.equals(DEVICE) || label.equals(TENANT) ? "exported_" + label : label, value));
        labels.put(NAME, metric.name());
        labels.put(DEVICE, series.device());
        if (series.tenant() != null) {
            labels.put(TENANT, series.tenant());
        }
        return labels;
    }

    public boolean matches(SeriesId series) {
        if (tenantOnly != null && !tenantOnly.equals(series.tenant())) {
            return false;
        }
        if (matchers.isEmpty()) {
            return true;
        }
        Map<String, String> labels = labels(series);
        for (int i = 0; i < matchers.size(); i++) {
            if (!tests.get(i).test(labels.getOrDefault(matchers.get(i).label(), ""))) {
                return false;
            }
        }
        return true;
    }

    /** The test of one matcher on a label's value ("" when the series has not got the label). */
    private static Predicate<String> test(Expr.Matcher matcher) {
        String value = matcher.value();
        return switch (matcher.op()) {
            case EQUAL -> value::equals;
            case NOT_EQUAL -> Predicate.not(value::equals);
            case REGEX -> regex(value);
            case NOT_REGEX -> regex(value).negate();
        };
    }

    /** The most characters one match of a regular expression against one value may read. */
    static final int REGEX_STEPS = 1_000_000;

    /**
     * A whole-value match that gives up with a 422 after {@value #REGEX_STEPS} reads of the value: Java's regular
     * expressions backtrack, and some take exponential time ({@code (.*a){20}} against 28 a and a !: 5 seconds); Prometheus' RE2
     * cannot, and a client of the API must not be able to hold a request thread for minutes.
     */
    private static Predicate<String> regex(String expression) {
        Pattern pattern = Pattern.compile(expression, Pattern.DOTALL);
        return value -> pattern.matcher(new Bounded(value, new int[] {REGEX_STEPS}, expression)).matches();
    }

    private record Bounded(String value, int[] budget, String expression) implements CharSequence {
        @Override
        public char charAt(int index) {
            if (--budget[0] < 0) {
                throw ApiException.unprocessable("the regular expression \"" + expression + "\" takes too long on a label "
                        + "value (it backtracks); write it without nested repetition");
            }
            return value.charAt(index);
        }

        @Override
        public int length() {
            return value.length();
        }

        @Override
        public CharSequence subSequence(int start, int end) {
            return new Bounded(value.substring(start, end), budget, expression);
        }

        @Override
        public String toString() {
            return value;
        }
    }

    /** The device when an {@code =} matcher names it: the series are then all in that device's partition. */
    public Optional<String> device() {
        return equalTo(DEVICE);
    }

    /** The tenant when the caller may read one only, or an {@code =} matcher names it. */
    public Optional<String> tenant() {
        return tenantOnly != null ? Optional.of(tenantOnly) : equalTo(TENANT);
    }

    private Optional<String> equalTo(String label) {
        return matchers.stream().filter(m -> m.label().equals(label) && m.op() == Expr.MatchOp.EQUAL && !m.value().isEmpty())
                .map(Expr.Matcher::value).findFirst();
    }
}
