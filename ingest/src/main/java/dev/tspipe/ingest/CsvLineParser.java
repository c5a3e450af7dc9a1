package dev.tspipe.ingest;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * CSV lines whose columns a header names: {@code device, metric, timestamp, value} and optionally
 * {@code tenant} and {@code tags} ({@code key=value;key=value}), in any order, case-insensitive.
 * Fields may be quoted with {@code "} (RFC 4180, a quote inside written {@code ""}); a field
 * cannot span lines.
 */
final class CsvLineParser implements LineParser {

    private static final List<String> COLUMNS = List.of(ReadingFields.DEVICE, ReadingFields.METRIC, ReadingFields.TIMESTAMP,
            ReadingFields.VALUE, ReadingFields.TENANT, ReadingFields.TAGS);

    private final String header;
    private final int columns;
    private final int device;
    private final int metric;
    private final int timestamp;
    private final int value;
    private final int tenant;
    private final int tags;

    private CsvLineParser(String header, List<String> names) {
        this.header = header;
        this.columns = names.size();
        this.device = names.indexOf(ReadingFields.DEVICE);
        this.metric = names.indexOf(ReadingFields.METRIC);
        this.timestamp = names.indexOf(ReadingFields.TIMESTAMP);
        this.value = names.indexOf(ReadingFields.VALUE);
        this.tenant = names.indexOf(ReadingFields.TENANT);
        this.tags = names.indexOf(ReadingFields.TAGS);
    }

    static CsvLineParser fromHeader(String headerLine) {
        String header = headerLine.startsWith("\uFEFF") ? headerLine.substring(1) : headerLine;
        List<String> names = new ArrayList<>();
        try {
            for (String name : split(header)) {
                names.add(name.trim().toLowerCase(Locale.ROOT));
            }
        } catch (InvalidLineException e) {
            throw new IllegalArgumentException("the CSV header is not valid CSV: " + e.getMessage());
        }
        for (String name : names) {
            if (!COLUMNS.contains(name)) {
                throw new IllegalArgumentException("the CSV header names an unknown column '" + name + "'; the columns are "
                        + String.join(", ", COLUMNS) + " (the first line of a CSV file must be this header)");
            }
            if (names.indexOf(name) != names.lastIndexOf(name)) {
                throw new IllegalArgumentException("the CSV header names the column '" + name + "' twice");
            }
        }
        for (String required : COLUMNS.subList(0, 4)) {
            if (!names.contains(required)) {
                throw new IllegalArgumentException("the CSV header has no column '" + required + "'; it needs device, metric, "
                        + "timestamp and value (tenant and tags are optional), e.g. 'device,metric,timestamp,value'");
            }
        }
        return new CsvLineParser(header, names);
    }

    @Override
    public ParseResult parse(long lineNumber, String line) {
        try {
            List<String> fields = split(line);
            if (fields.size() != columns) {
                throw new InvalidLineException(fields.size() + " columns, but the header '" + header + "' has " + columns
                        + ": write one field per column, and quote fields that contain a comma");
            }
            return new ParseResult.Parsed(lineNumber, ReadingFields.reading(
                    tenant < 0 ? null : fields.get(tenant),
                    fields.get(device),
                    fields.get(metric),
                    ReadingFields.timestamp(fields.get(timestamp)),
                    ReadingFields.value(fields.get(value)),
                    ReadingFields.tags(tags < 0 ? null : fields.get(tags))));
        } catch (InvalidLineException e) {
            return new ParseResult.Rejected(lineNumber, e.getMessage());
        }
    }

    /** The fields of one CSV line (RFC 4180 quoting). */
    static List<String> split(String line) throws InvalidLineException {
        List<String> fields = new ArrayList<>();
        StringBuilder field = new StringBuilder();
        int i = 0;
        int n = line.length();
        while (true) {
            if (i < n && line.charAt(i) == '"') {
                i++;
                while (true) {
                    if (i >= n) {
                        throw new InvalidLineException("a quoted field is not closed: end it with \" (write \"\" for a quote inside)");
                    }
                    char c = line.charAt(i++);
                    if (c == '"') {
                        if (i < n && line.charAt(i) == '"') {
                            field.append('"');
                            i++;
                        } else {
                            break;
                        }
                    } else {
                        field.append(c);
                    }
                }
                if (i < n && line.charAt(i) != ',') {
                    throw new InvalidLineException("text after a closing quote at character " + (i + 1)
                            + ": a quoted field must be followed by a comma or the end of the line");
                }
            } else {
                while (i < n && line.charAt(i) != ',') {
                    field.append(line.charAt(i++));
                }
            }
            fields.add(field.toString());
            field.setLength(0);
            if (i >= n) {
                return fields;
            }
            i++; // the comma
        }
    }
}
