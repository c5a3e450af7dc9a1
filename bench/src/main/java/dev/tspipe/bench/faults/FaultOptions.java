package dev.tspipe.bench.faults;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

/**
 * What one run of the fault harness does; every option with its default. The defaults are the
 * long version (20 node kills, 5 broker restarts, 3 registry restarts); {@code --short} is the
 * version the build runs. Parsed from {@code --name value} pairs; a bad value fails fast with a
 * message that names the option.
 *
 * @param nodes            tspipe nodes (child JVMs, one application id, one standby replica)
 * @param partitions       partitions of the input topic
 * @param devices          devices; series = devices x metrics
 * @param metrics          metrics per device
 * @param rate             writes per second (new readings, duplicates and corrections together)
 * @param seconds          shortest duration of the load; it runs on until every fault has been injected and recovered
 * @param intervalMillis   event time between two readings of one series
 * @param duplicates       share of writes that repeat a reading exactly
 * @param corrections      share of writes that give a written reading a new value
 * @param nodeKills        node kills (SIGKILL, then a restart on the same state directory)
 * @param brokerRestarts   kills of the broker together with the registry, then a restart of both on the same data
 * @param registryRestarts kills of the registry alone, then a restart
 * @param minDownSeconds   shortest time a killed process stays down
 * @param maxDownSeconds   longest time a killed process stays down
 * @param recoverTimeoutSeconds longest wait for a restarted node to be RUNNING again
 * @param catchUpTimeoutSeconds longest wait, after the load, for the nodes to have processed every reading
 * @param failover         measure failover afterwards (needs two nodes or more)
 * @param failoverTimeoutSeconds longest wait for every series to answer fresh after a node was killed
 * @param seed             seed of the schedule of faults and of the readings
 * @param out              folder of the JSON result and the child processes' logs
 * @param nodeJvmOptions   JVM options of the tspipe nodes
 * @param serverJvmOptions JVM options of the broker and the registry
 */
