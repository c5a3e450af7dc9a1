package dev.tspipe.processor.topology;

import dev.tspipe.model.keys.KeyLayout;
import dev.tspipe.schemas.Reading;
import dev.tspipe.schemas.registry.MockSchemaRegistry;
import dev.tspipe.schemas.serde.AvroDeserializer;
import dev.tspipe.schemas.serde.AvroSerdeConfig;
import dev.tspipe.schemas.serde.AvroSerializer;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Random;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The fast path of {@link ReadingDecoder} against its generic path, on seeded random values: readings of every
 * kind (printable or not, ASCII or not, valid or not), of three schemas (tspipe's, another with the same layout,
 * one without it), and mutations of their bytes. Whatever the fast path accepts, the generic path accepts with
 * the same series, timestamp, value, row bytes and row key; the decoder's verdict is always the generic one.
 * The seed is printed with every failure; {@code -Dtspipe.seed=N} replays one.
 */
class ReadingDecoderTest {

    private static final String TOPIC = "readings";
    private static final Schema SAME_LAYOUT = new Schema.Parser().parse("""
            {"type": "record", "name": "Measurement", "namespace": "com.example", "fields": [
              {"name": "deviceId", "type": "string"}, {"name": "metric", "type": "string"},
              {"name": "timestamp", "type": "long"}, {"name": "value", "type": "double"},
              {"name": "tags", "type": {"type": "map", "values": "string"}},
              {"name": "tenant", "type": ["null", "string"]}]}""");
    /** The same fields in another order: read by name, on the generic path only. */
    private static final Schema OTHER_LAYOUT = new Schema.Parser().parse("""
            {"type": "record", "name": "Reordered", "namespace": "com.example", "fields": [
              {"name": "metric", "type": "string"}, {"name": "deviceId", "type": "string"},
              {"name": "value", "type": "double"}, {"name": "timestamp", "type": "long"},
              {"name": "tenant", "type": ["null", "string"]},
              {"name": "tags", "type": {"type": "map", "values": "string"}}]}""");
    private static final String[] PIECES = {"a", "b", "dev-1", "temp", "#", "/", "%", " ", "é", "日本", "\uD83D\uDE00",
            "\u0001", "\u007F", "\u0085", "Z", "0", ""};

    /** Names and units beyond ASCII that producers send ("°C" is the unit of the harness's temperatures). */
    private static final String[] PLAIN_UNICODE = {"°C", "Küche", "温度", "µs"};

    private final String scope = "decoder-" + UUID.randomUUID();
    private final KeyLayout layout = KeyLayout.DEFAULT;
    private AvroSerializer<Object> serializer;
    /** The test's own view of the writer schemas, apart from the decoder's. */
    private AvroDeserializer<Object> schemas;
    private ReadingDecoder decoder;

    @BeforeEach
    void start() {
        String url = "mock://" + scope;
        serializer = new AvroSerializer<>();
        serializer.configure(Map.of(AvroSerdeConfig.SCHEMA_REGISTRY_URL, url, AvroSerdeConfig.AUTO_REGISTER_SCHEMAS, true), false);
        AvroDeserializer<Object> deserializer = new AvroDeserializer<>();
        deserializer.configure(Map.of(AvroSerdeConfig.SCHEMA_REGISTRY_URL, url), false);
        decoder = new ReadingDecoder(deserializer, layout);
        schemas = new AvroDeserializer<>();
        schemas.configure(Map.of(AvroSerdeConfig.SCHEMA_REGISTRY_URL, url), false);
    }

    @AfterEach
    void stop() {
        decoder.close();
        schemas.close();
        MockSchemaRegistry.dropScope(scope);
    }

