package dev.tspipe.app;

import dev.tspipe.model.keys.DistributionKey;
import dev.tspipe.model.analysis.KeyLayoutLinter.Finding;
import dev.tspipe.model.analysis.KeyLayoutLinter.Severity;
import dev.tspipe.model.analysis.KeyLayoutLinter;
import dev.tspipe.model.keys.DevicePartitioner;
import dev.tspipe.model.keys.KeyLayout;
import dev.tspipe.model.keys.SeriesId;
import dev.tspipe.processor.topology.BatchVerdict;
import dev.tspipe.processor.topology.ReadingValidator;
import dev.tspipe.processor.topology.ValidReading;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeMap;

/**
 * How sampled readings fit the key rules of docs/row-keys.md ("Analyzing real keys"): fed the pipeline's verdict on
 * each record, reading by reading, then asked for its {@link #report()}. Pure: no I/O and no clock, so that tests
 * feed it generated data whose answers they know.
 *
 * <p>It measures devices (the unit tspipe never splits, rule 2): their readings, the busiest 1%, the bytes of their
 * rows projected over the raw lifecycle, the partition each one goes to; and the values of the key segments.
 */
final class KeyAnalysis {

    /**
     * @param layout     the deployment's key layout: keys are measured as the pipeline writes them
     * @param partitions partitions of the readings topic
     * @param lifecycle  how long raw rows are kept: the time a device's rows add up over
     * @param top        how many of the busiest devices the report lists
     */
    record Settings(KeyLayout layout, int partitions, Duration lifecycle, int top) {

        Settings {
            Objects.requireNonNull(layout, "layout");
            if (partitions < 1) {
                throw new IllegalArgumentException("partitions must be at least 1, not " + partitions);
            }
            if (lifecycle.isNegative() || lifecycle.isZero()) {
                throw new IllegalArgumentException("the lifecycle must be longer than 0, not " + lifecycle);
            }
            if (top < 0) {
                throw new IllegalArgumentException("the number of top devices must not be negative, not " + top);
            }
        }
    }

    /** Bytes a device may hold over its lifecycle: 10 GB a partition key (Tablestore, AnalyticDB). */
    static final long DEVICE_BYTES_LIMIT = DistributionKey.VOLUME_GUIDELINE_BYTES;
    /** A longer key is a warning: a quarter of the 1,024-byte limit, over ten times tspipe's typical 35 bytes. */
    static final int LONG_KEY_BYTES = 256;
    /** Busiest partition over the mean: a warning above this, an error from {@link #SKEW_ERROR}. */
    static final double SKEW_WARNING = 1.5;
    static final double SKEW_ERROR = 2.0;
    /** The busiest 1% of devices are hot when they hold this many times the share they would hold if all were alike. */
    static final double HOT_FACTOR = 10;
    /** Shorter samples are not projected over the lifecycle: a few readings close together say nothing about a week. */
    static final long MIN_SPAN_MILLIS = 1_000;
    /** Devices with numbered ids needed before their numbers are compared with when the devices first appear. */
    static final int MONOTONIC_MIN_DEVICES = 20;
    /** Rank correlation of id numbers and first appearances from which ids count as growing with time. */
    static final double MONOTONIC_CORRELATION = 0.9;
    /**
     * Ids count as growing with time when, as fractions of the time span, the median device first appears after this
     * and is seen for less than it: new ids keep arriving and old ones go quiet. A fixed fleet (sensor-001 to
     * sensor-200, all reporting) appears early in any sample and stays.
     */
    static final double MONOTONIC_ARRIVAL = 0.1;

    private record DeviceId(String tenant, String device) {
    }

    private static final class Device {
        final DeviceId id;
        final int partition;
        long readings;
        long bytes;
        long firstSeen = Long.MAX_VALUE;
        long lastSeen = Long.MIN_VALUE;

        Device(DeviceId id, int partition) {
            this.id = id;
            this.partition = partition;
        }
    }