@com.fasterxml.jackson.annotation.JsonAutoDetect(fieldVisibility = com.fasterxml.jackson.annotation.JsonAutoDetect.Visibility.ANY)
public record FaultOptions(int nodes, int partitions, int devices, int metrics, int rate, int seconds, long intervalMillis,
                    double duplicates, double corrections, int nodeKills, int brokerRestarts, int registryRestarts,
                    int minDownSeconds, int maxDownSeconds, int recoverTimeoutSeconds, int catchUpTimeoutSeconds,
                    boolean failover, int failoverTimeoutSeconds, long seed, Path out,
                    List<String> nodeJvmOptions, List<String> serverJvmOptions) {

    static final String USAGE = """
            java -cp bench/target/benchmarks.jar dev.tspipe.bench.faults.FaultBench [options]

            Starts a broker, a schema registry and tspipe nodes as child JVMs, writes readings at a
            steady rate while it kills them with SIGKILL at seeded random moments and restarts them,
            then compares every raw row and every 1m/1h/1d bucket, read through the query API, with
            what was acknowledged. Exit code 0: nothing lost, counted twice or wrong; 1: something
            was; 2: bad options; 3: the harness could not run.

            The defaults are the long version (about 20 to 25 minutes with a 45 s session timeout).

              --short             the version the build runs: 2 node kills, 1 broker restart,
                                  1 registry restart, 90 s at 250 writes/s, no failover phase
              --nodes N           tspipe nodes (2)
              --partitions P      partitions of the input topic (4)
              --devices D         devices (25)
              --metrics M         metrics per device (4); series = devices x metrics, at least 100
              --rate R            writes per second: new readings, duplicates, corrections (200)
              --seconds S         shortest duration of the load; it goes on until every fault has
                                  been injected and recovered (900)
              --interval-ms MS    event time between two readings of one series (15000)
              --duplicates F      share of writes that repeat a reading exactly (0.05)
              --corrections F     share of writes that give a reading a new value (0.01)
              --node-kills N      node kills, each followed by a restart (20)
              --broker-restarts N kills of broker and registry together, then restarts (5)
              --registry-restarts N  kills of the registry alone, then restarts (3)
              --down-seconds A-B  how long a killed process stays down, uniform in A..B (3-8)
              --recover-timeout-seconds S  longest wait for a restarted node to be RUNNING (150)
              --catch-up-timeout-seconds S longest wait for the nodes to process every reading (240)
              --no-failover       skip the failover phase (kill -9 one of two nodes, query the other)
              --failover          run it (after --short, which skips it)
              --failover-timeout-seconds S longest failover measured (180)
              --seed N            seed of the faults and the readings (random; printed)
              --out DIR           folder of the JSON result and the logs (bench/results)
              --node-jvm-opts S   JVM options of the nodes, space-separated (-Xmx512m)
              --server-jvm-opts S JVM options of broker and registry, space-separated (-Xmx512m)
              --help
            """;

    static FaultOptions defaults() {
        return new FaultOptions(2, 4, 25, 4, 200, 900, 15_000, 0.05, 0.01, 20, 5, 3, 3, 8, 150, 240, true, 180,
                ThreadLocalRandom.current().nextLong(1, 1_000_000), Path.of("bench", "results"),
                List.of("-Xmx512m"), List.of("-Xmx512m"));
    }

    int series() {
        return devices * metrics;
    }

    public static FaultOptions parse(String... args) {
        FaultOptions o = defaults();
        int nodes = o.nodes;
        int partitions = o.partitions;
        int devices = o.devices;
        int metrics = o.metrics;
        int rate = o.rate;
        int seconds = o.seconds;
        long intervalMillis = o.intervalMillis;
        double duplicates = o.duplicates;
        double corrections = o.corrections;
        int nodeKills = o.nodeKills;
        int brokerRestarts = o.brokerRestarts;
        int registryRestarts = o.registryRestarts;
        int minDown = o.minDownSeconds;
        int maxDown = o.maxDownSeconds;
        int recoverTimeout = o.recoverTimeoutSeconds;
        int catchUpTimeout = o.catchUpTimeoutSeconds;
        boolean failover = o.failover;
        int failoverTimeout = o.failoverTimeoutSeconds;
        long seed = o.seed;
        Path out = o.out;
        List<String> nodeJvm = o.nodeJvmOptions;
        List<String> serverJvm = o.serverJvmOptions;
        for (int i = 0; i < args.length; i++) {
            String name = args[i];
            switch (name) {
                case "--help", "-h" -> throw new IllegalArgumentException(USAGE);
                case "--no-failover" -> failover = false;
                case "--failover" -> failover = true;
                case "--short" -> {
                    nodeKills = 2;
                    brokerRestarts = 1;
                    registryRestarts = 1;
                    seconds = 90;
                    rate = 250;
                    failover = false;
                }
                default -> {
                    if (i + 1 >= args.length) {
                        throw new IllegalArgumentException(name + ": missing value (or unknown option); see --help");
                    }
                    String value = args[++i];
                    switch (name) {
                        case "--nodes" -> nodes = positiveInt(name, value);
                        case "--partitions" -> partitions = positiveInt(name, value);
                        case "--devices" -> devices = positiveInt(name, value);
                        case "--metrics" -> metrics = positiveInt(name, value);
                        case "--rate" -> rate = positiveInt(name, value);
                        case "--seconds" -> seconds = positiveInt(name, value);
                        case "--interval-ms" -> intervalMillis = positiveInt(name, value);
                        case "--duplicates" -> duplicates = share(name, value);
                        case "--corrections" -> corrections = share(name, value);
                        case "--node-kills" -> nodeKills = count(name, value);
                        case "--broker-restarts" -> brokerRestarts = count(name, value);
                        case "--registry-restarts" -> registryRestarts = count(name, value);
                        case "--down-seconds" -> {
                            String[] range = value.split("-", 2);
                            if (range.length != 2) {
                                throw new IllegalArgumentException(name + ": expected A-B, e.g. 3-8, got '" + value + "'");
                            }
                            minDown = positiveInt(name, range[0]);
                            maxDown = positiveInt(name, range[1]);
                            if (maxDown < minDown) {
                                throw new IllegalArgumentException(name + ": " + value + " ends before it starts");
                            }
                        }
                        case "--recover-timeout-seconds" -> recoverTimeout = positiveInt(name, value);
                        case "--catch-up-timeout-seconds" -> catchUpTimeout = positiveInt(name, value);
                        case "--failover-timeout-seconds" -> failoverTimeout = positiveInt(name, value);
                        case "--seed" -> seed = parseLong(name, value);
                        case "--out" -> out = Path.of(value);
                        case "--node-jvm-opts" -> nodeJvm = jvmOptions(value);
                        case "--server-jvm-opts" -> serverJvm = jvmOptions(value);
                        default -> throw new IllegalArgumentException("unknown option " + name + "; see --help");
                    }
                }
            }
        }
        if (devices * metrics < 100) {
            throw new IllegalArgumentException("--devices x --metrics: " + devices + " x " + metrics
                    + " series; the harness needs at least 100");
        }
        if (duplicates + corrections >= 0.5) {
            throw new IllegalArgumentException("--duplicates + --corrections: " + (duplicates + corrections)
                    + " leaves too few new readings; keep the sum under 0.5");
        }
        if (failover && nodes < 2) {
            failover = false;
        }
        return new FaultOptions(nodes, partitions, devices, metrics, rate, seconds, intervalMillis, duplicates, corrections,
                nodeKills, brokerRestarts, registryRestarts, minDown, maxDown, recoverTimeout, catchUpTimeout, failover,
                failoverTimeout, seed, out, nodeJvm, serverJvm);
    }

    private static List<String> jvmOptions(String value) {
        return value.isBlank() ? List.of() : Arrays.asList(value.trim().split("\\s+"));
    }

    private static long parseLong(String name, String value) {
        try {
            return Long.parseLong(value.replace("_", ""));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(name + ": expected an integer, got '" + value + "'");
        }
    }

    private static int count(String name, String value) {
        long parsed = parseLong(name, value);
        if (parsed < 0 || parsed > 10_000) {
            throw new IllegalArgumentException(name + ": expected 0..10000, got '" + value + "'");
        }
        return (int) parsed;
    }

    private static int positiveInt(String name, String value) {
        long parsed = parseLong(name, value);
        if (parsed <= 0 || parsed > Integer.MAX_VALUE) {
            throw new IllegalArgumentException(name + ": expected a positive integer, got '" + value + "'");
        }
        return (int) parsed;
    }

    private static double share(String name, String value) {
        try {
            double parsed = Double.parseDouble(value);
            if (parsed >= 0 && parsed < 1) {
                return parsed;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new IllegalArgumentException(name + ": expected a share in [0, 1), e.g. 0.05, got '" + value + "'");
    }
}
