package dev.tspipe.processor.badinput;

import dev.tspipe.model.keys.SeriesId;
import dev.tspipe.processor.topology.RejectReason;
import dev.tspipe.schemas.Reading;
import dev.tspipe.schemas.registry.SchemaRegistryClient;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecordBuilder;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;
import org.apache.avro.util.Utf8;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * The bad-input corpus of {@code src/test/resources/bad-input/corpus.tsv}: each line says how a
 * record's key, value and headers are made and what must become of it (stored, or a dead letter
 * with a reason). The grammar is in the file's header; writer schemas other than {@code Reading}
 * are the {@code .avsc} files beside it. Values are encoded here, with Avro's writer and the wire
 * format written out by hand, not with tspipe's serializer, so that a defect of the serializer
 * cannot hide one of the deserializer.
 */
public final class BadInputCorpus {

    /** Stream time when each case arrives: every valid reading of the corpus is at or before it. */
    public static final long T0 = Instant.parse("2026-11-30T12:00:00Z").toEpochMilli();
    public static final String READING = "Reading";
    private static final String RESOURCE = "/bad-input/";
    private static final Set<String> REASONS = Arrays.stream(RejectReason.values()).map(RejectReason::code)
            .collect(Collectors.toSet());
    private static final Map<String, Schema> SCHEMAS = loadSchemas();

    /** One line of the manifest, as written. */
    public record Case(int line, String name, String key, String value, String headers, String expect, String why) {
        @Override
        public String toString() {
            return name + " (corpus.tsv line " + line + ")";
        }
    }

    /** What must become of a record. */
    public sealed interface Expected permits Stored, Rejected {
    }

    /** Stored: the raw row of this series and timestamp holds this value. */
    public record Stored(SeriesId series, long epochMillis, double value) implements Expected {
    }

    /** A dead letter with this {@code tspipe.error.reason}. */
    public record Rejected(String reason) implements Expected {
    }

    /** A record to send, made from a case (or a filler between cases). */
    public record Input(String name, byte[] key, byte[] value, List<Header> headers, Expected expected) {
        public boolean bad() {
            return expected instanceof Rejected;
        }
    }

    private BadInputCorpus() {
    }

    /** The manifest's cases, in order. */
    public static List<Case> cases() {
        List<Case> cases = new ArrayList<>();
        String[] lines = resource("corpus.tsv").split("\n");
        boolean header = true;
        for (int i = 0; i < lines.length; i++) {
            String line = lines[i];
            if (line.isBlank() || line.startsWith("#")) {
                continue;
            }
            String[] columns = line.split("\t", -1);
            if (columns.length != 6) {
                throw new IllegalStateException("corpus.tsv line " + (i + 1) + ": " + columns.length + " columns, expected 6");
            }
            if (header) {
                header = false;
                continue;
            }
            Case c = new Case(i + 1, columns[0], columns[1], columns[2], columns[3], columns[4], columns[5]);
            if (!c.expect().equals("stored") && !REASONS.contains(c.expect())) {
                throw new IllegalStateException(c + ": expect '" + c.expect() + "' is neither 'stored' nor a reason " + REASONS);
            }
            cases.add(c);
        }
        return cases;
    }

    /** Every writer schema the corpus uses, by the name the manifest gives it. */
    public static Map<String, Schema> schemas() {
        return SCHEMAS;
    }

    private static Map<String, Schema> loadSchemas() {
        Map<String, Schema> schemas = new LinkedHashMap<>();
        schemas.put(READING, Reading.getClassSchema());
        for (String file : resource("schemas/index.txt").split("\n")) {
            if (!file.isBlank()) {
                schemas.put(file.strip(), new Schema.Parser().parse(resource("schemas/" + file.strip() + ".avsc")));
            }
        }
        return Collections.unmodifiableMap(schemas);
    }

    /**
     * Registers every schema (Reading under {@code <readingsTopic>-value}, the others under
     * {@code bad-input-<name>-value}) and returns their ids by name.
     */
    public static Map<String, Integer> register(SchemaRegistryClient registry, String readingsTopic) {
        Map<String, Integer> ids = new LinkedHashMap<>();
        schemas().forEach((name, schema) -> ids.put(name,
                registry.register(name.equals(READING) ? readingsTopic + "-value" : "bad-input-" + name + "-value", schema)));
        return ids;
    }

    /** The records of every case, in manifest order. */
    public static List<Input> inputs(Map<String, Integer> ids) {
        Map<String, Schema> schemas = schemas();
        return cases().stream().map(c -> input(c, schemas, ids)).toList();
    }

