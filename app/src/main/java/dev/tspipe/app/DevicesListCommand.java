package dev.tspipe.app;

import dev.tspipe.ingest.DeviceTopic;
import dev.tspipe.model.devices.DeviceFilter;
import dev.tspipe.schemas.Device;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;

/** {@code tspipe devices list}: the devices a filter picks, read from the topic. */
@Command(
        name = "list",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        usageHelpAutoWidth = true,
        header = "List devices, filtered by site, type, tenant and labels.",
        description = {
                "",
                "Reads the devices topic from its start (no node needed). The filters are exact and all must hold, as in "
                        + "GET /api/v1/devices. Sorted by id.",
                ""
        },
        footerHeading = "%nExamples:%n",
        footer = {
                "  tspipe devices list",
                "  tspipe devices list --site plant-1 --type press --label line=3",
                "  tspipe devices list --format json     one JSON object per line (importable with tspipe devices import)"
        })
final class DevicesListCommand implements Callable<Integer> {

    enum Format { table, json }

    @Option(names = "--site", paramLabel = "SITE", description = "Only devices of this site.")
    String site;

    @Option(names = "--type", paramLabel = "TYPE", description = "Only devices of this type.")
    String type;

    @Option(names = "--tenant", paramLabel = "TENANT", description = "Only devices of this tenant.")
    String tenant;

    @Option(names = "--label", paramLabel = "NAME=VALUE", description = "Only devices with this label value; repeat for more.")
    Map<String, String> labels = new LinkedHashMap<>();

    @Option(names = "--format", paramLabel = "table|json", defaultValue = "table",
            description = "A table, or one JSON object per line (default: ${DEFAULT-VALUE}).")
    Format format;

    @Mixin
    DevicesTopicOptions devices;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        DeviceFilter filter = new DeviceFilter(site, type, tenant, labels);
        List<Device> picked = devices.with(DeviceTopic::readAll).values().stream().filter(filter::matches)
                .sorted(Comparator.comparing(Device::getId).thenComparing(Device::getTenant,
                        Comparator.nullsFirst(Comparator.naturalOrder())))
                .toList();
        PrintWriter out = spec.commandLine().getOut();
        if (format == Format.json) {
            picked.forEach(device -> out.println(DevicesGetCommand.json(device)));
            return 0;
        }
        List<String[]> rows = new java.util.ArrayList<>();
        rows.add(new String[] {"ID", "TENANT", "SITE", "TYPE", "LABELS"});
        for (Device device : picked) {
            rows.add(new String[] {device.getId(), orDash(device.getTenant()), orDash(device.getSite()), orDash(device.getType()),
                    device.getLabels().entrySet().stream().sorted(Map.Entry.comparingByKey())
                            .map(e -> e.getKey() + "=" + e.getValue()).collect(Collectors.joining(";"))});
        }
        int[] widths = new int[4];
        rows.forEach(row -> {
            for (int i = 0; i < widths.length; i++) {
                widths[i] = Math.max(widths[i], row[i].length());
            }
        });
        for (String[] row : rows) {
            StringBuilder line = new StringBuilder();
            for (int i = 0; i < widths.length; i++) {
                line.append(String.format("%-" + widths[i] + "s  ", row[i]));
            }
            out.println(line.append(row[4]).toString().stripTrailing());
        }
        out.println(picked.size() + " device" + (picked.size() == 1 ? "" : "s"));
        return 0;
    }

    private static String orDash(String value) {
        return value == null ? "-" : value;
    }
}
