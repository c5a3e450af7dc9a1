package dev.tspipe.app;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tspipe.model.analysis.KeyLayoutLinter;
import dev.tspipe.model.keys.DistributionKey;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalLong;

/**
 * What {@link KeyAnalysis} found in a sample of readings, and its two forms: text for people, JSON for tools
 * (docs/row-keys.md, "Analyzing real keys"). Shares are fractions of the accepted readings (0.5 is half).
 *
 * @param readings           readings the pipeline would store; everything below is about them
 * @param rejected           records or lines it would not store, by reason code ({@code key-too-long},
 *                           {@code invalid-line}, ...)
 * @param fromMillis         the oldest reading timestamp, or 0 without readings
 * @param toMillis           the newest
 * @param devices            distinct devices ({@code tenant/device} in multi-tenant layouts)
 * @param series             distinct series
 * @param busiestDevices     how many devices are the busiest 1% (rounded up)
 * @param busiestShare       their share of the readings
 * @param topDevices         the busiest devices, most readings first
 * @param lifecycle          the raw lifecycle that projections are scaled to
 * @param devicesOverLimit   devices projected over {@link KeyAnalysis#DEVICE_BYTES_LIMIT}; 0 without a projection
 * @param largestProjection  the largest projected bytes of a device; empty when the span is too short to project
 * @param partitionReadings  readings per partition, by partition number, as {@code DevicePartitioner} places devices
 * @param skew               readings of the busiest partition over the mean of all; 0 without readings
 * @param keyBytes           the shortest, mean and longest row key
 * @param findings           the broken rules, errors first
 */
