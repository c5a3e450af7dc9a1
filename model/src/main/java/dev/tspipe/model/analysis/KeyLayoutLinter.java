package dev.tspipe.model.analysis;

import dev.tspipe.model.keys.RowKey;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tspipe.model.analysis.KeyLayoutProposal.Kind;
import dev.tspipe.model.analysis.KeyLayoutProposal.Segment;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * Checks a proposed key layout against the key-design rules tspipe applies (docs/row-keys.md, "The rules" and
 * "Checking a layout"): one finding per broken rule, saying what is wrong, why it matters and the fix.
 */
public final class KeyLayoutLinter {

    public enum Severity {
        WARNING, ERROR;

        public String label() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /**
     * @param segment the segment it is about (1-based), or 0 for the layout as a whole
     * @param message what is wrong and why it matters
     * @param fix     what to do instead
     */
    public record Finding(Severity severity, String rule, int segment, String message, String fix) {
        public String line() {
            return String.format("%-7s %-24s %s — %s", severity.label(), rule, message, fix);
        }

        /** The finding as the fields of a JSON object: severity, rule, segment, message, fix. */
        public void writeTo(ObjectNode json) {
            json.put("severity", severity.label()).put("rule", rule).put("segment", segment).put("message", message)
                    .put("fix", fix);
        }
    }

    /** Azure Table storage's limit, which tspipe's row keys keep too. */
    public static final int MAX_KEY_BYTES = RowKey.MAX_KEY_BYTES;
    private static final Pattern PII_NAME = Pattern.compile(
            "(?i).*(e-?mail|phone|msisdn|ssn|social.?security|passport|iban|credit.?card).*");
    /** Something that looks like an e-mail address, anywhere in a text. */
    public static final Pattern EMAIL = Pattern.compile("[^@\\s]+@[^@\\s]+\\.[^@\\s]+");

    private KeyLayoutLinter() {
    }

    public static List<Finding> check(KeyLayoutProposal layout) {
        List<Finding> findings = new ArrayList<>();
        List<Segment> segments = layout.segments();
        int lead = 0;
        while (lead < segments.size() && segments.get(lead).kind() == Kind.HASH) {
            lead++;
        }
        boolean salted = lead > 0;
        if (lead < segments.size()) {
            Segment first = segments.get(lead);
            String where = "segment " + (lead + 1) + " (" + first.name() + ")";
            if (first.kind() == Kind.TIMESTAMP) {
                findings.add(new Finding(Severity.ERROR, "time-first", lead + 1, where + " is a timestamp: every write of "
                        + "a moment goes to one key range, so one partition takes them all and the others idle",
                        "lead with the device or another high-cardinality id; put the time last"));
            } else if (first.kind() == Kind.ENUM) {
                findings.add(new Finding(Severity.WARNING, "low-cardinality-first", lead + 1, where + " is an enum: its few "
                        + "values split the writes into few ranges, and the busiest value makes a hot one",
                        "lead with a high-cardinality id (the device), and put the enum after it"));
            } else if (first.kind() == Kind.ID && first.monotonic() && !salted) {
                findings.add(new Finding(Severity.ERROR, "monotonic-without-salt", lead + 1, where + " is a monotonic id "
                        + "without a salt prefix: consecutive ids are adjacent keys, so every new write lands at the end "
                        + "of the key space", "put a short hash of the id before it (a salt: {salt:hash:4})"));
            }
        }
        if (segments.stream().noneMatch(s -> s.kind() == Kind.ID)) {
            findings.add(new Finding(Severity.WARNING, "no-high-cardinality-id", 0, "no segment is an id: nothing with "
                    + "many distinct values spreads the writes", "lead with the device (or user, account) id"));
        }
        for (int i = 0; i < segments.size(); i++) {
            Segment s = segments.get(i);
            String where = "segment " + (i + 1) + " (" + s.name() + ")";
            if ((s.kind() == Kind.NUMBER || s.kind() == Kind.TIMESTAMP) && s.width() == null) {
                findings.add(new Finding(Severity.ERROR, "number-without-width", i + 1, where + " is a number without a "
                        + "fixed width: keys compare as text, so 54 sorts after 167 and ranges by number break",
                        s.kind() == Kind.TIMESTAMP ? "pad it with leading zeros to 19 digits, which hold any epoch-millisecond time"
                                : "pad it with leading zeros to the width of its largest value"));
            }
            if (s.kind() == Kind.HASH && i >= lead) {
                findings.add(new Finding(Severity.WARNING, "salt-not-first", i + 1, where + " is a hash after other "
                        + "segments: the segments before it already decide where a key goes, so it spreads nothing",
                        "put the salt first, or drop it"));
            }
            if (s.kind() == Kind.TIMESTAMP && !s.reversed() && i > lead) {
                findings.add(new Finding(Severity.WARNING, "timestamp-not-reversed", i + 1, where + " is not reversed: "
                        + "the newest row of a series sorts last, so reading the latest value scans the whole series",
                        "store 9223372036854775807 - epochMillis, 19 digits, so a forward scan starts at the newest"));
            }
            if (PII_NAME.matcher(s.name()).matches() || s.example() != null && EMAIL.matcher(s.example()).find()) {
                findings.add(new Finding(Severity.WARNING, "personal-data", i + 1, where + " looks like "
                        + (s.example() != null && EMAIL.matcher(s.example()).find() || s.name().toLowerCase(Locale.ROOT)
                        .contains("mail") ? "an e-mail address" : "personal data") + ": keys are copied into changelogs, "
                        + "logs and backups, and cannot be erased one by one",
                        "keep personal data out of keys; use an opaque id and keep the mapping elsewhere"));
            }
        }
        delimiter(layout, findings);
        keyLength(layout, findings);
        return findings;
    }

