package dev.tspipe.app;

import dev.tspipe.model.analysis.KeyLayoutLinter.Finding;
import dev.tspipe.model.analysis.KeyLayoutLinter.Severity;
import dev.tspipe.model.analysis.KeyLayoutLinter;
import dev.tspipe.model.keys.RowKey;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The distinct values of one key segment (tenant, device or metric) seen in a sample, and what they show about
 * the key rules of docs/row-keys.md: personal data (rule 6), the delimiter or other characters tspipe escapes
 * (rule 3a, 3c and "Decisions"), numbers of varying width (rule 3b). Part of {@link KeyAnalysis}; pure.
 */
final class SegmentValues {

    /** Kinds of personal data an id can be, checked in this order; each with its name in a finding. */
    enum PersonalData {
        EMAIL("e-mail addresses"),
        PHONE("phone numbers"),
        IBAN("bank accounts (IBAN)"),
        IP_ADDRESS("IP addresses");

        private final String words;

        PersonalData(String words) {
            this.words = words;
        }

        private static final Pattern PHONE_PATTERN = Pattern.compile("\\+[0-9][0-9 ()./-]{6,22}");
        private static final Pattern IBAN_PATTERN = Pattern.compile("[A-Z]{2}[0-9]{2}[A-Z0-9]{11,30}");
        private static final Pattern IPV4_PATTERN = Pattern.compile(
                "((25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])\\.){3}(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])");

        /** The kind of personal data {@code value} looks like, or null. */
        static PersonalData of(String value) {
            if (KeyLayoutLinter.EMAIL.matcher(value).find()) {
                return EMAIL;
            }
            if (PHONE_PATTERN.matcher(value).matches()) {
                long digits = value.chars().filter(c -> c >= '0' && c <= '9').count();
                if (digits >= 8 && digits <= 15) {
                    return PHONE;
                }
            }
            String compact = value.replace(" ", "");
            if (IBAN_PATTERN.matcher(compact).matches() && ibanChecksumHolds(compact)) {
                return IBAN;
            }
            return IPV4_PATTERN.matcher(value).matches() ? IP_ADDRESS : null;
        }

        /** ISO 13616: the country and check digits moved to the end, letters as 10..35, the number mod 97 is 1. */
        private static boolean ibanChecksumHolds(String iban) {
            String moved = iban.substring(4) + iban.substring(0, 4);
            int remainder = 0;
            for (int i = 0; i < moved.length(); i++) {
                int digit = Character.digit(moved.charAt(i), 36);
                remainder = (digit > 9 ? remainder * 100 + digit : remainder * 10 + digit) % 97;
            }
            return remainder == 1;
        }
    }

    /**
     * The numbers that end the values with one prefix ({@code sensor-} of {@code sensor-9}): how many, and of the
     * narrowest the one that sorts last, of the widest the one that sorts first, the pair that shows text order
     * breaking number order ({@code sensor-10} before {@code sensor-9}) when there is one.
     */
    private static final class TrailingNumbers {
        long values;
        String narrow;
        String wide;
        int narrowWidth = Integer.MAX_VALUE;
        int wideWidth;

        void add(String value, int width) {
            values++;
            if (width < narrowWidth || width == narrowWidth && value.compareTo(narrow) > 0) {
                narrowWidth = width;
                narrow = value;
            }
            if (width > wideWidth || width == wideWidth && value.compareTo(wide) < 0) {
                wideWidth = width;
                wide = value;
            }
        }

        boolean varies() {
            return narrowWidth != wideWidth;
        }
    }

    private final String name;
    private final Set<String> seen = new HashSet<>();
    private final Map<PersonalData, Long> personal = new HashMap<>();
    private String personalExample;
    private long withDelimiter;
    private String delimiterExample;
    private long escaped;
    private String escapedExample;
    private final Map<String, TrailingNumbers> trailingNumbers = new HashMap<>();

    /** @param name the segment's name in findings: tenant, device or metric */
    SegmentValues(String name) {
        this.name = name;
    }

    /** Looks at {@code value} if it was not seen before. */
    void add(String value) {
        if (!seen.add(value)) {
            return;
        }
        PersonalData kind = PersonalData.of(value);
        if (kind != null) {
            // Flagged as what it is, and never shown whole in another finding's example either.
            personal.merge(kind, 1L, Long::sum);
            personalExample = personalExample == null ? masked(value, kind) : personalExample;
        }
        String shown = kind == null ? value : masked(value, kind);
        if (value.indexOf(RowKey.DELIMITER) >= 0) {
            withDelimiter++;
            delimiterExample = delimiterExample == null ? shown : delimiterExample;
        } else if (value.chars().anyMatch(c -> c >= 0x80 || !RowKey.standsAsItself(c))) {
            escaped++;
            escapedExample = escapedExample == null ? shown : escapedExample;
        }
        int digits = trailingDigits(value);
        if (digits > 0 && kind == null) {
            trailingNumbers.computeIfAbsent(value.substring(0, value.length() - digits), prefix -> new TrailingNumbers())
                    .add(value, digits);
        }
    }