    /** A valid reading of series steady/filler, sent between the cases: all of them must be stored. */
    public static Input filler(int index, Map<String, Integer> ids) {
        long timestamp = T0 - index * 1_000L;
        String fields = "deviceId=steady;metric=filler;timestamp=" + timestamp + ";value=" + index;
        return new Input("filler-" + index, utf8("steady"), avro(READING, fields, schemas(), ids), List.of(),
                new Stored(SeriesId.of("steady", "filler"), timestamp, index));
    }

    private static Input input(Case c, Map<String, Schema> schemas, Map<String, Integer> ids) {
        try {
            byte[] key = c.key().equals("none") ? null : bytesOf(c.key());
            byte[] value = value(c.value(), schemas, ids);
            List<Header> headers = headers(c.headers());
            Expected expected = c.expect().equals("stored") ? stored(c.value(), schemas) : new Rejected(c.expect());
            return new Input(c.name(), key, value, headers, expected);
        } catch (RuntimeException e) {
            throw new IllegalStateException(c + ": " + e.getMessage(), e);
        }
    }

    private static byte[] bytesOf(String spec) {
        if (spec.startsWith("hex:")) {
            return hex(spec.substring(4));
        }
        if (spec.startsWith("text:")) {
            return Text.bytes(spec.substring(5));
        }
        throw new IllegalArgumentException("'" + spec + "' is neither none, hex: nor text:");
    }

    private static byte[] value(String spec, Map<String, Schema> schemas, Map<String, Integer> ids) {
        List<String> parts = Text.split(spec, '|');
        byte[] value = base(parts.get(0), schemas, ids);
        for (String op : parts.subList(1, parts.size())) {
            value = apply(op, value);
        }
        return value;
    }

    private static byte[] base(String spec, Map<String, Schema> schemas, Map<String, Integer> ids) {
        if (spec.equals("none")) {
            return null;
        }
        if (spec.startsWith("hex:")) {
            return hex(spec.substring(4));
        }
        if (spec.startsWith("wire:")) {
            String[] parts = spec.substring(5).split(":", 2);
            int id = parts[0].startsWith("#") ? Integer.parseInt(parts[0].substring(1)) : idOf(parts[0], ids);
            return framed(id, hex(parts[1]));
        }
        if (spec.startsWith("avro:")) {
            String[] parts = spec.substring(5).split(":", 2);
            return avro(parts[0], parts[1], schemas, ids);
        }
        throw new IllegalArgumentException("value '" + spec + "' is neither none, hex:, wire: nor avro:");
    }

    private static int idOf(String schema, Map<String, Integer> ids) {
        Integer id = ids.get(schema);
        if (id == null) {
            throw new IllegalArgumentException("no schema '" + schema + "' (schemas/index.txt lists " + ids.keySet() + ")");
        }
        return id;
    }

    private static byte[] apply(String op, byte[] value) {
        String[] parts = op.split(":", 3);
        return switch (parts[0]) {
            case "cut" -> Arrays.copyOf(value, Integer.parseInt(parts[1]));
            case "drop" -> Arrays.copyOf(value, value.length - Integer.parseInt(parts[1]));
            case "append" -> {
                byte[] tail = hex(parts[1]);
                byte[] joined = Arrays.copyOf(value, value.length + tail.length);
                System.arraycopy(tail, 0, joined, value.length, tail.length);
                yield joined;
            }
            case "set" -> {
                int offset = Integer.parseInt(parts[1]);
                byte[] patch = hex(parts[2]);
                byte[] patched = value.clone();
                System.arraycopy(patch, 0, patched, offset < 0 ? value.length + offset : offset, patch.length);
                yield patched;
            }
            default -> throw new IllegalArgumentException("unknown operation '" + op + "'");
        };
    }

    /** Hex digits, where {@code {hh*n}} stands for hh repeated n times. */
    private static byte[] hex(String digits) {
        Matcher repeat = Pattern.compile("\\{([0-9A-Fa-f]*)\\*(\\d+)}").matcher(digits);
        return HexFormat.of().parseHex(repeat.replaceAll(m -> m.group(1).repeat(Integer.parseInt(m.group(2)))));
    }

    /** The Confluent wire format, written out: magic byte 0, the id big-endian, the body. */
    private static byte[] framed(int schemaId, byte[] body) {
        return ByteBuffer.allocate(5 + body.length).put((byte) 0).putInt(schemaId).put(body).array();
    }

