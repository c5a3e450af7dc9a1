package dev.tspipe.app;

import dev.tspipe.model.keys.KeyLayout;
import dev.tspipe.model.keys.MalformedKeyException;
import dev.tspipe.model.keys.RowKey;
import dev.tspipe.model.keys.SeriesId;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.concurrent.Callable;

/**
 * {@code tspipe keys decode}: the parts of a row key. The layout is read off the key: a key has
 * no {@code #} inside its segments, so 2 delimiters mean {@code device#metric#ts} and 3 mean
 * {@code tenant#device#metric#ts} (one more each with a salt, which the user states).
 */
@Command(
        name = "decode",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        usageHelpAutoWidth = true,
        header = "Print the parts of a row key.",
        description = {
                "",
                "Whether the key has a tenant is read off the key: two '#' mean device#metric#reversedTimestamp, "
                        + "three mean tenant#device#metric#reversedTimestamp. A salt cannot be told from a tenant "
                        + "by its looks, so say --salted for keys of a salted deployment; the salt is then checked "
                        + "against the device. Quote the key in the shell if it contains characters the shell "
                        + "interprets. A key that is not valid is reported with the byte offset where it goes wrong.",
                ""
        },
        footerHeading = "%nExamples:%n",
        footer = {
                "  tspipe keys decode 'sensor-1#temp#9223370336854775807'",
                "  tspipe keys decode 'acme#sensor-1#temp#9223370336854775807'",
                "  tspipe keys decode --salted 'ebf1#sensor-1#temp#9223372036854775807'"
        })
final class KeysDecodeCommand implements Callable<Integer> {

    @Parameters(index = "0", paramLabel = "KEY", description = "The row key, as text.")
    String key;

    @Option(names = "--salted", description = "The key starts with a salt (a salted deployment's key).")
    boolean salted;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        // Keys are ASCII; UTF-8 makes any other character a byte the codec reports with its offset.
        byte[] bytes = key.getBytes(StandardCharsets.UTF_8);
        KeyLayout layout = detectLayout(bytes, salted);
        RowKey rowKey;
        try {
            rowKey = RowKey.fromBytes(bytes, layout);
        } catch (MalformedKeyException e) {
            throw new UserError(e.getMessage());
        }
        KeyParts.print(spec.commandLine().getOut(), bytes, layout, rowKey);
        if (!salted && tenantIsTheSalt(bytes, rowKey)) {
            spec.commandLine().getErr().printf("note: the tenant '%s' is the salt of device '%s'; if this is a salted "
                    + "key, decode it with --salted%n", rowKey.series().tenant(), rowKey.series().device());
        }
        return 0;
    }

    /**
     * Multi-tenant when the key has at least the delimiters of a multi-tenant key: a key with more
     * then fails to decode at the surplus segment, and one with fewer at the missing one, each with
     * the codec's message and offset.
     */
    static KeyLayout detectLayout(byte[] key, boolean salted) {
        int delimiters = 0;
        for (byte b : key) {
            if (b == RowKey.DELIMITER) {
                delimiters++;
            }
        }
        return new KeyLayout(delimiters >= (salted ? 4 : 3), salted);
    }

    private static boolean tenantIsTheSalt(byte[] key, RowKey decoded) {
        SeriesId series = decoded.series();
        if (series.tenant() == null) {
            return false;
        }
        byte[] asSalted = RowKey.encode(KeyLayout.DEFAULT.withSalt(), SeriesId.of(series.device(), series.metric()),
                decoded.epochMillis());
        return Arrays.equals(asSalted, key);
    }
}