    /** Distinct values seen. */
    long distinct() {
        return seen.size();
    }

    /** The number of digits that end {@code value} (0 when it does not end in a digit). */
    static int trailingDigits(String value) {
        int i = value.length();
        while (i > 0 && value.charAt(i - 1) >= '0' && value.charAt(i - 1) <= '9') {
            i--;
        }
        return value.length() - i;
    }

    /** The findings about these values, for the segment at {@code segment} (1-based) of the key. */
    List<Finding> findings(int segment) {
        List<Finding> findings = new ArrayList<>();
        String of = " of " + distinct() + " " + name + " ids";
        if (!personal.isEmpty()) {
            long count = personal.values().stream().mapToLong(Long::longValue).sum();
            List<String> kinds = new ArrayList<>();
            for (PersonalData kind : PersonalData.values()) {
                if (personal.containsKey(kind)) {
                    kinds.add(kind.words + ": " + personal.get(kind));
                }
            }
            findings.add(new Finding(Severity.WARNING, "personal-data", segment, count + of + " look like personal data ("
                    + String.join(", ", kinds) + "; e.g. '" + personalExample + "'): keys are copied into changelogs, logs "
                    + "and backups, and cannot be erased one by one",
                    "keep personal data out of keys; use an opaque id and keep the mapping elsewhere"));
        }
        if (withDelimiter > 0) {
            findings.add(new Finding(Severity.WARNING, "delimiter-in-id", segment, withDelimiter + of + " hold the "
                    + "delimiter '#' (e.g. '" + KeyParts.printable(delimiterExample) + "'): tspipe writes it as %23, so "
                    + "keys still split exactly, but a key prefix written by hand with a plain '#' misses them, and tools "
                    + "that split keys on '#' break", "use another character inside ids, such as '-' or '.'"));
        }
        if (escaped > 0) {
            findings.add(new Finding(Severity.WARNING, "escaped-characters", segment, escaped + of + " hold characters "
                    + "that tspipe escapes as %XX (space, '!' and '\"', which sort below the delimiter, '%', non-ASCII; "
                    + "e.g. '" + KeyParts.printable(escapedExample) + "'): each is 3 bytes in the key, keys no longer read "
                    + "as the ids, and such ids sort by their escaped form",
                    "use letters, digits and - . _ : in ids; keep display names out of keys"));
        }
        long varying = 0;
        TrailingNumbers example = null;
        for (TrailingNumbers numbers : trailingNumbers.values()) {
            if (numbers.varies()) {
                varying += numbers.values;
                example = example == null || numbers.values > example.values ? numbers : example;
            }
        }
        if (example != null) {
            String narrow = KeyParts.printable(example.narrow);
            String wide = KeyParts.printable(example.wide);
            String padded = example.narrow.substring(0, example.narrow.length() - example.narrowWidth)
                    + "0".repeat(example.wideWidth - example.narrowWidth)
                    + example.narrow.substring(example.narrow.length() - example.narrowWidth);
            findings.add(new Finding(Severity.WARNING, "number-without-width", segment, varying + of + " end in numbers "
                    + "of different widths after the same prefix (e.g. '" + narrow + "' and '" + wide + "'): keys compare "
                    + "as text, " + (example.wide.compareTo(example.narrow) < 0 ? "so '" + wide + "' sorts before '" + narrow
                    + "'" : "not as numbers") + ", and ids listed in key order are not in number order",
                    "pad the numbers with zeros to one width ('" + KeyParts.printable(padded) + "')"));
        }
        return findings;
    }

    /**
     * An example of personal data that does not spread it further: an e-mail address keeps its first character and
     * its domain, anything else its first two characters; every other letter and digit becomes '*'.
     */
    static String masked(String value, PersonalData kind) {
        int keep = Math.min(2, value.length());
        int end = value.length();
        if (kind == PersonalData.EMAIL) {
            var email = KeyLayoutLinter.EMAIL.matcher(value);
            email.find();
            keep = email.start() + 1;
            end = value.indexOf('@', email.start());
        }
        StringBuilder out = new StringBuilder(value.substring(0, keep));
        for (int i = keep; i < end; i++) {
            char c = value.charAt(i);
            out.append(Character.isLetterOrDigit(c) ? '*' : c);
        }
        return KeyParts.printable(out.append(value.substring(end)).toString());
    }
}
