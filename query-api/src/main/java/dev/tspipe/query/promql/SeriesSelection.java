package dev.tspipe.query.promql;

import dev.tspipe.ingest.SeriesName;
import dev.tspipe.model.keys.SeriesId;
import dev.tspipe.query.error.ApiException;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.BiPredicate;
import java.util.regex.Pattern;

/**
 * Which series a PromQL selector picks, by the labels of {@link #labels(SeriesId, DeviceLabels)}: the series' own and
 * its device's metadata; a label a series has not got is, as in PromQL, the empty string ({@code job=""} matches every
 * series, {@code job="x"} none). Regular expressions are anchored at both ends, as in Prometheus.
 */
public final class SeriesSelection {

    public static final String NAME = "__name__";
    public static final String DEVICE = "device";
    public static final String TENANT = "tenant";

    private final List<Expr.Matcher> matchers;
    private final List<BiPredicate<String, QueryBudget>> tests;
    private final String tenantOnly;
    private final DeviceLabels metadata;

    /** A selection by the series' own labels only (no device metadata). */
    public SeriesSelection(List<Expr.Matcher> matchers, String tenantOnly) {
        this(matchers, tenantOnly, DeviceLabels.NONE);
    }

    /**
     * @param matchers   the selector's matchers
     * @param tenantOnly the one tenant the caller may read (a token bound to a tenant, or {@code tenant=}), or null for any
     * @param metadata   the labels of each device's metadata
     */
    public SeriesSelection(List<Expr.Matcher> matchers, String tenantOnly, DeviceLabels metadata) {
        this.matchers = List.copyOf(matchers);
        this.tests = matchers.stream().map(SeriesSelection::test).toList();
        this.tenantOnly = tenantOnly;
        this.metadata = metadata;
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

    /**
     * The labels of a series with its device's metadata: its own ({@link #labels(SeriesId)}), then each label of the
     * metadata whose name it has not got and that is a Prometheus label name ({@code [a-zA-Z_][a-zA-Z0-9_]*}, not
     * starting with {@code __}): the series' own labels win on a clash.
     */
    public static Map<String, String> labels(SeriesId series, DeviceLabels metadata) {
        Map<String, String> labels = labels(series);
        metadata.of(series.tenant(), series.device()).forEach((name, value) -> {
            if (LABEL_NAME.matcher(name).matches() && !name.startsWith("__")) {
                labels.putIfAbsent(name, value);
            }
        });
        return labels;
    }

    private static final Pattern LABEL_NAME = Pattern.compile("[a-zA-Z_][a-zA-Z0-9_]*");

    /** The labels of a series as this selection sees them: with its device's metadata. */
    public Map<String, String> labelsOf(SeriesId series) {
        return labels(series, metadata);
    }

    /** Whether the selection picks {@code series}; its regular expressions spend {@code budget}'s steps. */
    public boolean matches(SeriesId series, QueryBudget budget) {
        if (tenantOnly != null && !tenantOnly.equals(series.tenant())) {
            return false;
        }
        if (matchers.isEmpty()) {
            return true;
        }
        Map<String, String> own = labels(series);
        // The device's metadata is looked up only when a matcher names a label the series has not got itself.
        Map<String, String> labels = matchers.stream().allMatch(m -> own.containsKey(m.label())) ? own : labels(series, metadata);
        for (int i = 0; i < matchers.size(); i++) {
            if (!tests.get(i).test(labels.getOrDefault(matchers.get(i).label(), ""), budget)) {
                return false;
            }
        }
        return true;
    }

    /** The test of one matcher on a label's value ("" when the series has not got the label). */
    private static BiPredicate<String, QueryBudget> test(Expr.Matcher matcher) {
        String value = matcher.value();
        return switch (matcher.op()) {
            case EQUAL -> (label, budget) -> value.equals(label);
            case NOT_EQUAL -> (label, budget) -> !value.equals(label);
            case REGEX -> regex(value);
            case NOT_REGEX -> regex(value).negate();
        };
    }

    /** The most characters one match of a regular expression against one value may read. */
    static final int REGEX_STEPS = 1_000_000;

    /**
     * A whole-value match that gives up with a 422 after {@value #REGEX_STEPS} reads of the value, or once the request
     * has spent its {@link QueryBudget}: Java's regular expressions backtrack, and some take exponential time
     * ({@code (.*a){20}} against 28 a and a !: 5 seconds); Prometheus' RE2 cannot, and a client of the API must not be
     * able to hold a request thread for minutes, with one value or with many.
     */
    private static BiPredicate<String, QueryBudget> regex(String expression) {
        Pattern pattern = Pattern.compile(expression, Pattern.DOTALL);
        return (value, budget) -> {
            int allowed = (int) Math.min(REGEX_STEPS, budget.regexSteps());
            int[] left = {allowed};
            try {
                return pattern.matcher(new Bounded(value, left, expression, allowed < REGEX_STEPS)).matches();
            } finally {
                budget.spendRegexSteps(allowed - Math.max(0, left[0]), expression);
            }
        };
    }

    /** A value whose reads count down {@code budget}; past it, a 422 that names the request's budget or the value's. */
    private record Bounded(String value, int[] budget, String expression, boolean requestBound) implements CharSequence {
        @Override
        public char charAt(int index) {
            if (--budget[0] < 0) {
                throw requestBound ? QueryBudget.regexBudgetSpent(expression) : ApiException.unprocessable(
                        "the regular expression \"" + expression + "\" takes too long on a label value (it backtracks); "
                        + "write it without nested repetition");
            }
            return value.charAt(index);
        }

        @Override
        public int length() {
            return value.length();
        }

        @Override
        public CharSequence subSequence(int start, int end) {
            return new Bounded(value.substring(start, end), budget, expression, requestBound);
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
