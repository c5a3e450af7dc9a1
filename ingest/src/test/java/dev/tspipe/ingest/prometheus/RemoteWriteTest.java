package dev.tspipe.ingest.prometheus;

import com.google.protobuf.ByteString;
import com.google.protobuf.CodedOutputStream;
import dev.tspipe.schemas.Reading;
import org.junit.jupiter.api.Test;
import org.xerial.snappy.Snappy;

import java.io.ByteArrayOutputStream;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class RemoteWriteTest {

    private static final int LIMIT = 64 * 1024 * 1024;

    /** Bytes written field by field as remote.proto numbers them, not with the reader's descriptors. */
    @Test
    void aRequestEncodedFromRemoteProtosFieldNumbersIsRead() throws Exception {
        ByteArrayOutputStream sample = new ByteArrayOutputStream();
        CodedOutputStream s = CodedOutputStream.newInstance(sample);
        s.writeDouble(1, 0.25);
        s.writeInt64(2, 1_793_491_200_000L);
        s.flush();
        ByteArrayOutputStream series = new ByteArrayOutputStream();
        CodedOutputStream t = CodedOutputStream.newInstance(series);
        t.writeBytes(1, label("__name__", "node_load1"));
        t.writeBytes(1, label("instance", "web-1:9100"));
        t.writeBytes(1, label("job", "node"));
        t.writeBytes(2, ByteString.copyFrom(sample.toByteArray()));
        t.flush();
        ByteArrayOutputStream request = new ByteArrayOutputStream();
        CodedOutputStream w = CodedOutputStream.newInstance(request);
        w.writeBytes(1, ByteString.copyFrom(series.toByteArray()));
        w.flush();

        RemoteWrite.Readings readings = RemoteWrite.defaults().readings(Snappy.compress(request.toByteArray()), null, LIMIT);
        assertThat(readings.readings()).containsExactly(Reading.newBuilder().setTenant(null).setDeviceId("web-1:9100")
                .setMetric("node_load1{job=\"node\"}").setTimestamp(Instant.ofEpochMilli(1_793_491_200_000L)).setValue(0.25)
                .setTags(Map.of("job", "node")).build());
        assertThat(readings.skipped()).isZero();
    }

    @Test
    void everySampleOfEverySeriesIsAReadingAndNaNsAreSkipped() throws Exception {
        double staleness = Double.longBitsToDouble(0x7ff0000000000002L);
        byte[] body = RemoteWrite.request(List.of(
                new RemoteWrite.Series(labels("__name__", "up", "instance", "a:1", "job", "j"),
                        List.of(new RemoteWrite.Sample(1_000, 1), new RemoteWrite.Sample(2_000, 0), new RemoteWrite.Sample(3_000, staleness))),
                new RemoteWrite.Series(labels("__name__", "rate", "job", "batch"),
                        List.of(new RemoteWrite.Sample(1_000, Double.NaN), new RemoteWrite.Sample(2_000, 2.5)))));
        RemoteWrite.Readings readings = RemoteWrite.defaults().readings(body, "acme", LIMIT);
        assertThat(readings.readings()).extracting(Reading::getDeviceId).containsExactly("a:1", "a:1", "batch");
        assertThat(readings.readings()).extracting(Reading::getMetric).containsExactly("up{job=\"j\"}", "up{job=\"j\"}", "rate");
        assertThat(readings.readings()).extracting(Reading::getValue).containsExactly(1.0, 0.0, 2.5);
        assertThat(readings.readings()).extracting(Reading::getTenant).containsOnly("acme");
        assertThat(readings.readings().get(2).getTags()).isEmpty();
        assertThat(readings.skipped()).isEqualTo(2);
    }

    @Test
    void aRequestThatCannotBeReadingsIsRefusedWhole() throws Exception {
        byte[] noName = RemoteWrite.request(List.of(new RemoteWrite.Series(labels("instance", "a"),
                List.of(new RemoteWrite.Sample(1, 1)))));
        assertThatThrownBy(() -> RemoteWrite.defaults().readings(noName, null, LIMIT)).hasMessage("time series 1 has no __name__ label");
        byte[] noDevice = RemoteWrite.request(List.of(
                new RemoteWrite.Series(labels("__name__", "ok", "instance", "a"), List.of(new RemoteWrite.Sample(1, 1))),
                new RemoteWrite.Series(labels("__name__", "orphan"), List.of(new RemoteWrite.Sample(1, 1)))));
        assertThatThrownBy(() -> RemoteWrite.defaults().readings(noDevice, null, LIMIT))
                .hasMessage("time series 2 (orphan) has none of the labels instance, job that name its device");
        assertThatThrownBy(() -> RemoteWrite.defaults().readings("plain text".getBytes(), null, LIMIT))
                .hasMessageContaining("not snappy-compressed");
        assertThatThrownBy(() -> RemoteWrite.defaults().readings(Snappy.compress(new byte[] {(byte) 0xff, 1, 2}), null, LIMIT))
                .hasMessageContaining("not a remote-write WriteRequest");
        assertThatThrownBy(() -> RemoteWrite.defaults().readings(noName, null, 4)).hasMessageContaining("at most 4");
    }

    private static ByteString label(String name, String value) throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        CodedOutputStream out = CodedOutputStream.newInstance(bytes);
        out.writeString(1, name);
        out.writeString(2, value);
        out.flush();
        return ByteString.copyFrom(bytes.toByteArray());
    }

    private static Map<String, String> labels(String... pairs) {
        Map<String, String> labels = new LinkedHashMap<>();
        for (int i = 0; i < pairs.length; i += 2) {
            labels.put(pairs[i], pairs[i + 1]);
        }
        return labels;
    }

    /** Random requests, written with {@link RemoteWrite#request}, read back as the mapping says; NaN samples skipped. */
    @Test
    void randomRequestsReadBackAsTheMappingSays() throws Exception {
        long seed = Long.getLong("tspipe.seed", System.nanoTime());
        java.util.Random random = new java.util.Random(seed);
        for (int round = 0; round < 300; round++) {
            List<RemoteWrite.Series> series = new java.util.ArrayList<>();
            List<Reading> expected = new java.util.ArrayList<>();
            int skipped = 0;
            for (int i = random.nextInt(5); i >= 0; i--) {
                Map<String, String> labels = new LinkedHashMap<>();
                labels.put("__name__", "m_" + random.nextInt(1000));
                String device = "host-" + random.nextInt(50) + ":9100";
                labels.put(random.nextBoolean() ? "instance" : "job", device);
                Map<String, String> others = new java.util.TreeMap<>();
                for (int l = random.nextInt(3); l > 0; l--) {
                    others.put("l" + random.nextInt(5), random.nextInt(4) == 0 ? "" : "v \"" + random.nextInt(9) + "\n");
                }
                labels.putAll(others);
                Map<String, String> tags = new LinkedHashMap<>(others);
                List<RemoteWrite.Sample> samples = new java.util.ArrayList<>();
                for (int n = random.nextInt(6); n > 0; n--) {
                    long timestamp = random.nextInt(Integer.MAX_VALUE) * 1000L + random.nextInt(1000);
                    double value = random.nextInt(10) == 0 ? Double.NaN : random.nextGaussian() * Math.pow(10, random.nextInt(20) - 10);
                    samples.add(new RemoteWrite.Sample(timestamp, value));
                    if (Double.isNaN(value)) {
                        skipped++;
                    } else {
                        expected.add(Reading.newBuilder().setTenant("t").setDeviceId(device)
                                .setMetric(dev.tspipe.ingest.SeriesName.of(labels.get("__name__"), others))
                                .setTimestamp(Instant.ofEpochMilli(timestamp)).setValue(value).setTags(tags).build());
                    }
                }
                series.add(new RemoteWrite.Series(labels, samples));
            }
            RemoteWrite.Readings readings = RemoteWrite.defaults().readings(RemoteWrite.request(series), "t", LIMIT);
            assertThat(readings.readings()).as("seed " + seed + " (-Dtspipe.seed), round " + round).isEqualTo(expected);
            assertThat(readings.skipped()).as("seed " + seed + ", round " + round).isEqualTo(skipped);
        }
    }

    /** Random bytes, raw or snappy-compressed, are refused as a bad request, never with another exception. */
    @Test
    void randomBytesAreRefusedAsABadRequest() throws Exception {
        long seed = Long.getLong("tspipe.seed", System.nanoTime());
        java.util.Random random = new java.util.Random(seed);
        int refused = 0;
        for (int round = 0; round < 2_000; round++) {
            byte[] junk = new byte[random.nextInt(64)];
            random.nextBytes(junk);
            byte[] body = random.nextBoolean() ? Snappy.compress(junk) : junk;
            try {
                RemoteWrite.defaults().readings(body, null, LIMIT);
            } catch (RemoteWrite.InvalidWriteException expected) {
                refused++;
            } catch (RuntimeException e) {
                throw new AssertionError("seed " + seed + ", round " + round + ": " + e, e);
            }
        }
        assertThat(refused).as("seed " + seed).isGreaterThan(1_000);
    }
}
