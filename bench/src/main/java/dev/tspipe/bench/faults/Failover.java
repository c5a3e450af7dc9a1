package dev.tspipe.bench.faults;

import java.time.Duration;
import java.util.List;

/**
 * Failover as a client sees it: with two nodes or more and one standby replica per task, one node
 * is killed with SIGKILL while another is asked for the latest reading of every series once a
 * second. Measured: the seconds from the kill until the first round in which every series answers
 * 200 (fresh, or stale from a standby), until a round in which every series answers 200 and fresh
 * (no {@code X-Tspipe-Stale}) again, and the share of answers that were not 200 until then.
 */
public final class Failover {

    /** The tspipe nodes of a cluster under test, as a failover needs them: the harness's child JVMs or containers. */
    public interface Nodes {
        int nodeCount();

        /** Where this client reaches the node, e.g. {@code http://127.0.0.1:8080}. */
        String nodeUrl(int node);

        /** The {@code host:port} other instances know the node by, as {@code /api/v1/stats/partitions} names owners. */
        String advertisedAddress(int node);

        /** Kills the node at once (SIGKILL): no goodbye to the group, no flush. */
        void killNode(int node);
    }

    /**
     * The figures of one failover; {@code recovered} false if every series was not fresh within the timeout, and
     * {@code secondsUntilAnswered} the timeout if no round was answered 200 throughout.
     */
    public record Result(int killedNode, int activePartitionsOfKilledNode, int queriedNode, int seriesAsked, int seriesNotAnsweringBefore, boolean recovered,
                  double secondsUntilAnswered, double secondsUntilFresh, int rounds, long answers, long non200, long stale, double non200Share, double staleShare,
                  java.util.Map<Integer, Long> statuses) {
    }

    private Failover() {
    }

    /**
     * Series that do not answer 200 and fresh before the kill (a series tspipe lost, say) are left
     * out: they would never recover, and they are counted by the comparison with the oracle.
     */
    public static Result measure(Nodes cluster, List<Series> all, QueryClient client, Duration timeout,
                                 java.util.function.Consumer<String> progress) {
        // Kill the node with the most active tasks: after many restarts one node may hold them all, and
        // killing a node that holds only standbys would measure nothing.
        int[] active = activePartitions(cluster, client);
        int killed = 0;
        for (int i = 1; i < active.length; i++) {
            if (active[i] > active[killed]) {
                killed = i;
            }
        }
        int queried = killed == 0 ? 1 : 0;
        String base = cluster.nodeUrl(queried);
        List<Series> series = all;
        long settleDeadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        do {
            series = all.stream().filter(s -> {
                QueryClient.Answer answer = client.get(base + QueryClient.path(s, "latest"), Duration.ofSeconds(5));
                return answer.status() == 200 && !answer.stale();
            }).toList();
            sleepUntil(System.nanoTime() + 1_000_000_000L);
        } while (series.size() < all.size() && System.nanoTime() < settleDeadline);
        int left = all.size() - series.size();
        progress.accept("failover: killing node-" + killed + " (active for " + active[killed] + " partitions), asking node-"
                + queried + " for the latest reading of "
                + series.size() + " series once a second" + (left == 0 ? "" : " (" + left + " series left out: no fresh 200 before the kill)"));
        long killedAt = System.nanoTime();
        cluster.killNode(killed);
        long deadline = killedAt + timeout.toNanos();
        java.util.Map<Integer, Long> statuses = new java.util.TreeMap<>();
        long answers = 0;
        long non200 = 0;
        long stale = 0;
        int rounds = 0;
        double secondsUntilAnswered = -1;
        for (long next = killedAt; System.nanoTime() < deadline; next += 1_000_000_000L) {
            sleepUntil(next);
            Round round = round(client, base, series, statuses);
            rounds++;
            answers += series.size();
            non200 += round.non200();
            stale += round.stale();
            if (rounds % 10 == 0) {
                progress.accept(String.format("failover: %d s, last round %d not 200, %d stale", (System.nanoTime() - killedAt) / 1_000_000_000L,
                        round.non200(), round.stale()));
            }
            double seconds = (System.nanoTime() - killedAt) / 1e9;
            if (round.non200() == 0 && secondsUntilAnswered < 0) {
                secondsUntilAnswered = seconds;
            }
            if (round.fresh()) {
                return new Result(killed, active[killed], queried, series.size(), left, true, secondsUntilAnswered, seconds, rounds,
                        answers, non200, stale,
                        non200 / (double) answers, stale / (double) answers, statuses);
            }
        }
        return new Result(killed, active[killed], queried, series.size(), left, false,
                secondsUntilAnswered < 0 ? timeout.toSeconds() : secondsUntilAnswered, timeout.toSeconds(), rounds, answers, non200, stale,
                non200 / (double) Math.max(1, answers), stale / (double) Math.max(1, answers), statuses);
    }

    /** Active partitions per node, from {@code /api/v1/stats/partitions} (which merges every instance's). */
    private static int[] activePartitions(Nodes cluster, QueryClient client) {
        int[] active = new int[cluster.nodeCount()];
        QueryClient.Answer answer = client.get(cluster.nodeUrl(0) + "/api/v1/stats/partitions", Duration.ofSeconds(30));
        if (answer.status() != 200) {
            throw new IllegalStateException("failover: /api/v1/stats/partitions answered " + answer.status() + " " + answer.body());
        }
        try {
            for (com.fasterxml.jackson.databind.JsonNode partition : new com.fasterxml.jackson.databind.ObjectMapper()
                    .readTree(answer.body()).path("partitions")) {
                String owner = partition.path("owner").asText();
                for (int i = 0; i < active.length; i++) {
                    if (owner.equals(cluster.advertisedAddress(i))) {
                        active[i]++;
                    }
                }
            }
        } catch (java.io.IOException e) {
            throw new IllegalStateException("failover: /api/v1/stats/partitions is not JSON: " + answer.body(), e);
        }
        return active;
    }

    private record Round(long non200, long stale) {
        boolean fresh() {
            return non200 == 0 && stale == 0;
        }
    }

    /** One request per series; {@code statuses} counts the answers by status (0: no answer). */
    private static Round round(QueryClient client, String base, List<Series> series, java.util.Map<Integer, Long> statuses) {
        long non200 = 0;
        long stale = 0;
        for (Series s : series) {
            QueryClient.Answer answer = client.get(base + QueryClient.path(s, "latest"), Duration.ofSeconds(5));
            statuses.merge(answer.status(), 1L, Long::sum);
            if (answer.status() != 200) {
                non200++;
            } else if (answer.stale()) {
                stale++;
            }
        }
        return new Round(non200, stale);
    }

    private static void sleepUntil(long nanos) {
        long left = nanos - System.nanoTime();
        if (left > 0) {
            try {
                Thread.sleep(left / 1_000_000, (int) (left % 1_000_000));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted", e);
            }
        }
    }
}