    private final Settings settings;
    private final Map<DeviceId, Device> devices = new HashMap<>();
    private final Set<SeriesId> series = new HashSet<>();
    private final SegmentValues tenantValues = new SegmentValues("tenant");
    private final SegmentValues deviceValues = new SegmentValues("device");
    private final SegmentValues metricValues = new SegmentValues("metric");
    private final long[] partitionReadings;
    private final Map<String, Long> rejected = new TreeMap<>();
    private final Map<String, String> firstRejection = new HashMap<>();
    private String firstRejected;
    private long readings;
    private long fromMillis = Long.MAX_VALUE;
    private long toMillis = Long.MIN_VALUE;
    private long keyBytes;
    private int shortestKey = Integer.MAX_VALUE;
    private int longestKey;
    private String longestKeyText;
    private long longKeys;

    KeyAnalysis(Settings settings) {
        this.settings = Objects.requireNonNull(settings, "settings");
        this.partitionReadings = new long[settings.partitions()];
    }

    /** Counts one record as the pipeline judged it: a reading and its row key, a rejection, or each reading of a batch. */
    void add(ReadingValidator.Verdict verdict) {
        if (verdict instanceof BatchVerdict batch) {
            batch.readings().forEach(this::add);
        } else if (verdict instanceof ReadingValidator.Accepted accepted) {
            add(accepted.reading(), accepted.rowKey());
        } else if (verdict instanceof ReadingValidator.Rejected rejection) {
            reject(rejection.reason().code(), rejection.message());
        }
    }

    /** Counts a reading the pipeline would store under {@code rowKey}. */
    void add(ValidReading reading, byte[] rowKey) {
        SeriesId id = reading.series();
        readings++;
        fromMillis = Math.min(fromMillis, reading.epochMillis());
        toMillis = Math.max(toMillis, reading.epochMillis());
        keyBytes += rowKey.length;
        shortestKey = Math.min(shortestKey, rowKey.length);
        if (rowKey.length > longestKey) {
            longestKey = rowKey.length;
            longestKeyText = new String(rowKey, StandardCharsets.US_ASCII);
        }
        if (rowKey.length > LONG_KEY_BYTES) {
            longKeys++;
        }
        Device device = devices.computeIfAbsent(new DeviceId(id.tenant(), id.device()), key -> {
            deviceValues.add(key.device());
            if (key.tenant() != null) {
                tenantValues.add(key.tenant());
            }
            return new Device(key, DevicePartitioner.partitionOf(id.distributionKey().getBytes(StandardCharsets.UTF_8),
                    settings.partitions()));
        });
        device.readings++;
        device.bytes += rowKey.length + reading.row().length;
        device.firstSeen = Math.min(device.firstSeen, reading.epochMillis());
        device.lastSeen = Math.max(device.lastSeen, reading.epochMillis());
        partitionReadings[device.partition]++;
        if (series.add(id)) {
            metricValues.add(id.metric());
        }
    }

    /** Counts a record or line the pipeline would not store, by its reason code ({@code key-too-long}, ...). */
    void reject(String code, String message) {
        rejected.merge(code, 1L, Long::sum);
        firstRejection.putIfAbsent(code, message);
        firstRejected = firstRejected == null ? code : firstRejected;
    }

    /** Readings counted so far. */
    long readings() {
        return readings;
    }

    /** The first rejection seen, as "code: message"; null when none was. */
    String firstRejection() {
        return firstRejected == null ? null : firstRejected + ": " + firstRejection.get(firstRejected);
    }

