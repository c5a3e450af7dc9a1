package dev.tspipe.app;

import picocli.CommandLine.Command;
import picocli.CommandLine;

/** {@code tspipe keys}: the row-key codec on the command line, to build a key for a scan or read one from a store. */
@Command(
        name = "keys",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        usageHelpAutoWidth = true,
        header = "Encode and decode tspipe row keys; check a proposed key layout; analyze real keys.",
        description = {
                "",
                "A row key is [salt#][tenant#]device#metric#reversedTimestamp, where reversedTimestamp is the 19 "
                        + "digits of 9223372036854775807 - epochMillis, so that the newest reading of a series sorts "
                        + "first. Bytes of a segment outside 0x24-0x7E, and '%%', are written as %%XX, so keys are "
                        + "printable ASCII and '#' only ever separates segments.",
                ""
        },
        commandListHeading = "%nCommands:%n",
        footerHeading = "%nExamples:%n",
        footer = {
                "  tspipe keys encode sensor-1 temp 1700000000000",
                "  tspipe keys encode sensor-1 temp 2023-11-14T22:13:20Z --tenant acme --salted",
                "  tspipe keys decode 'sensor-1#temp#9223370336854775807'",
                "  tspipe keys check '{device:id}#{metric:enum}#{ts:timestamp:19:reversed}'",
                "  tspipe keys analyze --topic readings --sample 100000"
        },
        subcommands = {
                KeysEncodeCommand.class,
                KeysDecodeCommand.class,
                KeysCheckCommand.class,
                KeysAnalyzeCommand.class
        })
final class KeysCommand implements Runnable {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }

    /** The {@code --format} of the key commands: {@code text} or {@code json}; anything else is the user's error. */
    static boolean json(String format) {
        if (!format.equals("text") && !format.equals("json")) {
            throw new UserError("--format must be text or json, not '" + format + "'");
        }
        return format.equals("json");
    }
}
