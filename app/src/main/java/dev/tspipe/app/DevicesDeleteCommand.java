package dev.tspipe.app;

import dev.tspipe.model.devices.DeviceKeys;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import java.util.concurrent.Callable;

/** {@code tspipe devices delete}: a tombstone for one device. */
@Command(
        name = "delete",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        usageHelpAutoWidth = true,
        header = "Delete a device.",
        description = {
                "",
                "Writes a tombstone for the device: every node drops it within moments, and the topic's compaction "
                        + "removes its versions later. Its readings are kept. Deleting a device that is not there does no harm.",
                ""
        },
        footerHeading = "%nExamples:%n",
        footer = {"  tspipe devices delete press-1"})
final class DevicesDeleteCommand implements Callable<Integer> {

    @Parameters(paramLabel = "ID", description = "The device id.")
    String id;

    @Option(names = "--tenant", paramLabel = "TENANT", description = "The device's tenant (multi-tenant deployments).")
    String tenant;

    @Mixin
    DevicesTopicOptions devices;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        String key = DeviceKeys.keyOf(tenant, id);
        devices.with(topic -> {
            topic.delete(key);
            return null;
        });
        spec.commandLine().getOut().println("Deleted device " + key + " from topic '" + devices.topic + "'");
        return 0;
    }
}
