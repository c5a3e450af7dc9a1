package dev.tspipe.bench.faults;

import java.util.ArrayList;
import java.util.List;

/** One series of the load: a device, a metric and how the device's records are placed. */
public record Series(int index, String device, String metric, Placement placement) {

    private static final List<String> METRICS = List.of("temperature", "humidity", "pressure", "voltage", "current",
            "rpm", "co2", "noise");

    /** {@code devices x metrics} series, device by device; devices {@code fault-000, fault-001, ...}. */
    public static List<Series> all(int devices, int metrics) {
        List<Series> series = new ArrayList<>();
        for (int d = 0; d < devices; d++) {
            for (int m = 0; m < metrics; m++) {
                String metric = m < METRICS.size() ? METRICS.get(m) : "metric-" + m;
                series.add(new Series(series.size(), String.format("fault-%03d", d), metric, Placement.ofDevice(d)));
            }
        }
        return List.copyOf(series);
    }
}