    /** The delimiter must sort below every character a segment followed by it can hold, or prefixes break. */
    private static void delimiter(KeyLayoutProposal layout, List<Finding> findings) {
        if (layout.segments().size() < 2) {
            return;
        }
        char delimiter = layout.delimiter().charAt(0);
        for (int i = 0; i < layout.segments().size() - 1; i++) {
            Segment s = layout.segments().get(i);
            char lowest = lowestCharacter(s.kind());
            if (delimiter > lowest) {
                findings.add(new Finding(Severity.ERROR, "delimiter-not-lowest", i + 1, String.format("delimiter '%c' "
                        + "(0x%02X) sorts above '%c' (0x%02X), which segment %d (%s) can hold: a key whose segment is a "
                        + "prefix of another's ('a1' and 'a10') no longer sorts before it, and a prefix scan of 'a1%c' "
                        + "misses or takes the wrong rows", delimiter, (int) delimiter, lowest, (int) lowest, i + 1,
                        s.name(), delimiter), "use a delimiter below every character of the segments, such as '#' (0x23), "
                        + "and escape the few characters below it (tspipe writes them as %XX)"));
                return;
            }
        }
    }

    /** The lowest character a segment of the kind holds: digits for numbers, hex for hashes, [-.0-9A-Z_a-z] for ids. */
    private static char lowestCharacter(Kind kind) {
        return switch (kind) {
            case NUMBER, TIMESTAMP, HASH -> '0';
            case ID, ENUM -> '-';
        };
    }

    private static void keyLength(KeyLayoutProposal layout, List<Finding> findings) {
        if (layout.segments().stream().anyMatch(s -> s.width() == null)) {
            return;
        }
        int bytes = layout.segments().stream().mapToInt(Segment::width).sum() + layout.segments().size() - 1;
        if (bytes > MAX_KEY_BYTES) {
            findings.add(new Finding(Severity.ERROR, "key-too-long", 0, "the key is " + bytes + " bytes: more than the "
                    + MAX_KEY_BYTES + " that Azure Table storage takes and tspipe's keys keep; long keys cost memory in "
                    + "every index block", "shorten the widest segments, or hash a long one"));
        }
    }

    /** 0 without findings, 1 with warnings only, 2 with an error. */
    public static int exitCode(List<Finding> findings) {
        if (findings.stream().anyMatch(f -> f.severity() == Severity.ERROR)) {
            return 2;
        }
        return findings.isEmpty() ? 0 : 1;
    }

    /** The word for {@link #exitCode}: clean, warnings or errors. */
    public static String verdict(List<Finding> findings) {
        return switch (exitCode(findings)) {
            case 0 -> "clean";
            case 1 -> "warnings";
            default -> "errors";
        };
    }
}
