package dev.tspipe.app;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tspipe.model.analysis.InvalidLayoutException;
import dev.tspipe.model.analysis.KeyLayoutLinter;
import dev.tspipe.model.analysis.KeyLayoutProposal;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;

/** {@code tspipe keys check}: a proposed key layout against the key-design rules (docs/row-keys.md, "Checking a layout"). */
@Command(
        name = "check",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        usageHelpAutoWidth = true,
        header = "Check a proposed row-key layout against the key-design rules.",
        description = {
                "",
                "LAYOUT is written as the key looks, each segment in braces and the delimiter between them: "
                        + "{name:kind[:width][:reversed][:monotonic][:example=VALUE]}, kind one of id, enum, number, "
                        + "timestamp, hash. Or JSON: {\"delimiter\": \"#\", \"segments\": [{\"name\": \"device\", "
                        + "\"kind\": \"id\"}, ...]}. LAYOUT may also be the name of a file that holds either.",
                "",
                "Each finding names its rule, what is wrong, why it matters and the fix. Exit code: 0 when the layout "
                        + "keeps every rule, 1 with warnings only, 2 with an error.",
                ""
        },
        footerHeading = "%nExamples:%n",
        footer = {
                "  tspipe keys check '{device:id}#{metric:enum}#{ts:timestamp:19:reversed}'     (tspipe's own: clean)",
                "  tspipe keys check '{ts:timestamp}:{device:id}'",
                "  tspipe keys check layout.json --format json"
        })
final class KeysCheckCommand implements Callable<Integer> {

    @Parameters(index = "0", paramLabel = "LAYOUT", description = "The layout, or a file that holds it.")
    String layout;

    @Option(names = "--format", paramLabel = "FORMAT", defaultValue = "text",
            description = "text (a finding a line) or json (default: ${DEFAULT-VALUE}).")
    String format;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws IOException {
        boolean asJson = KeysCommand.json(format);
        String text = layout;
        Path file = Path.of(layout.length() < 4096 && !layout.contains("\0") ? layout : ".");
        if (!layout.strip().startsWith("{") && Files.isRegularFile(file)) {
            text = Files.readString(file);
        }
        KeyLayoutProposal proposal;
        try {
            proposal = KeyLayoutProposal.parse(text);
        } catch (InvalidLayoutException e) {
            throw new UserError(e.getMessage());
        }
        List<KeyLayoutLinter.Finding> findings = KeyLayoutLinter.check(proposal);
        int exit = KeyLayoutLinter.exitCode(findings);
        PrintWriter out = spec.commandLine().getOut();
        if (asJson) {
            ObjectMapper json = new ObjectMapper();
            ObjectNode answer = json.createObjectNode();
            answer.put("verdict", KeyLayoutLinter.verdict(findings));
            ArrayNode list = answer.putArray("findings");
            findings.forEach(finding -> finding.writeTo(list.addObject()));
            out.println(json.writerWithDefaultPrettyPrinter().writeValueAsString(answer));
        } else {
            findings.forEach(finding -> out.println(finding.line()));
            long errors = findings.stream().filter(f -> f.severity() == KeyLayoutLinter.Severity.ERROR).count();
            out.println(findings.isEmpty() ? "clean: the layout keeps every rule checked (docs/row-keys.md)"
                    : errors + " error(s), " + (findings.size() - errors) + " warning(s)");
        }
        out.flush();
        return exit;
    }
}
