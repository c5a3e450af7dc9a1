package dev.tspipe.ingest.it;

import dev.tspipe.embedded.EmbeddedSchemaRegistry;
import dev.tspipe.embedded.junit.EmbeddedKafkaExtension;
import dev.tspipe.ingest.FileFormat;
import dev.tspipe.ingest.FileImporter;
import dev.tspipe.ingest.ImportSummary;
import dev.tspipe.ingest.ReadingProducer;
import dev.tspipe.schemas.Reading;
import dev.tspipe.schemas.serde.AvroDeserializer;
import dev.tspipe.schemas.serde.AvroSerdeConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;

import static org.assertj.core.api.Assertions.assertThat;

/** {@link FileImporter} on a real broker and registry: every good line on the topic once, every bad line in the rejects file. */
class FileImportIT {

    @RegisterExtension
    static final EmbeddedKafkaExtension KAFKA = new EmbeddedKafkaExtension();

    private static EmbeddedSchemaRegistry registry;

    @TempDir
    Path dir;

    @BeforeAll
    static void startRegistry() {
        registry = EmbeddedSchemaRegistry.builder().bootstrapServers(KAFKA.broker().bootstrapServers()).start();
    }

    @AfterAll
    static void stopRegistry() {
        registry.close();
    }

    @Test
    void fiftyThousandLinesWithAHundredBadOnesGiveExactlyTheGoodReadingsAndAHundredRejects() throws IOException {
        String topic = "import-readings";
        KAFKA.broker().createTopic(topic, 6);
        long seed = Long.getLong("tspipe.seed", 20261130L);
        System.out.println("FileImportIT seed " + seed + " (rerun with -Dtspipe.seed=" + seed + ")");
        Random random = new Random(seed);
        Instant start = Instant.now().truncatedTo(ChronoUnit.SECONDS).minus(1, ChronoUnit.HOURS);
        String[] badLines = {
                "device-1,temperature,not-a-time,1.0",
                "device-1,temperature,%d,twenty",
                ",temperature,%d,1.0",
                "device-1,temperature,%d",
                "device-1,temperature,%d,NaN",
        };
        List<String> lines = new ArrayList<>();
        lines.add("device,metric,timestamp,value,tags");
        Set<Long> badLineNumbers = new TreeSet<>();
        Set<String> expected = new HashSet<>();
        while (badLineNumbers.size() < 100) {
            badLineNumbers.add(2L + random.nextInt(50_000));
        }
        for (long lineNumber = 2; lineNumber <= 50_001; lineNumber++) {
            long millis = start.toEpochMilli() + lineNumber * 50;
            if (badLineNumbers.contains(lineNumber)) {
                lines.add(String.format(badLines[(int) (lineNumber % badLines.length)], millis));
                continue;
            }
            String device = "device-" + random.nextInt(200);
            String metric = random.nextBoolean() ? "temperature" : "humidity";
            double value = Math.round(random.nextGaussian() * 1000) / 10.0;
            // Both time formats; the file is sorted by time, the worst case for partitions.
            String time = lineNumber % 2 == 0 ? Long.toString(millis) : Instant.ofEpochMilli(millis).toString();
            lines.add(device + "," + metric + "," + time + "," + value + ",site=s" + (lineNumber % 3));
            expected.add(device + "|" + metric + "|" + millis + "|" + value);
        }
        Path file = dir.resolve("history.csv");
        Files.write(file, lines, StandardCharsets.UTF_8);
        Path rejects = dir.resolve("history.rejects.tsv");

        ImportSummary summary;
        try (ReadingProducer producer = ReadingProducer.create(KAFKA.broker().bootstrapServers(), registry.url(), topic)) {
            summary = new FileImporter(producer, FileImporter.Options.defaults(rejects).withFormat(FileFormat.AUTO).withThreads(3))
                    .importFiles(List.of(file));
        }

        assertThat(summary.lines()).isEqualTo(50_000);
        assertThat(summary.imported()).isEqualTo(49_900);
        assertThat(summary.rejected()).isEqualTo(100);
        assertThat(summary.failed()).isZero();
        assertThat(summary.rejectsFile()).contains(rejects);
        assertThat(summary.describe()).contains("100 rejected");

        List<ConsumerRecord<byte[], byte[]>> records = TopicRecords.readAll(KAFKA.broker(), topic);
        assertThat(records).hasSize(49_900);
        AvroDeserializer<Reading> avro = new AvroDeserializer<>();
        avro.configure(Map.of(AvroSerdeConfig.SCHEMA_REGISTRY_URL, registry.url(), AvroSerdeConfig.SPECIFIC_AVRO_READER, true), false);
        Set<String> onTopic = new HashSet<>();
        for (ConsumerRecord<byte[], byte[]> record : records) {
            Reading reading = avro.deserialize(topic, record.value());
            assertThat(new String(record.key(), StandardCharsets.UTF_8)).isEqualTo(reading.getDeviceId());
            assertThat(record.timestamp()).isEqualTo(reading.getTimestamp().toEpochMilli());
            onTopic.add(reading.getDeviceId() + "|" + reading.getMetric() + "|" + reading.getTimestamp().toEpochMilli() + "|" + reading.getValue());
        }
        assertThat(onTopic).isEqualTo(expected);

        List<String> rejected = Files.readAllLines(rejects, StandardCharsets.UTF_8);
        assertThat(rejected).hasSize(100);
        Set<Long> rejectedLineNumbers = new TreeSet<>();
        for (String line : rejected) {
            String[] columns = line.split("\t", 4);
            assertThat(columns).hasSize(4);
            assertThat(columns[0]).isEqualTo(file.toString());
            long lineNumber = Long.parseLong(columns[1]);
            rejectedLineNumbers.add(lineNumber);
            assertThat(columns[3]).isEqualTo(lines.get((int) lineNumber - 1));
            assertThat(columns[2]).isNotBlank();
        }
        assertThat(rejectedLineNumbers).isEqualTo(badLineNumbers);
    }
}
