package dev.tspipe.processor.topology;

import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.GroupAuthorizationException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongConsumer;

/**
 * What a stream thread that failed does: it is replaced by a new one, after a pause that doubles with
 * each failure in a row (up to {@link #LONGEST_PAUSE_MS}), so that an outage (the schema registry, the
 * broker) pauses processing instead of stopping it for good, and a failure that repeats does not spin.
 *
 * <p>Nothing is skipped: the failed thread's open transaction is aborted and its tasks are read again
 * from their last commit by the new thread (under exactly-once, Kafka Streams rebuilds their state from
 * the changelogs first). The default answer of Kafka Streams, shutting the client down, left the
 * process up but idle for good (docs/architecture.md, "Outages").
 */
public final class StreamThreadReplacement implements StreamsUncaughtExceptionHandler {

    private static final Logger log = LoggerFactory.getLogger(StreamThreadReplacement.class);
    static final long FIRST_PAUSE_MS = 1_000;
    static final long LONGEST_PAUSE_MS = 10_000;
    /** A failure this long after the previous one starts the pauses again from the first. */
    static final long CALM_MS = 60_000;

    private final LongConsumer sleeper;
    private final AtomicInteger inARow = new AtomicInteger();
    private static final long CALM_NANOS = TimeUnit.MILLISECONDS.toNanos(CALM_MS);

    private final AtomicLong lastFailureNanos = new AtomicLong(System.nanoTime() - 2 * CALM_NANOS);
    private final AtomicLong replaced = new AtomicLong();

    public StreamThreadReplacement() {
        this(StreamThreadReplacement::sleep);
    }

    StreamThreadReplacement(LongConsumer sleeper) {
        this.sleeper = sleeper;
    }

    @Override
    public StreamThreadExceptionResponse handle(Throwable exception) {
        long now = System.nanoTime();
        if (now - lastFailureNanos.getAndSet(now) > CALM_NANOS) {
            inARow.set(0);
        }
        long pause = pauseAfter(inARow.incrementAndGet());
        String refused = refusal(exception);
        if (refused != null) {
            // A missing ACL is a setting, not a fault: say what to grant, without the stack trace.
            log.error("Kafka refused this client {}; grant its principal the ACLs of docs/security.md (the readings topic: "
                    + "DESCRIBE and READ; the dead-letter topic: DESCRIBE and WRITE; topics, transactional ids prefixed with the "
                    + "application id; its group). Stream thread {} is replaced in {} ms ({} in a row) and carries on once "
                    + "they are granted", refused, Thread.currentThread().getName(), pause, inARow.get());
            log.debug("The refusal", exception);
        } else {
            log.error("Stream thread {} failed ({} in a row); a new thread takes over its tasks in {} ms, from their last commit: {}",
                    Thread.currentThread().getName(), inARow.get(), pause, rootMessage(exception), exception);
        }
        // This runs in the failing thread before it closes: pausing here delays only the replacement.
        sleeper.accept(pause);
        replaced.incrementAndGet();
        return StreamThreadExceptionResponse.REPLACE_THREAD;
    }

    /** Stream threads replaced since the instance started. */
    public long replaced() {
        return replaced.get();
    }

    /** The pause before the replacement of the {@code n}-th failure in a row: 1 s, 2 s, 4 s, 8 s, then 10 s. */
    static long pauseAfter(int n) {
        long pause = FIRST_PAUSE_MS << Math.min(n - 1, 20);
        return Math.min(pause, LONGEST_PAUSE_MS);
    }

    /** What Kafka refused, naming the resource, when {@code exception} is a missing ACL; null otherwise. */
    static String refusal(Throwable exception) {
        for (Throwable cause = exception; cause != null; cause = cause.getCause() == cause ? null : cause.getCause()) {
            if (cause instanceof TopicAuthorizationException topics) {
                return "access to topic(s) " + topics.unauthorizedTopics() + " (" + topics.getMessage() + ")";
            }
            if (cause instanceof GroupAuthorizationException group) {
                return "access to consumer group '" + group.groupId() + "' (" + group.getMessage() + ")";
            }
            if (cause instanceof AuthorizationException other) {
                return "an operation: " + other.getClass().getSimpleName() + ": " + other.getMessage();
            }
        }
        return null;
    }

    private static String rootMessage(Throwable exception) {
        Throwable root = exception;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return root.toString();
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
