package dev.tspipe.app;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tspipe.ingest.DeviceTopic;
import dev.tspipe.query.series.DeviceAnswer;
import dev.tspipe.schemas.Device;
import dev.tspipe.model.devices.DeviceKeys;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

import java.io.UncheckedIOException;
import java.util.concurrent.Callable;

/** {@code tspipe devices get}: one device, as JSON, read from the topic. */
@Command(
        name = "get",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        usageHelpAutoWidth = true,
        header = "Show one device as JSON.",
        description = {
                "",
                "Reads the devices topic from its start (no node needed) and prints the device's newest version, in the "
                        + "shape of GET /api/v1/devices/{device}. Exit code 4 when there is no such device.",
                ""
        },
        footerHeading = "%nExamples:%n",
        footer = {"  tspipe devices get press-1", "  tspipe devices get press-1 --tenant acme"})
final class DevicesGetCommand implements Callable<Integer> {

    /** Exit code when the device is not in the topic. */
    static final int EXIT_UNKNOWN = 4;
    static final ObjectMapper JSON = new ObjectMapper();

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
        Device device = devices.with(DeviceTopic::readAll).get(key);
        if (device == null) {
            spec.commandLine().getErr().println("tspipe: no device '" + key + "' in topic '" + devices.topic + "'");
            return EXIT_UNKNOWN;
        }
        spec.commandLine().getOut().println(json(device));
        return 0;
    }

    static String json(Device device) {
        try {
            return JSON.writeValueAsString(DeviceAnswer.of(device));
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }
}
