package dev.tspipe.app;

import dev.tspipe.ingest.influx.InfluxMapping;
import dev.tspipe.ingest.prometheus.RemoteWrite;
import picocli.CommandLine.Option;

import java.util.List;

/**
 * How the node's HTTP writes name devices and metrics (docs/ingest.md): the tags of line protocol and the labels of
 * remote-write that name the device, and whether a line-protocol metric starts with its measurement.
 */
final class WriteMappingOptions {

    @Option(names = "--influx-device-tags", paramLabel = "TAGS", split = ",", defaultValue = "device,host",
            description = "Line protocol: the tags that name a point's device, tried in order (default: ${DEFAULT-VALUE}).")
    List<String> influxDeviceTags;

    @Option(names = "--influx-metric", paramLabel = "FORM", defaultValue = "measurement.field",
            description = "Line protocol: a field's metric is measurement.field or field (default: ${DEFAULT-VALUE}).")
    String influxMetric;

    @Option(names = "--remote-write-device-labels", paramLabel = "LABELS", split = ",", defaultValue = "instance,job",
            description = "Prometheus remote-write: the labels that name a series' device, tried in order "
                    + "(default: ${DEFAULT-VALUE}).")
    List<String> remoteWriteDeviceLabels;

    InfluxMapping influx() {
        if (!influxMetric.equals("measurement.field") && !influxMetric.equals("field")) {
            throw new UserError("--influx-metric must be measurement.field or field, not '" + influxMetric + "'");
        }
        return new InfluxMapping(names("--influx-device-tags", influxDeviceTags), influxMetric.equals("measurement.field"));
    }

    RemoteWrite remoteWrite() {
        return new RemoteWrite(names("--remote-write-device-labels", remoteWriteDeviceLabels));
    }

    private static List<String> names(String option, List<String> names) {
        List<String> trimmed = names.stream().map(String::strip).toList();
        if (trimmed.isEmpty() || trimmed.stream().anyMatch(String::isEmpty)) {
            throw new UserError(option + " takes names separated by commas, such as device,host; it was '"
                    + String.join(",", names) + "'");
        }
        return trimmed;
    }
}
