package dev.tspipe.bench.e2e;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsResult.ListOffsetsResultInfo;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Decides when an application has caught up: the committed offsets of its consumer group on the
 * input topic have reached the topic's end offsets, and on every other topic the group consumes
 * (repartition topics) they are within one offset of the end: with exactly-once the last offset
 * of a partition is a transaction marker, which a consumer skips without committing past it.
 * Offsets are read from the broker, not from the application, which runs in another JVM.
 */
public final class CatchUpMonitor {

    static final Duration POLL = Duration.ofMillis(250);

    private final Admin admin;
    private final String inputTopic;

    public CatchUpMonitor(Admin admin, String inputTopic) {
        this.admin = admin;
        this.inputTopic = inputTopic;
    }

    /**
     * How far a group got: {@code committed} input records (the input has no transactions, so
     * offsets count records) of {@code total}, seen at {@code nanoTime}.
     */
    public record Progress(long nanoTime, long committed, long total, boolean complete, List<Sample> samples) {
    }

    /** The input records the group had committed at {@code nanoTime}, one per poll. */
    public record Sample(long nanoTime, long committed) {
    }

    /** Seconds from {@code startNanos} to the first poll that saw anything committed; NaN if none did. */
    public static double secondsToFirstCommit(List<Sample> samples, long startNanos) {
        for (Sample sample : samples) {
            if (sample.committed() > 0) {
                return (sample.nanoTime() - startNanos) / 1e9;
            }
        }
        return Double.NaN;
    }

    /**
     * The group's rate over the tenth of the input that {@code tenth} (0 to 9) names: committed records between the
     * first polls that saw {@code tenth / 10} and {@code (tenth + 1) / 10} of {@code total}, over the time between
     * them (committed offsets move once per commit interval, so a tenth should span several). NaN if the samples do
     * not reach both.
     */
    public static double rateOfTenth(List<Sample> samples, long total, int tenth) {
        long start = total * tenth / 10;
        long end = total * (tenth + 1) / 10;
        Sample from = null;
        Sample before = null;
        for (Sample sample : samples) {
            if (from == null && sample.committed() >= start) {
                // A commit that took the group past the whole tenth at once: measure from the poll before it.
                from = sample.committed() >= end && before != null ? before : sample;
            }
            if (from != null && sample.committed() >= end && sample.nanoTime() > from.nanoTime()) {
                return (sample.committed() - from.committed()) / ((sample.nanoTime() - from.nanoTime()) / 1e9);
            }
            before = sample;
        }
        return Double.NaN;
    }

    /**
     * Polls every 250 ms until the group has caught up or {@code timeout} has passed; then
     * returns how far it got, so that a slow application still yields a throughput (committed
     * records over the time) instead of stalling the run.
     */
    public Progress awaitCaughtUp(String groupId, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        List<Sample> samples = new ArrayList<>();
        samples.add(new Sample(System.nanoTime(), 0));
        while (true) {
            if (caughtUp(groupId, samples)) {
                long now = System.nanoTime();
                long total = total();
                samples.add(new Sample(now, total));
                return new Progress(now, total, total, true, samples);
            }
            if (System.nanoTime() >= deadline) {
                long now = System.nanoTime();
                return new Progress(now, Offsets.committed(admin, groupId, inputTopic), total(), false, samples);
            }
            try {
                Thread.sleep(POLL.toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting for " + groupId, e);
            }
        }
    }

    private long total() {
        return Offsets.endOffsets(admin, inputTopic).values().stream().mapToLong(Long::longValue).sum();
    }

    private boolean caughtUp(String groupId, List<Sample> samples) {
        try {
            Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets(groupId)
                    .partitionsToOffsetAndMetadata().get(10, TimeUnit.SECONDS);
            samples.add(new Sample(System.nanoTime(), Offsets.committedOn(committed, inputTopic)));
            Map<TopicPartition, OffsetSpec> request = new HashMap<>();
            committed.keySet().forEach(tp -> request.put(tp, OffsetSpec.latest()));
            Map<TopicPartition, Long> inputEnds = Offsets.endOffsets(admin, inputTopic);
            inputEnds.keySet().forEach(tp -> request.put(tp, OffsetSpec.latest()));
            Map<TopicPartition, ListOffsetsResultInfo> ends = admin.listOffsets(request).all().get(10, TimeUnit.SECONDS);
            for (Map.Entry<TopicPartition, ListOffsetsResultInfo> end : ends.entrySet()) {
                OffsetAndMetadata offset = committed.get(end.getKey());
                long position = offset == null ? 0 : offset.offset();
                long slack = end.getKey().topic().equals(inputTopic) ? 0 : 1;
                if (position < end.getValue().offset() - slack) {
                    return false;
                }
            }
            return true;
        } catch (ExecutionException | TimeoutException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while reading offsets of " + groupId, e);
        }
    }
}