    @Test
    void theFastPathAcceptsOnlyWhatTheGenericPathAcceptsWithTheSameRowAndKey() {
        long seed = Long.getLong("tspipe.seed", System.nanoTime());
        Random random = new Random(seed);
        ReadingDecoder.FastReader fast = new ReadingDecoder.FastReader();
        int plain = 0;
        int genericAccepted = 0;
        int cases = 20_000;
        for (int i = 0; i < cases; i++) {
            Case generated = randomValue(random);
            byte[] value = generated.value();
            String where = "seed " + seed + ", case " + i + ", value " + Arrays.toString(value);
            ReadingValidator.Verdict generic = decoder.generic(TOPIC, value);
            ReadingValidator.Verdict verdict = decoder.verdict(TOPIC, value);
            assertSame(verdict, generic, where);
            ReadingValidator.Accepted quick = layoutOf(value) ? fast.read(value, layout) : null;
            if (generic instanceof ReadingValidator.Accepted) {
                genericAccepted++;
            }
            if (generated.plain()) {
                // What producers send: tspipe's layout, ASCII names, valid, no tenant (the default key layout has none).
                plain++;
                assertThat(quick).as("fast path of a plain reading, %s", where).isNotNull();
            }
            if (quick != null) {
                assertThat(generic).as(where).isInstanceOf(ReadingValidator.Accepted.class);
                assertSame(quick, generic, where);
            }
        }
        // Not vacuous: the cases hold plain readings, and rejections too.
        assertThat(plain).as("seed %d: plain readings", seed).isGreaterThan(cases / 20);
        assertThat(genericAccepted).as("seed %d: readings accepted", seed).isLessThan(cases - cases / 10);
    }

    @Test
    void unusualEncodingsOfTheLayoutTakeTheGenericPath() {
        byte[] plain = bytes(reading("d", "m", 1_700_000_000_000L, 1.5, Map.of("unit", "K")));
        ReadingDecoder.FastReader fast = new ReadingDecoder.FastReader();
        assertThat(fast.read(plain, layout)).isNotNull();

        // The same tag twice: Avro keeps the last, the fast path leaves it to the generic path.
        byte[] twice = withTags(plain, "04 02 61 02 31 02 61 02 32 00");
        assertThat(fast.read(twice, layout)).isNull();
        assertThat(decoder.verdict(TOPIC, twice)).isInstanceOf(ReadingValidator.Accepted.class);
        assertThat(((ReadingValidator.Accepted) decoder.verdict(TOPIC, twice)).reading().tags()).isEqualTo(Map.of("a", "2"));

        // A map block written with its byte size (negative count), as some encoders do.
        byte[] sized = withTags(plain, "01 0E 08 75 6E 69 74 02 4B 00");
        assertThat(fast.read(sized, layout)).isNull();
        assertThat(((ReadingValidator.Accepted) decoder.verdict(TOPIC, sized)).reading().tags()).isEqualTo(Map.of("unit", "K"));

        // A byte after the datum: not the schema the id names.
        byte[] longer = Arrays.copyOf(plain, plain.length + 1);
        assertThat(fast.read(longer, layout)).isNull();
        assertThat(decoder.verdict(TOPIC, longer)).isInstanceOf(ReadingValidator.Rejected.class);
    }

