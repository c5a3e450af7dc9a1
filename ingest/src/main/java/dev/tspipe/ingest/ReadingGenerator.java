package dev.tspipe.ingest;

import dev.tspipe.schemas.Reading;

import java.time.Duration;
import java.time.Instant;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.SplittableRandom;

/**
 * Synthetic readings that look like a fleet of sensors: {@code devices × metrics} series, each a
 * bounded random walk around a plausible value of its metric (temperature in °C, humidity in %,
 * pressure in hPa, ...; the unit is in the {@code unit} tag), with event time advancing at the
 * given rate from the start time.
 *
 * <p>Pure and deterministic: no clock and no I/O; the same options (seed included) give the same
 * sequence. Options add what real input has: readings moved back in time by up to a minute
 * (out of order), readings sent twice (duplicates), and hot devices that carry a large share of
 * the load. Pacing in wall-clock time is the caller's business.
 */
public final class ReadingGenerator implements Iterator<Reading> {

    /** How far back an out-of-order reading's timestamp is moved, at most. */
    public static final Duration MAX_LATENESS = Duration.ofMinutes(1);

    /** A kind of measurement: its name, unit, typical value, step of the random walk and bounds. */
    public record MetricKind(String name, String unit, double typical, double step, double min, double max, int decimals) {
    }

    /** The metrics series are drawn from, in order; with more metrics than kinds the names get a suffix ({@code temperature-2}). */
    public static final List<MetricKind> METRICS = List.of(
            new MetricKind("temperature", "°C", 21, 0.1, -40, 85, 2),
            new MetricKind("humidity", "%", 45, 0.5, 0, 100, 1),
            new MetricKind("pressure", "hPa", 1013, 0.2, 870, 1085, 1),
            new MetricKind("voltage", "V", 3.3, 0.005, 2.8, 3.6, 3),
            new MetricKind("rssi", "dBm", -67, 1, -120, -30, 0),
            new MetricKind("co2", "ppm", 600, 5, 400, 5000, 0),
            new MetricKind("current", "A", 1.2, 0.02, 0, 20, 3),
            new MetricKind("power", "W", 250, 5, 0, 5000, 1),
            new MetricKind("battery", "%", 90, 0.05, 0, 100, 2),
            new MetricKind("illuminance", "lx", 300, 10, 0, 100_000, 0));

    /**
     * What to generate.
     *
     * @param devices               number of devices
     * @param metrics               metrics per device
     * @param ratePerSecond         readings per second of event time (duplicates come on top)
     * @param start                 event time of the first reading
     * @param outOfOrderProbability share of readings whose timestamp is moved back by up to {@link #MAX_LATENESS}
     * @param duplicateProbability  share of readings followed by the same reading again
     * @param hotDevices            devices that carry {@code hotShare} of the load (0: all alike)
     * @param hotShare              share of the load of the hot devices together
     * @param seed                  the same seed gives the same sequence
     * @param reportJitter          null: every reading is of a device and metric drawn at random, at the next moment of
     *                              event time; otherwise each device <em>reports</em> all its metrics at one moment, on a
     *                              fixed schedule (device {@code d} at {@code start + (k × devices + d) × metrics / rate}
     *                              seconds: every {@code devices × metrics / rate} seconds), each report moved later by a
     *                              random time of up to this jitter, as a sensor's timer and clock move it
     */
    public record Options(int devices, int metrics, double ratePerSecond, Instant start, double outOfOrderProbability,
                          double duplicateProbability, int hotDevices, double hotShare, long seed, Duration reportJitter) {

        public Options {
            Objects.requireNonNull(start, "start");
            require(devices >= 1, "devices must be at least 1, not " + devices);
            require(metrics >= 1, "metrics must be at least 1, not " + metrics);
            require(ratePerSecond > 0 && Double.isFinite(ratePerSecond), "rate must be a positive number of readings per second, not " + ratePerSecond);
            require(isProbability(outOfOrderProbability), "out-of-order probability must be between 0 and 1, not " + outOfOrderProbability);
            require(isProbability(duplicateProbability), "duplicate probability must be between 0 and 1, not " + duplicateProbability);
            require(hotDevices >= 0 && hotDevices <= devices, "hot devices must be between 0 and the number of devices (" + devices + "), not " + hotDevices);
            require(isProbability(hotShare), "hot share must be between 0 and 1, not " + hotShare);
            require(reportJitter == null || !reportJitter.isNegative(), "the report jitter must not be negative, not " + reportJitter);
            require(reportJitter == null || hotDevices == 0, "devices that report on a schedule cannot also be hot devices");
        }

        /** Uniform load, in order, no duplicates, seed 1. */
        public static Options of(int devices, int metrics, double ratePerSecond, Instant start) {
            return new Options(devices, metrics, ratePerSecond, start, 0, 0, 0, 0.5, 1, null);
        }

        public Options withOutOfOrder(double probability) {
            return new Options(devices, metrics, ratePerSecond, start, probability, duplicateProbability, hotDevices, hotShare, seed, reportJitter);
        }

        public Options withDuplicates(double probability) {
            return new Options(devices, metrics, ratePerSecond, start, outOfOrderProbability, probability, hotDevices, hotShare, seed, reportJitter);
        }

        /** {@code count} devices get {@code share} of all readings between them. */
        public Options withHotDevices(int count, double share) {
            return new Options(devices, metrics, ratePerSecond, start, outOfOrderProbability, duplicateProbability, count, share, seed, reportJitter);
        }

        public Options withSeed(long newSeed) {
            return new Options(devices, metrics, ratePerSecond, start, outOfOrderProbability, duplicateProbability, hotDevices, hotShare, newSeed, reportJitter);
        }

        /**
         * Each device reports all its metrics at one moment, every {@code devices × metrics / rate} seconds, each
         * report moved later by up to {@code jitter}: the shape of a fleet's telemetry.
         */
        public Options withReports(Duration jitter) {
            return new Options(devices, metrics, ratePerSecond, start, outOfOrderProbability, duplicateProbability, hotDevices, hotShare, seed,
                    Objects.requireNonNull(jitter, "jitter"));
        }

        /** Number of series, {@code devices × metrics}. */
        public long series() {
            return (long) devices * metrics;
        }

        private static boolean isProbability(double p) {
            return p >= 0 && p <= 1;
        }

        private static void require(boolean condition, String message) {
            if (!condition) {
                throw new IllegalArgumentException(message);
            }
        }
    }