    KeyAnalysisReport report() {
        List<Device> ranked = new ArrayList<>(devices.values());
        ranked.sort(Comparator.comparingLong((Device d) -> d.readings).reversed()
                .thenComparing(d -> d.id.tenant() == null ? "" : d.id.tenant()).thenComparing(d -> d.id.device()));
        int busiest = (int) Math.ceil(ranked.size() / 100.0);
        long busiestReadings = ranked.stream().limit(busiest).mapToLong(d -> d.readings).sum();
        long span = readings == 0 ? 0 : toMillis - fromMillis;
        boolean projected = span >= MIN_SPAN_MILLIS;
        double scale = (double) settings.lifecycle().toMillis() / Math.max(span, 1);
        List<KeyAnalysisReport.Device> top = ranked.stream().limit(settings.top())
                .map(d -> new KeyAnalysisReport.Device(shown(d.id.tenant()), shown(d.id.device()), d.readings,
                        share(d.readings), d.partition, d.bytes,
                        projected ? OptionalLong.of(Math.round(d.bytes * scale)) : OptionalLong.empty())).toList();
        List<Device> oversized = projected ? ranked.stream().filter(d -> d.bytes * scale > DEVICE_BYTES_LIMIT)
                .sorted(Comparator.comparingLong((Device d) -> d.bytes).reversed()).toList() : List.of();
        OptionalLong largest = projected ? OptionalLong.of(Math.round(ranked.stream().mapToLong(d -> d.bytes).max()
                .orElse(0) * scale)) : OptionalLong.empty();
        double skew = readings == 0 ? 0 : Arrays.stream(partitionReadings).max().orElse(0)
                / ((double) readings / settings.partitions());

        List<Finding> findings = new ArrayList<>();
        int deviceSegment = (settings.layout().salted() ? 1 : 0) + (settings.layout().multiTenant() ? 1 : 0) + 1;
        Long tooLong = rejected.get("key-too-long");
        if (tooLong != null) {
            findings.add(new Finding(Severity.ERROR, "key-too-long", 0, count(tooLong) + " readings have a row key over "
                    + count(KeyLayoutLinter.MAX_KEY_BYTES) + " bytes (" + firstRejection.get("key-too-long") + "): the pipeline "
                    + "refuses them, to the dead-letter topic", "shorten the device and metric ids, or hash a long one"));
        }
        if (!oversized.isEmpty()) {
            Device first = oversized.get(0);
            findings.add(new Finding(Severity.ERROR, "device-too-large", deviceSegment, oversized.size() + " device(s) "
                    + "would hold more than " + KeyAnalysisReport.bytes(DEVICE_BYTES_LIMIT) + " each over the "
                    + KeyAnalysisReport.duration(settings.lifecycle()) + " lifecycle (" + quoted(first) + ": ~"
                    + KeyAnalysisReport.bytes(Math.round(first.bytes * scale)) + ", from "
                    + KeyAnalysisReport.bytes(first.bytes) + " in " + KeyAnalysisReport.duration(Duration.ofMillis(span))
                    + " of sample): a device is never split, so one partition's store holds it all and one instance "
                    + "serves it", "spread the device's readings over several device ids (one per sensor or line), "
                    + "shorten the raw lifecycle (tspipe.raw.retention.ms), or send fewer readings"));
        }
        skew(findings, ranked, skew, deviceSegment);
        double fairShare = ranked.isEmpty() ? 0 : (double) busiest / ranked.size();
        if (fairShare > 0 && share(busiestReadings) > HOT_FACTOR * fairShare) {
            Device first = ranked.get(0);
            findings.add(new Finding(Severity.WARNING, "hot-devices", deviceSegment, "the busiest 1% of devices ("
                    + busiest + " of " + count(ranked.size()) + ") hold " + KeyAnalysisReport.percent(share(busiestReadings))
                    + " of the readings, " + Math.round(share(busiestReadings) / fairShare) + " times their share if all "
                    + "were alike (" + quoted(first) + " alone " + KeyAnalysisReport.percent(share(first.readings))
                    + "): a device is never split, so its partition and the instance that owns it carry all of its load",
                    "spread the busiest devices' readings over several device ids (one per sensor or line), or have "
                            + "them send less often"));
        }
        monotonic(findings, ranked, span, deviceSegment);
        if (settings.layout().multiTenant()) {
            findings.addAll(tenantValues.findings(deviceSegment - 1));
        }
        findings.addAll(deviceValues.findings(deviceSegment));
        findings.addAll(metricValues.findings(deviceSegment + 1));
        if (longKeys > 0) {
            findings.add(new Finding(Severity.WARNING, "long-key", 0, count(longKeys) + " readings have row keys over "
                    + LONG_KEY_BYTES + " bytes (the longest " + longestKey + ": '" + abbreviated(longestKeyText) + "'): "
                    + "every row repeats its key, so it outweighs the value many times, in memory, on disk and in "
                    + "every index block", "keep device and metric ids short; map long names to short ids"));
        }
        findings.sort(Comparator.comparing((Finding f) -> f.severity() == Severity.ERROR ? 0 : 1));

        List<Long> perPartition = Arrays.stream(partitionReadings).boxed().toList();
        KeyAnalysisReport.KeyBytes keys = readings == 0 ? new KeyAnalysisReport.KeyBytes(0, 0, 0)
                : new KeyAnalysisReport.KeyBytes(shortestKey, (double) keyBytes / readings, longestKey);
        return new KeyAnalysisReport(readings, rejected, readings == 0 ? 0 : fromMillis, readings == 0 ? 0 : toMillis,
                ranked.size(), series.size(), busiest, share(busiestReadings), top, settings.lifecycle(), oversized.size(),
                largest, perPartition, skew, keys, findings);
    }

