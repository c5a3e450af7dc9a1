package dev.tspipe.ingest;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tspipe.model.devices.DeviceKeys;
import dev.tspipe.schemas.Device;

import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A file of devices for {@code tspipe devices import}, read whole and checked before anything is written: every line
 * that is not a device is a {@link Problem} with its line number, so that a file is imported entirely or not at all.
 *
 * <p>CSV: a header naming the columns (any order, case-insensitive) {@code id} (required), {@code tenant},
 * {@code site}, {@code type}, {@code labels} ({@code key=value;key=value}) and {@code registered} (epoch milliseconds
 * or ISO-8601; default: the time of the import); an empty field is "not set". JSON Lines: one object per line with the
 * same fields, {@code labels} an object of strings. Blank lines are skipped. A device named twice is a problem.
 */
public final class DeviceFile {

    private static final ObjectMapper JSON = new ObjectMapper().enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
    private static final List<String> COLUMNS = List.of("id", "tenant", "site", "type", "labels", "registered");

    /** A line that is not a device, and why. */
    public record Problem(long line, String reason) {
    }

    /** The devices of a file, in file order, and its problems; import the devices only when there are none. */
    public record Parsed(List<Device> devices, List<Problem> problems) {
    }

    private DeviceFile() {
    }

    /**
     * @param registered the time of a device without {@code registered}
     * @throws IllegalArgumentException when the file cannot be read as the format at all (a bad CSV header)
     */
    public static Parsed read(Path file, FileFormat format, Instant registered) throws IOException {
        List<Device> devices = new ArrayList<>();
        List<Problem> problems = new ArrayList<>();
        Map<String, Long> seen = new HashMap<>();
        try (BufferedReader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            String line;
            long number = 0;
            FileFormat resolved = null;
            Map<String, Integer> header = null;
            while ((line = in.readLine()) != null) {
                number++;
                if (line.isBlank()) {
                    continue;
                }
                if (resolved == null) {
                    resolved = format.resolve(file, line);
                    if (resolved == FileFormat.CSV) {
                        header = header(line);
                        continue;
                    }
                }
                try {
                    Device device = resolved == FileFormat.CSV ? csv(header, line, registered) : json(line, registered);
                    String key = DeviceKeys.keyOf(device);
                    Long first = seen.putIfAbsent(key, number);
                    if (first != null) {
                        throw new InvalidLineException("device '" + key + "' again (first on line " + first + "); name each once");
                    }
                    devices.add(device);
                } catch (InvalidLineException e) {
                    problems.add(new Problem(number, e.getMessage()));
                }
            }
        }
        return new Parsed(devices, problems);
    }

    private static Map<String, Integer> header(String line) {
        String text = line.startsWith("\uFEFF") ? line.substring(1) : line;
        Map<String, Integer> header = new LinkedHashMap<>();
        List<String> names;
        try {
            names = CsvLineParser.split(text);
        } catch (InvalidLineException e) {
            throw new IllegalArgumentException("the CSV header is not valid CSV: " + e.getMessage());
        }
        for (String raw : names) {
            String name = raw.trim().toLowerCase(Locale.ROOT);
            if (!COLUMNS.contains(name)) {
                throw new IllegalArgumentException("the CSV header names an unknown column '" + name + "'; the columns are "
                        + String.join(", ", COLUMNS) + " (the first line of a CSV file must be this header, e.g. id,site,type,labels)");
            }
            if (header.put(name, header.size()) != null) {
                throw new IllegalArgumentException("the CSV header names the column '" + name + "' twice");
            }
        }
        if (!header.containsKey("id")) {
            throw new IllegalArgumentException("the CSV header has no column 'id'; e.g. 'id,site,type,labels'");
        }
        return header;
    }

    private static Device csv(Map<String, Integer> header, String line, Instant registered) throws InvalidLineException {
        List<String> fields = CsvLineParser.split(line);
        if (fields.size() != header.size()) {
            throw new InvalidLineException("has " + fields.size() + " fields, the header " + header.size());
        }
        Map<String, String> values = new HashMap<>();
        header.forEach((name, index) -> {
            String value = fields.get(index).trim();
            if (!value.isEmpty()) {
                values.put(name, value);
            }
        });
        String time = values.get("registered");
        return device(values.get("id"), values.get("tenant"), values.get("site"), values.get("type"),
                labels(values.get("labels")),
                time == null ? registered : Instant.ofEpochMilli(ReadingFields.timestamp(time)));
    }

    /** Labels written as {@code name=value;name=value}. */
    private static Map<String, String> labels(String text) throws InvalidLineException {
        Map<String, String> labels = new LinkedHashMap<>();
        if (text == null) {
            return labels;
        }
        for (String pair : text.split(";")) {
            if (pair.isBlank()) {
                continue;
            }
            int eq = pair.indexOf('=');
            if (eq <= 0) {
                throw new InvalidLineException("label '" + pair.trim() + "' is not name=value: write labels as "
                        + "name=value;name=value");
            }
            labels.put(pair.substring(0, eq).trim(), pair.substring(eq + 1).trim());
        }
        return labels;
    }

    private static Device json(String line, Instant registered) throws InvalidLineException {
        JsonNode node;
        try {
            node = JSON.readTree(line);
        } catch (JsonProcessingException e) {
            throw new InvalidLineException("is not JSON: " + e.getOriginalMessage());
        }
        if (node == null || !node.isObject()) {
            throw new InvalidLineException("is not a JSON object");
        }
        for (Iterator<String> names = node.fieldNames(); names.hasNext(); ) {
            String name = names.next();
            if (!COLUMNS.contains(name)) {
                throw new InvalidLineException("has an unknown field '" + name + "'; the fields are " + String.join(", ", COLUMNS));
            }
        }
        Map<String, String> labels = new LinkedHashMap<>();
        JsonNode labelsNode = node.get("labels");
        if (labelsNode != null && !labelsNode.isNull()) {
            if (!labelsNode.isObject()) {
                throw new InvalidLineException("labels must be an object of strings, e.g. {\"line\": \"3\"}");
            }
            for (Map.Entry<String, JsonNode> label : labelsNode.properties()) {
                if (!label.getValue().isTextual()) {
                    throw new InvalidLineException("label '" + label.getKey() + "' is not a string");
                }
                labels.put(label.getKey(), label.getValue().asText());
            }
        }
        JsonNode time = node.get("registered");
        Instant at = registered;
        if (time != null && !time.isNull()) {
            at = Instant.ofEpochMilli(ReadingFields.timestamp(time.isNumber() ? Long.toString(time.asLong()) : time.asText()));
        }
        return device(text(node, "id"), text(node, "tenant"), text(node, "site"), text(node, "type"), labels, at);
    }

    private static String text(JsonNode node, String field) throws InvalidLineException {
        JsonNode value = node.get(field);
        if (value == null || value.isNull()) {
            return null;
        }
        if (!value.isTextual()) {
            throw new InvalidLineException(field + " is not a string");
        }
        return value.asText().isEmpty() ? null : value.asText();
    }

    private static Device device(String id, String tenant, String site, String type, Map<String, String> labels,
                                 Instant registered) throws InvalidLineException {
        if (id == null || id.isBlank()) {
            throw new InvalidLineException("has no id");
        }
        for (String label : labels.keySet()) {
            if (label.isEmpty()) {
                throw new InvalidLineException("has a label without a name");
            }
        }
        return Device.newBuilder().setId(id).setTenant(tenant).setSite(site).setType(type).setLabels(labels)
                .setRegistered(registered).build();
    }
}