    private final Options options;
    private final SplittableRandom random;
    private final double[] values;
    private final boolean[] started;
    private final String[] deviceIds;
    private final String[] metricNames;
    private final Map<String, String>[] tags;
    private long fresh;
    private long emitted;
    private Reading pendingDuplicate;
    private long reportTime;

    @SuppressWarnings("unchecked")
    public ReadingGenerator(Options options) {
        this.options = Objects.requireNonNull(options, "options");
        if (options.series() > 50_000_000) {
            throw new IllegalArgumentException("devices × metrics must be at most 50,000,000 series, not " + options.series());
        }
        this.random = new SplittableRandom(options.seed());
        this.values = new double[(int) options.series()];
        this.started = new boolean[values.length];
        this.deviceIds = new String[options.devices()];
        for (int d = 0; d < deviceIds.length; d++) {
            deviceIds[d] = String.format("device-%05d", d);
        }
        this.metricNames = new String[options.metrics()];
        this.tags = new Map[options.metrics()];
        for (int m = 0; m < metricNames.length; m++) {
            MetricKind kind = kind(m);
            int round = m / METRICS.size();
            metricNames[m] = round == 0 ? kind.name() : kind.name() + "-" + (round + 1);
            tags[m] = Map.of("unit", kind.unit());
        }
    }

    public Options options() {
        return options;
    }

    /** Readings generated so far, duplicates included. */
    public long generated() {
        return emitted;
    }

    /** Readings generated so far, duplicates not counted: the readings that advanced event time. */
    public long originals() {
        return fresh;
    }

    /** Always true: the sequence is endless. */
    @Override
    public boolean hasNext() {
        return true;
    }

    @Override
    public Reading next() {
        emitted++;
        if (pendingDuplicate != null) {
            Reading duplicate = pendingDuplicate;
            pendingDuplicate = null;
            return duplicate;
        }
        long n = fresh++;
        long timestamp;
        int device;
        int metric;
        if (options.reportJitter() == null) {
            timestamp = options.start().toEpochMilli() + (long) Math.floor(n * 1000.0 / options.ratePerSecond());
            device = pickDevice();
            metric = random.nextInt(options.metrics());
        } else {
            long moment = n / options.metrics();
            metric = (int) (n % options.metrics());
            device = (int) (moment % options.devices());
            if (metric == 0) {
                long jitter = options.reportJitter().toMillis();
                reportTime = options.start().toEpochMilli() + (long) Math.floor(moment * options.metrics() * 1000.0 / options.ratePerSecond())
                        + (jitter == 0 ? 0 : random.nextLong(jitter + 1));
            }
            timestamp = reportTime;
        }
        if (options.outOfOrderProbability() > 0 && random.nextDouble() < options.outOfOrderProbability()) {
            timestamp = Math.max(0, timestamp - 1 - random.nextLong(MAX_LATENESS.toMillis()));
        }
        Reading reading = Reading.newBuilder()
                .setDeviceId(deviceIds[device])
                .setMetric(metricNames[metric])
                .setTimestamp(Instant.ofEpochMilli(timestamp))
                .setValue(step(device * options.metrics() + metric, kind(metric)))
                .setTags(tags[metric])
                .build();
        if (options.duplicateProbability() > 0 && random.nextDouble() < options.duplicateProbability()) {
            pendingDuplicate = reading;
        }
        return reading;
    }

    private int pickDevice() {
        int hot = options.hotDevices();
        if (hot > 0 && random.nextDouble() < options.hotShare()) {
            return random.nextInt(hot);
        }
        return random.nextInt(options.devices());
    }

    /** One step of the series' random walk, reflected at the metric's bounds. */
    private double step(int series, MetricKind kind) {
        double value;
        if (!started[series]) {
            started[series] = true;
            value = kind.typical() + random.nextDouble(-20, 20) * kind.step();
        } else {
            value = values[series] + gaussian() * kind.step();
        }
        if (value > kind.max()) {
            value = 2 * kind.max() - value;
        } else if (value < kind.min()) {
            value = 2 * kind.min() - value;
        }
        value = Math.min(kind.max(), Math.max(kind.min(), value));
        values[series] = value;
        double scale = Math.pow(10, kind.decimals());
        return Math.round(value * scale) / scale;
    }

    /** A standard normal variate (Box-Muller); SplittableRandom has none. */
    private double gaussian() {
        double u = 1 - random.nextDouble();
        double v = random.nextDouble();
        return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
    }

    private static MetricKind kind(int metric) {
        return METRICS.get(metric % METRICS.size());
    }
}