    /**
     * The busiest partition against the mean, and why it is busy: one device with most of its readings, too few
     * devices for the partitions, or else its busiest device.
     */
    private void skew(List<Finding> findings, List<Device> ranked, double skew, int deviceSegment) {
        if (skew <= SKEW_WARNING) {
            return;
        }
        int busiest = 0;
        for (int p = 1; p < partitionReadings.length; p++) {
            busiest = partitionReadings[p] > partitionReadings[busiest] ? p : busiest;
        }
        int partition = busiest;
        Device heaviest = ranked.stream().filter(d -> d.partition == partition).findFirst().orElseThrow();
        long empty = Arrays.stream(partitionReadings).filter(n -> n == 0).count();
        String cause;
        String fix;
        if (heaviest.readings * 2 > partitionReadings[partition]) {
            cause = quoted(heaviest) + " alone has " + KeyAnalysisReport.percent(share(heaviest.readings));
            fix = "spread the readings of " + quoted(heaviest) + " over several device ids (one per sensor or line), "
                    + "so that they go to several partitions";
        } else if (ranked.size() < 10L * settings.partitions()) {
            cause = "only " + ranked.size() + " devices for " + settings.partitions() + " partitions"
                    + (empty > 0 ? ", " + empty + " of them empty" : "");
            fix = "have many more devices than partitions (10 a partition or more), or fewer partitions";
        } else {
            cause = "its busiest device " + quoted(heaviest) + " has " + KeyAnalysisReport.percent(share(heaviest.readings));
            fix = "spread the busiest devices of partition " + partition + " over several device ids";
        }
        findings.add(new Finding(skew > SKEW_ERROR ? Severity.ERROR : Severity.WARNING, "partition-skew", deviceSegment,
                "partition " + partition + " of " + settings.partitions() + " takes " + String.format(Locale.ROOT,
                        "%.2f", skew) + " times the mean (" + KeyAnalysisReport.percent(share(partitionReadings[partition]))
                        + " of the readings; " + cause + "): a device is never split, so the instance that owns partition "
                        + partition + " works while others idle", fix));
    }

