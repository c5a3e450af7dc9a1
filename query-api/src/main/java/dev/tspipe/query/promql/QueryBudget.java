package dev.tspipe.query.promql;

import dev.tspipe.query.error.ApiException;

import java.time.Clock;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What one Prometheus API request may spend: steps of its regular expressions (a read of a label value's character
 * by the matcher) and time. The request's budget is shared out among the partitions it reads, each part checked
 * where the work is done, here or at the instance that has the partition (which is sent the part as
 * {@code regex_steps} and {@code timeout_ms}, see {@link #forwarded}).
 */
public final class QueryBudget {

    /** The most regular-expression steps one request may take, over all its partitions and {@code match[]}. */
    public static final long MAX_REGEX_STEPS = 100_000_000;
    /** The longest one request may compute, in milliseconds. */
    public static final long MAX_MILLIS = 4_000;
    /** The most {@code match[]} one request may give. */
    public static final int MAX_MATCHES = 20;

    private final Clock clock;
    private final AtomicLong regexSteps;
    private final long deadline;

    private QueryBudget(Clock clock, long regexSteps, long deadline) {
        this.clock = clock;
        this.regexSteps = new AtomicLong(regexSteps);
        this.deadline = deadline;
    }

    /** The whole budget of a request that starts now. */
    public static QueryBudget full(Clock clock) {
        return new QueryBudget(clock, MAX_REGEX_STEPS, clock.millis() + MAX_MILLIS);
    }

    /**
     * The budget another instance sent with a partition's part of a query, clamped to the maxima (a caller cannot raise
     * them); an absent one (an instance of an older version) is the maximum.
     */
    public static QueryBudget forwarded(Clock clock, Long regexSteps, Long timeoutMillis) {
        long steps = regexSteps == null ? MAX_REGEX_STEPS : Math.max(0, Math.min(regexSteps, MAX_REGEX_STEPS));
        long millis = timeoutMillis == null ? MAX_MILLIS : Math.max(0, Math.min(timeoutMillis, MAX_MILLIS));
        return new QueryBudget(clock, steps, clock.millis() + millis);
    }

    /** One of {@code parts} equal shares of the steps left, with the same deadline. */
    public QueryBudget share(int parts) {
        return new QueryBudget(clock, regexSteps.get() / Math.max(1, parts), deadline);
    }

    /** The regular-expression steps left. */
    public long regexSteps() {
        return Math.max(0, regexSteps.get());
    }

    /** The milliseconds left before the deadline; a 503 timeout when none are. */
    public long remainingMillis() {
        long left = deadline - clock.millis();
        if (left <= 0) {
            throw timeout();
        }
        return left;
    }

    /** A 503 timeout once the deadline has passed. */
    public void checkDeadline() {
        remainingMillis();
    }

    /** Charges {@code steps} taken by a regular expression; a 422 once the request has taken more than its budget. */
    void spendRegexSteps(long steps, String expression) {
        if (regexSteps.addAndGet(-steps) < 0) {
            throw regexBudgetSpent(expression);
        }
    }

    static ApiException regexBudgetSpent(String expression) {
        return ApiException.unprocessable("the regular expressions of the query took more than " + MAX_REGEX_STEPS
                + " steps (\"" + expression + "\" was running): anchor the selector with device=\"...\" or __name__=\"...\", "
                + "or write the expression without nested repetition such as .*.*");
    }

    private static ApiException timeout() {
        return ApiException.timeout("the query took longer than " + MAX_MILLIS + " ms: narrow the selector (device=\"...\", "
                + "__name__=\"...\") or the time range; retry");
    }
}
