package dev.tspipe.bench.faults;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;

/**
 * The seeded plan of the faults: when each is injected (milliseconds after the load started), what
 * it hits and how long the killed process stays down. Node kills form one lane and the broker and
 * registry faults another; each lane injects its faults one after the other (the next one once the
 * previous has recovered, or at its planned moment if that is later), while the two lanes overlap:
 * a node may be restarted while the registry or the broker is down.
 */
record FaultSchedule(List<Fault> nodeLane, List<Fault> serverLane) {

    enum Kind {
        /** A tspipe node is killed, then restarted on its state directory. */
        NODE("node"),
        /** The broker and the registry are killed together, then restarted on the same data. */
        BROKER("broker+registry"),
        /** The registry alone is killed, then restarted. */
        REGISTRY("registry");

        final String label;

        Kind(String label) {
            this.label = label;
        }
    }

    /** One planned fault; {@code node} is the node's index for {@link Kind#NODE}, else -1. */
    record Fault(Kind kind, int node, long atMillis, long downMillis) {
    }

    /** A fault as it happened, from the kill until the process was serving again. */
    record Window(Kind kind, String target, long killedNanos, long recoveredNanos, boolean recovered) {
    }

    /** Faults are injected between 10% and 80% of {@code --seconds}, so that the load runs before and after them. */
    static FaultSchedule plan(FaultOptions options) {
        Random random = new Random(options.seed() * 31 + 17);
        long span = options.seconds() * 1000L;
        List<Fault> nodes = new ArrayList<>();
        for (int i = 0; i < options.nodeKills(); i++) {
            nodes.add(new Fault(Kind.NODE, random.nextInt(options.nodes()), at(random, span), down(random, options)));
        }
        List<Fault> servers = new ArrayList<>();
        for (int i = 0; i < options.brokerRestarts(); i++) {
            servers.add(new Fault(Kind.BROKER, -1, at(random, span), down(random, options)));
        }
        for (int i = 0; i < options.registryRestarts(); i++) {
            servers.add(new Fault(Kind.REGISTRY, -1, at(random, span), down(random, options)));
        }
        nodes.sort(Comparator.comparingLong(Fault::atMillis));
        servers.sort(Comparator.comparingLong(Fault::atMillis));
        return new FaultSchedule(List.copyOf(nodes), List.copyOf(servers));
    }

    /** How far before a kill and after a recovery a write still counts as the fault's: records in flight, the commit interval. */
    static final long MARGIN_NANOS = 5_000_000_000L;

    /**
     * The kind of the fault whose window (with {@link #MARGIN_NANOS} on both sides) holds {@code nanos}; of
     * overlapping windows the one that began last (a broker outage during a node's long restart is the
     * broker's); "none" if no fault's window does.
     */
    static String kindAt(List<Window> windows, long nanos) {
        return windows.stream()
                .filter(w -> nanos >= w.killedNanos() - MARGIN_NANOS && nanos <= w.recoveredNanos() + MARGIN_NANOS)
                .max(Comparator.comparingLong(Window::killedNanos))
                .map(w -> w.kind().label).orElse("none");
    }

    private static long at(Random random, long span) {
        return span / 10 + (long) (random.nextDouble() * span * 7 / 10);
    }

    private static long down(Random random, FaultOptions options) {
        return 1000L * options.minDownSeconds() + (long) (random.nextDouble() * 1000L * (options.maxDownSeconds() - options.minDownSeconds()));
    }
}