    /**
     * Ids that are numbers growing with time (order numbers, sessions): new ones keep appearing through the sample and
     * old ones go quiet, and the later a device first appears, the larger its number. Each new id's rows then land at
     * the end of its store's key range. Not a finding in salted layouts, whose hash prefix spreads them.
     */
    private void monotonic(List<Finding> findings, List<Device> ranked, long span, int deviceSegment) {
        if (settings.layout().salted() || span <= 0) {
            return;
        }
        List<Device> numbered = ranked.stream().filter(d -> {
            int digits = SegmentValues.trailingDigits(d.id.device());
            return digits > 0 && digits <= 18;
        }).toList();
        if (numbered.size() < MONOTONIC_MIN_DEVICES) {
            return;
        }
        double[] numbers = new double[numbered.size()];
        double[] arrivals = new double[numbered.size()];
        double[] lifetimes = new double[numbered.size()];
        for (int i = 0; i < numbered.size(); i++) {
            Device device = numbered.get(i);
            String id = device.id.device();
            numbers[i] = Long.parseLong(id.substring(id.length() - SegmentValues.trailingDigits(id)));
            arrivals[i] = device.firstSeen - fromMillis;
            lifetimes[i] = device.lastSeen - device.firstSeen;
        }
        double medianArrival = median(arrivals);
        double medianLifetime = median(lifetimes);
        double correlation = rankCorrelation(numbers, arrivals);
        if (correlation >= MONOTONIC_CORRELATION && medianArrival >= MONOTONIC_ARRIVAL * span
                && medianLifetime < MONOTONIC_ARRIVAL * span) {
            findings.add(new Finding(Severity.WARNING, "monotonic-ids", deviceSegment, numbered.size() + " of "
                    + count(ranked.size()) + " device ids are numbers that grow with time (rank correlation "
                    + String.format(Locale.ROOT, "%.2f", correlation) + " between an id's number and when it first "
                    + "appears; half of them appear after " + KeyAnalysisReport.percent(medianArrival / span) + " of the "
                    + "sample and are seen for " + KeyAnalysisReport.percent(medianLifetime / span) + " of it or less): "
                    + "each new id's rows land at the end of its store's key range",
                    "salt the keys (tspipe.keys.salted=true), or use ids that do not grow, such as a hash or a random UUID"));
        }
    }

    private static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        return sorted[sorted.length / 2];
    }

    /** Spearman's rank correlation: Pearson's over the ranks, ties given their mean rank; NaN when a side is constant. */
    static double rankCorrelation(double[] x, double[] y) {
        double[] rx = ranks(x);
        double[] ry = ranks(y);
        double mx = Arrays.stream(rx).average().orElse(0);
        double my = Arrays.stream(ry).average().orElse(0);
        double sxy = 0;
        double sxx = 0;
        double syy = 0;
        for (int i = 0; i < rx.length; i++) {
            sxy += (rx[i] - mx) * (ry[i] - my);
            sxx += (rx[i] - mx) * (rx[i] - mx);
            syy += (ry[i] - my) * (ry[i] - my);
        }
        return sxy / Math.sqrt(sxx * syy);
    }

    private static double[] ranks(double[] values) {
        Integer[] order = new Integer[values.length];
        Arrays.setAll(order, i -> i);
        Arrays.sort(order, Comparator.comparingDouble(i -> values[i]));
        double[] ranks = new double[values.length];
        for (int i = 0; i < order.length; ) {
            int j = i;
            while (j + 1 < order.length && values[order[j + 1]] == values[order[i]]) {
                j++;
            }
            for (int k = i; k <= j; k++) {
                ranks[order[k]] = (i + j) / 2.0;
            }
            i = j + 1;
        }
        return ranks;
    }

    private double share(long part) {
        return readings == 0 ? 0 : (double) part / readings;
    }

    /** An id as a report shows it: masked when it looks like personal data, which a report should not spread. */
    private static String shown(String id) {
        SegmentValues.PersonalData kind = id == null ? null : SegmentValues.PersonalData.of(id);
        return kind == null ? id : SegmentValues.masked(id, kind);
    }

    private static String quoted(Device device) {
        return "'" + KeyParts.printable(device.id.tenant() == null ? shown(device.id.device())
                : shown(device.id.tenant()) + "/" + shown(device.id.device())) + "'";
    }

    private static String count(long n) {
        return KeyAnalysisReport.count(n);
    }

    private static String abbreviated(String key) {
        return key.length() <= 60 ? key : key.substring(0, 40) + "..." + key.substring(key.length() - 19);
    }
}
