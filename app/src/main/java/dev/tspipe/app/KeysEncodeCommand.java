package dev.tspipe.app;

import dev.tspipe.model.keys.InvalidKeyException;
import dev.tspipe.model.keys.KeyLayout;
import dev.tspipe.model.keys.RowKey;
import dev.tspipe.model.keys.SeriesId;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine;

import java.util.concurrent.Callable;

/** {@code tspipe keys encode}: the row key of a reading, from its parts. */
@Command(
        name = "encode",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        usageHelpAutoWidth = true,
        header = "Print the row key of a reading, and its parts.",
        description = {
                "",
                "The key is the one tspipe stores the reading under: tenant#device#metric#reversedTimestamp with "
                        + "--tenant, device#metric#reversedTimestamp without; --salted puts the 4-character hash "
                        + "prefix of the device in front.",
                ""
        },
        footerHeading = "%nExamples:%n",
        footer = {
                "  tspipe keys encode sensor-1 temp 1700000000000",
                "  tspipe keys encode sensor-1 temp 2023-11-14T22:13:20Z        # the same key",
                "  tspipe keys encode 'Café 1' temp 0 --tenant acme --salted"
        })
final class KeysEncodeCommand implements Callable<Integer> {

    @Parameters(index = "0", paramLabel = "DEVICE", description = "The device id (non-empty).")
    String device;

    @Parameters(index = "1", paramLabel = "METRIC", description = "What is measured, e.g. temperature (non-empty).")
    String metric;

    @Parameters(index = "2", paramLabel = "TIME", converter = EpochMillisConverter.class,
            description = "When: epoch milliseconds (1700000000000) or an ISO-8601 instant (2023-11-14T22:13:20Z).")
    long epochMillis;

    @Option(names = "--tenant", paramLabel = "TENANT",
            description = "The tenant, for a multi-tenant deployment's key (default: single-tenant, no tenant).")
    String tenant;

    @Option(names = "--salted", description = "Encode for a deployment with salted keys.")
    boolean salted;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        KeyLayout layout = new KeyLayout(tenant != null, salted);
        RowKey rowKey = RowKey.of(new SeriesId(tenant, device, metric), epochMillis);
        byte[] key;
        try {
            key = rowKey.toBytes(layout);
        } catch (InvalidKeyException e) {
            throw new UserError(e.getMessage());
        }
        KeyParts.print(spec.commandLine().getOut(), key, layout, rowKey);
        return 0;
    }
}