    private static byte[] avro(String schemaName, String fields, Map<String, Schema> schemas, Map<String, Integer> ids) {
        Schema schema = schemas.get(schemaName);
        if (schema == null) {
            throw new IllegalArgumentException("no schema '" + schemaName + "'");
        }
        Object datum;
        if (schema.getType() == Schema.Type.RECORD) {
            GenericRecordBuilder record = new GenericRecordBuilder(schema);
            fields(fields).forEach((name, text) -> {
                Schema.Field field = schema.getField(name);
                if (field == null) {
                    throw new IllegalArgumentException("schema " + schemaName + " has no field '" + name + "'");
                }
                record.set(field, datum(text, field.schema()));
            });
            datum = record.build();
        } else {
            datum = datum(fields, schema);
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        BinaryEncoder encoder = EncoderFactory.get().directBinaryEncoder(out, null);
        try {
            new GenericDatumWriter<>(schema, GenericData.get()).write(datum, encoder);
            encoder.flush();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return framed(idOf(schemaName, ids), out.toByteArray());
    }

    private static Map<String, String> fields(String spec) {
        Map<String, String> fields = new LinkedHashMap<>();
        for (String pair : Text.split(spec, ';')) {
            List<String> nameValue = Text.splitFirst(pair, '=');
            fields.put(nameValue.get(0), nameValue.get(1));
        }
        return fields;
    }

    /** A field's value from its text, typed by the writer schema. */
    private static Object datum(String text, Schema schema) {
        return switch (schema.getType()) {
            case UNION -> {
                if (text.equals("null")) {
                    yield null;
                }
                Schema branch = schema.getTypes().stream().filter(s -> s.getType() != Schema.Type.NULL).findFirst().orElseThrow();
                yield datum(text, branch);
            }
            case STRING -> new Utf8(Text.bytes(text));
            case LONG -> timestamp(text);
            case INT -> Integer.parseInt(text);
            case DOUBLE -> Double.parseDouble(text);
            case MAP -> tags(text, schema.getValueType());
            default -> throw new IllegalArgumentException("no text form for Avro type " + schema.getType());
        };
    }

    private static Map<Utf8, Object> tags(String text, Schema valueSchema) {
        Map<Utf8, Object> tags = new LinkedHashMap<>();
        if (text.startsWith("@")) {
            int count = Integer.parseInt(text.substring(1));
            for (int i = 0; i < count; i++) {
                tags.put(new Utf8("t" + i), datum("v", valueSchema));
            }
            return tags;
        }
        for (String entry : Text.split(text, ',')) {
            List<String> nameValue = Text.splitFirst(entry, ':');
            tags.put(new Utf8(Text.bytes(nameValue.get(0))), datum(nameValue.get(1), valueSchema));
        }
        return tags;
    }

    /** {@code T0}, {@code T0+2d}, {@code T0-90s} (units d, h, m, s) or epoch milliseconds. */
    static long timestamp(String text) {
        if (!text.startsWith("T0")) {
            return Long.parseLong(text);
        }
        if (text.equals("T0")) {
            return T0;
        }
        String offset = text.substring(2);
        long sign = offset.charAt(0) == '-' ? -1 : 1;
        long amount = Long.parseLong(offset.substring(1, offset.length() - 1));
        long unit = switch (offset.charAt(offset.length() - 1)) {
            case 'd' -> 86_400_000L;
            case 'h' -> 3_600_000L;
            case 'm' -> 60_000L;
            case 's' -> 1_000L;
            default -> throw new IllegalArgumentException("unit of '" + text + "' is not d, h, m or s");
        };
        return T0 + sign * amount * unit;
    }

    /** Where a stored case must be found: its series, timestamp and value, from its fields. */
    private static Stored stored(String valueSpec, Map<String, Schema> schemas) {
        String base = Text.split(valueSpec, '|').get(0);
        if (!base.startsWith("avro:")) {
            throw new IllegalArgumentException("a stored case must be made with avro:");
        }
        String[] parts = base.substring(5).split(":", 2);
        Schema schema = schemas.get(parts[0]);
        Map<String, String> fields = fields(parts[1]);
        String device = new String(Text.bytes(fields.get("deviceId")), StandardCharsets.UTF_8);
        String metric = new String(Text.bytes(fields.get("metric")), StandardCharsets.UTF_8);
        Object value = datum(fields.get("value"), schema.getField("value").schema());
        return new Stored(SeriesId.of(device, metric), timestamp(fields.get("timestamp")), ((Number) value).doubleValue());
    }

    private static List<Header> headers(String spec) {
        if (spec.equals("-")) {
            return List.of();
        }
        List<Header> headers = new ArrayList<>();
        for (String header : Text.split(spec, ';')) {
            List<String> nameValue = Text.splitFirst(header, '=');
            String name = new String(Text.bytes(nameValue.get(0)), StandardCharsets.UTF_8);
            headers.add(new RecordHeader(name, nameValue.size() == 1 ? null : Text.bytes(nameValue.get(1))));
        }
        return headers;
    }

    private static String resource(String name) {
        try (InputStream in = BadInputCorpus.class.getResourceAsStream(RESOURCE + name)) {
            return new String(Objects.requireNonNull(in, RESOURCE + name).readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
