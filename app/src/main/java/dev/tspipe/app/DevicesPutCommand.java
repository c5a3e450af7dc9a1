package dev.tspipe.app;

import dev.tspipe.schemas.Device;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;

/** {@code tspipe devices put}: writes one device, replacing its previous version. */
@Command(
        name = "put",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        usageHelpAutoWidth = true,
        header = "Add a device, or replace it.",
        description = {
                "",
                "Writes the whole device: what is not given is not set (a put replaces the previous version; it does not "
                        + "merge with it). Every node has it within moments.",
                ""
        },
        footerHeading = "%nExamples:%n",
        footer = {
                "  tspipe devices put press-1 --site plant-1 --type press --label line=3 --label firmware=2.1",
                "  tspipe devices put press-1 --tenant acme --site berlin"
        })
final class DevicesPutCommand implements Callable<Integer> {

    @Parameters(paramLabel = "ID", description = "The device id, as its readings name it.")
    String id;

    @Option(names = "--site", paramLabel = "SITE", description = "Where the device is, e.g. plant-1.")
    String site;

    @Option(names = "--type", paramLabel = "TYPE", description = "What kind of device it is, e.g. press.")
    String type;

    @Option(names = "--label", paramLabel = "NAME=VALUE", description = "A label; repeat for more.")
    Map<String, String> labels = new LinkedHashMap<>();

    @Option(names = "--tenant", paramLabel = "TENANT", description = "The device's tenant (multi-tenant deployments).")
    String tenant;

    @Option(names = "--registered", paramLabel = "TIME", converter = EpochMillisConverter.class,
            description = "When it was registered: epoch milliseconds or ISO-8601 (default: now).")
    Long registered;

    @Mixin
    DevicesTopicOptions devices;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        if (id.isBlank()) {
            throw new UserError("the device id is empty");
        }
        if (labels.keySet().stream().anyMatch(String::isEmpty)) {
            throw new UserError("--label needs a name: --label NAME=VALUE");
        }
        Device device = Device.newBuilder().setId(id).setTenant(tenant).setSite(site).setType(type).setLabels(labels)
                .setRegistered(registered == null ? Instant.now() : Instant.ofEpochMilli(registered)).build();
        devices.with(topic -> {
            topic.put(device);
            return null;
        });
        spec.commandLine().getOut().println("Put device " + device.getId() + " into topic '" + devices.topic + "'");
        return 0;
    }
}