    @Test
    void theUtf8CheckIsTheJdkStrictDecoders() throws Exception {
        long seed = Long.getLong("tspipe.seed", System.nanoTime());
        Random random = new Random(seed);
        byte[][] pieces = {"a".getBytes(StandardCharsets.UTF_8), "é".getBytes(StandardCharsets.UTF_8),
                "温".getBytes(StandardCharsets.UTF_8), "\uD83D\uDE00".getBytes(StandardCharsets.UTF_8)};
        for (int i = 0; i < 200_000; i++) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            int length = random.nextInt(6);
            for (int b = 0; b < length; b++) {
                if (random.nextBoolean()) {
                    out.write(random.nextInt(256));
                } else {
                    out.writeBytes(pieces[random.nextInt(pieces.length)]);
                }
            }
            byte[] bytes = out.toByteArray();
            boolean jdk;
            try {
                StandardCharsets.UTF_8.newDecoder().decode(java.nio.ByteBuffer.wrap(bytes));
                jdk = true;
            } catch (java.nio.charset.CharacterCodingException e) {
                jdk = false;
            }
            assertThat(ReadingDecoder.FastReader.wellFormedUtf8(bytes, 0, bytes.length))
                    .as("seed %d: %s", seed, Arrays.toString(bytes)).isEqualTo(jdk);
        }
    }

    /** {@code value} (tags {unit: K}, no tenant) with its tags replaced by the hex bytes of a map. */
    private static byte[] withTags(byte[] value, String hexMap) {
        byte[] unitK = {0x02, 0x08, 'u', 'n', 'i', 't', 0x02, 'K', 0x00};
        int at = indexOf(value, unitK);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.write(value, 0, at);
        for (String hex : hexMap.split(" ")) {
            out.write(Integer.parseInt(hex, 16));
        }
        out.write(value, at + unitK.length, value.length - at - unitK.length);
        return out.toByteArray();
    }

    private static int indexOf(byte[] haystack, byte[] needle) {
        for (int i = 0; i + needle.length <= haystack.length; i++) {
            if (Arrays.equals(haystack, i, i + needle.length, needle, 0, needle.length)) {
                return i;
            }
        }
        throw new AssertionError("not found");
    }

    private boolean layoutOf(byte[] value) {
        try {
            return ReadingDecoder.isReadingLayout(schemas.writerSchema(value));
        } catch (RuntimeException e) {
            return false;
        }
    }

    private static void assertSame(ReadingValidator.Verdict actual, ReadingValidator.Verdict expected, String where) {
        assertThat(actual.getClass()).as(where).isEqualTo(expected.getClass());
        if (expected instanceof ReadingValidator.Rejected rejected) {
            assertThat(actual).as(where).isEqualTo(rejected);
            return;
        }
        ReadingValidator.Accepted a = (ReadingValidator.Accepted) actual;
        ReadingValidator.Accepted e = (ReadingValidator.Accepted) expected;
        assertThat(a.reading().series()).as(where).isEqualTo(e.reading().series());
        assertThat(a.reading().epochMillis()).as(where).isEqualTo(e.reading().epochMillis());
        assertThat(Double.doubleToRawLongBits(a.reading().value())).as(where)
                .isEqualTo(Double.doubleToRawLongBits(e.reading().value()));
        assertThat(a.reading().row()).as(where).isEqualTo(e.reading().row());
        assertThat(a.rowKey()).as(where).isEqualTo(e.rowKey());
    }

    /** A generated value; {@code plain} if nothing about it is unusual. */
    private record Case(byte[] value, boolean plain) {
    }

    private Case randomValue(Random random) {
        Map<String, String> tags = new LinkedHashMap<>();
        int tagCount = random.nextInt(4) == 0 ? 0 : random.nextInt(4);
        for (int t = 0; t < tagCount; t++) {
            tags.put(text(random), text(random));
        }
        String tenant = random.nextInt(3) == 0 ? text(random) : null;
        int timestampKind = random.nextInt(10);
        long timestamp = switch (timestampKind) {
            case 0 -> random.nextLong();
            case 1 -> -random.nextInt(1_000_000);
            case 2 -> 253_402_300_799_999L + random.nextInt(3) - 1;
            default -> 1_700_000_000_000L + random.nextInt(1_000_000_000);
        };
        int valueKind = random.nextInt(12);
        double value = switch (valueKind) {
            case 0 -> Double.NaN;
            case 1 -> Double.POSITIVE_INFINITY;
            case 2 -> -0.0;
            default -> random.nextGaussian() * 100;
        };
        Schema schema = switch (random.nextInt(4)) {
            case 0 -> SAME_LAYOUT;
            case 1 -> OTHER_LAYOUT;
            default -> Reading.getClassSchema();
        };
        // One subject per schema (the registry checks compatibility within a subject); the id is all the decoder reads.
        String device = text(random);
        String metric = text(random);
        byte[] bytes = serializer.serialize(TOPIC + "-" + schema.getName(), record(schema, device, metric, timestamp, value, tags, tenant));
        int mutation = random.nextInt(8);
        boolean plain = schema != OTHER_LAYOUT && mutation > 1 && tenant == null && timestampKind > 2 && valueKind > 1
                && isPlain(device) && isPlain(metric) && tags.keySet().stream().allMatch(ReadingDecoderTest::isPlain)
                && tags.values().stream().allMatch(ReadingDecoderTest::isPlain);
        return new Case(switch (mutation) {
            case 0 -> mutate(bytes, random);
            case 1 -> Arrays.copyOf(bytes, truncatedLength(random, bytes.length));
            default -> bytes;
        }, plain);
    }

    private static boolean isPlain(String text) {
        return text.matches("s[0-9]+") || Arrays.asList(PLAIN_UNICODE).contains(text);
    }

    /** A length between the header and the whole value (a truncation). */
    private static int truncatedLength(Random random, int length) {
        return 5 + random.nextInt(Math.max(1, length - 5));
    }

    private static byte[] mutate(byte[] bytes, Random random) {
        byte[] copy = bytes.clone();
        int changes = 1 + random.nextInt(3);
        for (int c = 0; c < changes; c++) {
            int at = 5 + random.nextInt(copy.length - 5);
            copy[at] = (byte) random.nextInt(256);
        }
        return copy;
    }

    /** Mostly plain ASCII names, sometimes with any of {@link #PIECES} (non-ASCII, control characters, empty). */
    private static String text(Random random) {
        if (random.nextInt(8) == 0) {
            return PLAIN_UNICODE[random.nextInt(PLAIN_UNICODE.length)];
        }
        if (random.nextInt(4) != 0) {
            return "s" + random.nextInt(50);
        }
        StringBuilder s = new StringBuilder();
        int pieces = random.nextInt(4);
        for (int i = 0; i < pieces; i++) {
            s.append(PIECES[random.nextInt(PIECES.length)]);
        }
        return s.toString();
    }

    private static GenericRecord record(Schema schema, String device, String metric, long timestamp, double value,
                                        Map<String, String> tags, String tenant) {
        GenericRecord record = new GenericData.Record(schema);
        record.put("deviceId", device);
        record.put("metric", metric);
        record.put("timestamp", timestamp);
        record.put("value", value);
        record.put("tags", tags);
        record.put("tenant", tenant);
        return record;
    }

    private static Reading reading(String device, String metric, long epochMillis, double value, Map<String, String> tags) {
        return Reading.newBuilder().setDeviceId(device).setMetric(metric)
                .setTimestamp(java.time.Instant.ofEpochMilli(epochMillis)).setValue(value)
                .setTags(Map.copyOf(tags)).build();
    }

    private byte[] bytes(Object value) {
        return serializer.serialize(TOPIC, value);
    }

    /** A batch schema of another producer, the same layout under other names: the fast path reads it too. */
    private static final Schema SAME_BATCH_LAYOUT = new Schema.Parser().parse("""
            {"type": "record", "name": "Telemetry", "namespace": "com.example", "fields": [
              {"name": "deviceId", "type": "string"}, {"name": "tenant", "type": ["null", "string"]},
              {"name": "series", "type": {"type": "array", "items": {"type": "record", "name": "Channel", "fields": [
                {"name": "metric", "type": "string"}, {"name": "tags", "type": {"type": "map", "values": "string"}},
                {"name": "points", "type": {"type": "array", "items": {"type": "record", "name": "Sample", "fields": [
                  {"name": "timestamp", "type": "long"}, {"name": "value", "type": "double"}]}}}]}}}]}""");

    @Test
    void theBatchFastPathAcceptsOnlyWhatTheGenericPathAcceptsReadingByReading() {
        long seed = Long.getLong("tspipe.seed", System.nanoTime());
        Random random = new Random(seed);
        BatchReader fast = new BatchReader();
        int plain = 0;
        int fastAccepted = 0;
        int cases = 5_000;
        for (int i = 0; i < cases; i++) {
            Schema schema = random.nextBoolean() ? dev.tspipe.schemas.ReadingBatch.getClassSchema() : SAME_BATCH_LAYOUT;
            boolean clean = true;
            String device = text(random);
            String tenant = random.nextInt(6) == 0 ? text(random) : null;
            clean &= isPlain(device) && tenant == null;
            Schema entrySchema = schema.getField("series").schema().getElementType();
            Schema pointSchema = entrySchema.getField("points").schema().getElementType();
            java.util.List<GenericRecord> entries = new java.util.ArrayList<>();
            int entryCount = random.nextInt(4);
            for (int e = 0; e < entryCount; e++) {
                String metric = text(random);
                Map<String, String> tags = new LinkedHashMap<>();
                for (int t = random.nextInt(3); t > 0; t--) {
                    tags.put(text(random), text(random));
                }
                clean &= isPlain(metric) && tags.keySet().stream().allMatch(ReadingDecoderTest::isPlain)
                        && tags.values().stream().allMatch(ReadingDecoderTest::isPlain);
                java.util.List<GenericRecord> points = new java.util.ArrayList<>();
                for (int p = random.nextInt(6); p > 0; p--) {
                    int kind = random.nextInt(40);
                    long timestamp = kind == 0 ? -1 - random.nextInt(1_000) : 1_700_000_000_000L + random.nextInt(1_000_000_000);
                    double value = kind == 1 ? Double.NaN : kind == 2 ? Double.NEGATIVE_INFINITY : random.nextGaussian() * 100;
                    clean &= kind > 2;
                    GenericRecord point = new GenericData.Record(pointSchema);
                    point.put("timestamp", timestamp);
                    point.put("value", value);
                    points.add(point);
                }
                GenericRecord entry = new GenericData.Record(entrySchema);
                entry.put("metric", metric);
                entry.put("tags", tags);
                entry.put("points", points);
                entries.add(entry);
            }
            GenericRecord batch = new GenericData.Record(schema);
            batch.put("deviceId", device);
            batch.put("tenant", tenant);
            batch.put("series", entries);
            byte[] bytes = serializer.serialize(TOPIC + "-" + schema.getName(), batch);
            int mutation = random.nextInt(8);
            byte[] value = switch (mutation) {
                case 0 -> mutate(bytes, random);
                case 1 -> Arrays.copyOf(bytes, truncatedLength(random, bytes.length));
                default -> bytes;
            };
            clean &= mutation > 1;
            String where = "seed " + seed + ", case " + i + ", value " + Arrays.toString(value);

            ReadingValidator.Verdict generic = decoder.generic(TOPIC, value);
            ReadingValidator.Verdict verdict = decoder.verdict(TOPIC, value);
            assertSameBatch(verdict, generic, where);
            BatchVerdict quick = fast.read(value, layout, index -> null);
            if (clean) {
                plain++;
                assertThat(quick).as("fast path of a plain batch, %s", where).isNotNull();
            }
            if (quick != null) {
                fastAccepted++;
                assertThat(generic).as(where).isInstanceOf(BatchVerdict.class);
                assertThat(((BatchVerdict) generic).readings()).as(where).allMatch(r -> r instanceof ReadingValidator.Accepted);
                assertSameBatch(quick, generic, where);
            }
        }
        assertThat(plain).as("seed %d: plain batches", seed).isGreaterThan(cases / 20);
        assertThat(fastAccepted).as("seed %d: batches the fast path took", seed).isLessThan(cases);
    }

    private static void assertSameBatch(ReadingValidator.Verdict actual, ReadingValidator.Verdict expected, String where) {
        assertThat(actual.getClass()).as(where).isEqualTo(expected.getClass());
        if (!(expected instanceof BatchVerdict batch)) {
            assertSame(actual, expected, where);
            return;
        }
        BatchVerdict other = (BatchVerdict) actual;
        assertThat(other.distributionKey()).as(where).isEqualTo(batch.distributionKey());
        assertThat(other.size()).as(where).isEqualTo(batch.size());
        for (int i = 0; i < batch.size(); i++) {
            assertSame(other.reading(i), batch.reading(i), where + ", reading " + i);
        }
    }
}