record KeyAnalysisReport(long readings, Map<String, Long> rejected, long fromMillis, long toMillis, long devices,
                         long series, int busiestDevices, double busiestShare, List<Device> topDevices,
                         Duration lifecycle, long devicesOverLimit, OptionalLong largestProjection,
                         List<Long> partitionReadings, double skew, KeyBytes keyBytes,
                         List<KeyLayoutLinter.Finding> findings) {

    /**
     * One device.
     *
     * @param tenant     its tenant, or null
     * @param bytes      bytes of its rows in the sample: row key and value, as the store keeps them
     * @param projection its bytes over the lifecycle; empty when the span is too short to project
     */
    record Device(String tenant, String device, long readings, double share, int partition, long bytes,
                  OptionalLong projection) {

        String name() {
            return DistributionKey.of(tenant, device);
        }
    }

    /** Row-key lengths in bytes; all 0 without readings. */
    record KeyBytes(int min, double mean, int max) {
    }

    /**
     * Where the readings came from.
     *
     * @param kind     topic or file
     * @param name     the topic's name or the file's path
     * @param sampling newest (the newest records of the topic), first (the first lines of the file) or all
     */
    record Source(String kind, String name, String sampling) {

        String describe() {
            String what = kind.equals("topic") ? "topic '" + name + "'" : name;
            return switch (sampling) {
                case "newest" -> "the newest of " + what;
                case "first" -> "the first of " + what;
                default -> "all of " + what;
            };
        }
    }

    KeyAnalysisReport {
        rejected = Map.copyOf(rejected);
        topDevices = List.copyOf(topDevices);
        partitionReadings = List.copyOf(partitionReadings);
        findings = List.copyOf(findings);
    }

    long rejectedTotal() {
        return rejected.values().stream().mapToLong(Long::longValue).sum();
    }

    /** The report as lines of text: the figures, the top devices, one line per finding and the verdict. */
    String text(Source source) {
        List<String> lines = new ArrayList<>();
        line(lines, "sample", count(readings) + " readings: " + source.describe()
                + (rejected.isEmpty() ? "" : "; not stored: " + rejectedText()));
        line(lines, "time span", Instant.ofEpochMilli(fromMillis) + " to " + Instant.ofEpochMilli(toMillis) + " ("
                + duration(Duration.ofMillis(toMillis - fromMillis)) + ")");
        line(lines, "devices", count(devices) + ", " + count(series) + " series (" + String.format(Locale.ROOT, "%.1f",
                devices == 0 ? 0.0 : (double) series / devices) + " per device)");
        line(lines, "busiest 1%", busiestDevices + (busiestDevices == 1 ? " device holds " : " devices hold ")
                + percent(busiestShare) + " of the readings (" + percent(devices == 0 ? 0 : (double) busiestDevices / devices)
                + " if all were alike)");
        line(lines, "partitions", partitionReadings.size() + " (murmur2 of the device, as tspipe places it): busiest/mean "
                + String.format(Locale.ROOT, "%.2f", skew) + "; readings " + String.join(" ",
                partitionReadings.stream().map(KeyAnalysisReport::count).toList()));
        line(lines, "keys", keyBytes.min() + " to " + keyBytes.max() + " bytes, mean "
                + String.format(Locale.ROOT, "%.1f", keyBytes.mean()));
        line(lines, "volume", largestProjection.isEmpty()
                ? "not projected: the sample spans less than " + duration(Duration.ofMillis(KeyAnalysis.MIN_SPAN_MILLIS))
                : "the largest device ~" + bytes(largestProjection.getAsLong()) + " over the " + duration(lifecycle)
                + " lifecycle (row keys and values, scaled from the time span); guideline "
                + bytes(KeyAnalysis.DEVICE_BYTES_LIMIT) + " a device" + (devicesOverLimit == 0 ? ""
                : ", " + devicesOverLimit + " over it"));
        if (!topDevices.isEmpty()) {
            lines.add("");
            int width = Math.max("top devices".length(), topDevices.stream().mapToInt(d -> KeyParts.printable(d.name())
                    .length()).max().orElse(0));
            String format = "%-" + width + "s  %10s  %7s  %9s  %s";
            lines.add(String.format(Locale.ROOT, format, "top devices", "readings", "share", "partition",
                    "~bytes/" + duration(lifecycle)));
            for (Device device : topDevices) {
                lines.add(String.format(Locale.ROOT, format, KeyParts.printable(device.name()), count(device.readings()),
                        percent(device.share()), device.partition(),
                        device.projection().isPresent() ? bytes(device.projection().getAsLong()) : "-"));
            }
        }
        lines.add("");
        findings.forEach(finding -> lines.add(finding.line()));
        long errors = findings.stream().filter(f -> f.severity() == KeyLayoutLinter.Severity.ERROR).count();
        lines.add(findings.isEmpty() ? "clean: the sampled keys keep every rule checked (docs/row-keys.md)"
                : KeyLayoutLinter.verdict(findings) + ": " + errors + " error(s), " + (findings.size() - errors)
                + " warning(s)");
        return String.join("\n", lines) + "\n";
    }

    /** The report as one JSON object (docs/row-keys.md, "Analyzing real keys", has its fields). */
    ObjectNode json(Source source) {
        ObjectNode json = JsonNodeFactory.instance.objectNode();
        json.put("verdict", KeyLayoutLinter.verdict(findings));
        json.putObject("source").put("kind", source.kind()).put("name", source.name()).put("sampling", source.sampling());
        json.put("readings", readings);
        ObjectNode rejections = json.putObject("rejected");
        rejected.entrySet().stream().sorted(Map.Entry.comparingByKey())
                .forEach(entry -> rejections.put(entry.getKey(), entry.getValue()));
        json.putObject("timeSpan").put("from", Instant.ofEpochMilli(fromMillis).toString())
                .put("to", Instant.ofEpochMilli(toMillis).toString()).put("millis", toMillis - fromMillis);
        json.put("devices", devices);
        json.put("series", series);
        json.putObject("busiest").put("devices", busiestDevices).put("share", busiestShare);
        ArrayNode top = json.putArray("topDevices");
        for (Device device : topDevices) {
            ObjectNode node = top.addObject().put("tenant", device.tenant()).put("device", device.device())
                    .put("readings", device.readings()).put("share", device.share()).put("partition", device.partition())
                    .put("bytes", device.bytes());
            if (device.projection().isPresent()) {
                node.put("projectedBytes", device.projection().getAsLong());
            } else {
                node.putNull("projectedBytes");
            }
        }
        ObjectNode volume = json.putObject("volume").put("lifecycle", lifecycle.toString())
                .put("lifecycleMillis", lifecycle.toMillis()).put("limitBytes", KeyAnalysis.DEVICE_BYTES_LIMIT)
                .put("devicesOverLimit", devicesOverLimit);
        if (largestProjection.isPresent()) {
            volume.put("largestProjectedBytes", largestProjection.getAsLong());
        } else {
            volume.putNull("largestProjectedBytes");
        }
        ObjectNode partitions = json.putObject("partitions").put("count", partitionReadings.size()).put("skew", skew);
        partitionReadings.forEach(partitions.putArray("readings")::add);
        json.putObject("keyBytes").put("min", keyBytes.min()).put("mean", keyBytes.mean()).put("max", keyBytes.max());
        ArrayNode list = json.putArray("findings");
        findings.forEach(finding -> finding.writeTo(list.addObject()));
        return json;
    }

    private String rejectedText() {
        return count(rejectedTotal()) + " (" + String.join(", ", rejected.entrySet().stream().sorted(Map.Entry.comparingByKey())
                .map(entry -> entry.getKey() + " " + count(entry.getValue())).toList()) + ")";
    }

    private static void line(List<String> lines, String label, String value) {
        lines.add(String.format("%-11s  %s", label, value));
    }

    static String count(long n) {
        return String.format(Locale.ROOT, "%,d", n);
    }

    static String percent(double share) {
        return String.format(Locale.ROOT, "%.1f%%", share * 100);
    }

    /** Bytes in decimal units, as the 10 GB guideline is written: 950 B, 12.3 kB, 4.0 GB. */
    static String bytes(long bytes) {
        String[] units = {"B", "kB", "MB", "GB", "TB", "PB"};
        double value = bytes;
        int unit = 0;
        while (value >= 1000 && unit < units.length - 1) {
            value /= 1000;
            unit++;
        }
        if (unit == 0) {
            return bytes + " B";
        }
        return String.format(Locale.ROOT, value == Math.rint(value) ? "%.0f %s" : "%.1f %s", value, units[unit]);
    }

    /** A duration in its two largest units, as the options take them: 7d, 2d 3h, 50m 12s, 1.5s. */
    static String duration(Duration duration) {
        long millis = duration.toMillis();
        long[] sizes = {86_400_000L, 3_600_000L, 60_000L, 1_000L};
        String[] units = {"d", "h", "m", "s"};
        for (int i = 0; i < sizes.length - 1; i++) {
            if (millis >= sizes[i]) {
                long rest = (millis % sizes[i]) / sizes[i + 1];
                return millis / sizes[i] + units[i] + (rest == 0 ? "" : " " + rest + units[i + 1]);
            }
        }
        return millis % 1000 == 0 ? millis / 1000 + "s" : millis >= 1000
                ? String.format(Locale.ROOT, "%.1fs", millis / 1000.0) : millis + "ms";
    }
}
