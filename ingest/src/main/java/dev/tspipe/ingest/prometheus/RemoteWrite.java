package dev.tspipe.ingest.prometheus;

import com.google.protobuf.DescriptorProtos.DescriptorProto;
import com.google.protobuf.DescriptorProtos.FieldDescriptorProto;
import com.google.protobuf.DescriptorProtos.FileDescriptorProto;
import com.google.protobuf.Descriptors;
import com.google.protobuf.DynamicMessage;
import com.google.protobuf.InvalidProtocolBufferException;
import dev.tspipe.schemas.Reading;
import org.xerial.snappy.Snappy;

import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import dev.tspipe.ingest.SeriesName;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Prometheus remote-write 1.0 (docs/ingest.md, "Prometheus remote-write"): a snappy-compressed
 * protobuf {@code WriteRequest} of time series, each labels and samples, becomes readings, all or
 * none. The device is the value of the device label ({@code instance} by default, else {@code job}); the
 * metric, {@code __name__} with the other labels ({@link SeriesName}: {@code up{job="node"}}), which are also
 * the tags. Staleness markers and other NaN samples
 * are not readings and are skipped (counted).
 *
 * <p>The messages are read with protobuf-java from descriptors built here from Prometheus'
 * {@code remote.proto} (fields WriteRequest.timeseries = 1, TimeSeries.labels = 1 and samples = 2,
 * Label.name = 1 and value = 2, Sample.value = 1 and timestamp = 2), and the body is decompressed
 * with snappy-java: the maintained libraries, without protoc at build time.
 */
public final class RemoteWrite {

    private static final Descriptors.Descriptor WRITE_REQUEST;
    private static final Descriptors.FieldDescriptor TIMESERIES;
    private static final Descriptors.FieldDescriptor LABELS;
    private static final Descriptors.FieldDescriptor SAMPLES;
    private static final Descriptors.FieldDescriptor LABEL_NAME;
    private static final Descriptors.FieldDescriptor LABEL_VALUE;
    private static final Descriptors.FieldDescriptor SAMPLE_VALUE;
    private static final Descriptors.FieldDescriptor SAMPLE_TIMESTAMP;

    static {
        FileDescriptorProto file = FileDescriptorProto.newBuilder().setName("remote.proto").setPackage("prometheus")
                .setSyntax("proto3")
                .addMessageType(message("WriteRequest", field("timeseries", 1, FieldDescriptorProto.Type.TYPE_MESSAGE,
                        ".prometheus.TimeSeries", true)))
                .addMessageType(message("TimeSeries",
                        field("labels", 1, FieldDescriptorProto.Type.TYPE_MESSAGE, ".prometheus.Label", true),
                        field("samples", 2, FieldDescriptorProto.Type.TYPE_MESSAGE, ".prometheus.Sample", true)))
                .addMessageType(message("Label", field("name", 1, FieldDescriptorProto.Type.TYPE_STRING, null, false),
                        field("value", 2, FieldDescriptorProto.Type.TYPE_STRING, null, false)))
                .addMessageType(message("Sample", field("value", 1, FieldDescriptorProto.Type.TYPE_DOUBLE, null, false),
                        field("timestamp", 2, FieldDescriptorProto.Type.TYPE_INT64, null, false)))
                .build();
        try {
            Descriptors.FileDescriptor descriptor = Descriptors.FileDescriptor.buildFrom(file, new Descriptors.FileDescriptor[0]);
            WRITE_REQUEST = descriptor.findMessageTypeByName("WriteRequest");
            Descriptors.Descriptor series = descriptor.findMessageTypeByName("TimeSeries");
            Descriptors.Descriptor label = descriptor.findMessageTypeByName("Label");
            Descriptors.Descriptor sample = descriptor.findMessageTypeByName("Sample");
            TIMESERIES = WRITE_REQUEST.findFieldByNumber(1);
            LABELS = series.findFieldByNumber(1);
            SAMPLES = series.findFieldByNumber(2);
            LABEL_NAME = label.findFieldByNumber(1);
            LABEL_VALUE = label.findFieldByNumber(2);
            SAMPLE_VALUE = sample.findFieldByNumber(1);
            SAMPLE_TIMESTAMP = sample.findFieldByNumber(2);
        } catch (Descriptors.DescriptorValidationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** The readings of a request, and how many samples were skipped (NaN, staleness markers). */
    public record Readings(List<Reading> readings, int skipped) {
    }

    /** A request that cannot be readings: what is wrong, for a 400. */
    public static final class InvalidWriteException extends Exception {
        public InvalidWriteException(String reason) {
            super(reason, null, false, false);
        }
    }

    private final List<String> deviceLabels;

    /** @param deviceLabels the labels that name the device, tried in order */
    public RemoteWrite(List<String> deviceLabels) {
        this.deviceLabels = List.copyOf(deviceLabels);
    }

    /** The labels that name a series' device, in the order they are tried. */
    public List<String> deviceLabels() {
        return deviceLabels;
    }

    /** The default mapping: device from {@code instance}, else {@code job}. */
    public static RemoteWrite defaults() {
        return new RemoteWrite(List.of("instance", "job"));
    }

    /** The readings of a snappy-compressed {@code WriteRequest}, all or none. */
    public Readings readings(byte[] body, String tenant, int maxUncompressedBytes) throws InvalidWriteException {
        byte[] raw;
        try {
            if (!Snappy.isValidCompressedBuffer(body)) {
                throw new InvalidWriteException("the body is not snappy-compressed (remote-write 1.0 sends "
                        + "Content-Encoding: snappy, block format)");
            }
            int length = Snappy.uncompressedLength(body);
            if (length > maxUncompressedBytes) {
                throw new InvalidWriteException("the request is " + length + " bytes uncompressed; at most "
                        + maxUncompressedBytes + " (set queue_config.max_samples_per_send lower)");
            }
            raw = Snappy.uncompress(body);
        } catch (IOException e) {
            throw new InvalidWriteException("the body is not snappy-compressed: " + e.getMessage());
        }
        DynamicMessage request;
        try {
            request = DynamicMessage.parseFrom(WRITE_REQUEST, raw);
        } catch (InvalidProtocolBufferException e) {
            throw new InvalidWriteException("the body is not a remote-write WriteRequest: " + e.getMessage());
        }
        List<Reading> readings = new ArrayList<>();
        int skipped = 0;
        int count = request.getRepeatedFieldCount(TIMESERIES);
        for (int i = 0; i < count; i++) {
            DynamicMessage series = (DynamicMessage) request.getRepeatedField(TIMESERIES, i);
            Map<String, String> labels = new LinkedHashMap<>();
            for (int l = 0; l < series.getRepeatedFieldCount(LABELS); l++) {
                DynamicMessage label = (DynamicMessage) series.getRepeatedField(LABELS, l);
                labels.put((String) label.getField(LABEL_NAME), (String) label.getField(LABEL_VALUE));
            }
            String name = labels.remove("__name__");
            if (name == null || name.isEmpty()) {
                throw new InvalidWriteException("time series " + (i + 1) + " has no __name__ label");
            }
            String device = null;
            for (String label : deviceLabels) {
                if (labels.containsKey(label) && !labels.get(label).isEmpty()) {
                    device = labels.remove(label);
                    break;
                }
            }
            if (device == null) {
                throw new InvalidWriteException("time series " + (i + 1) + " (" + name + ") has none of the labels "
                        + String.join(", ", deviceLabels) + " that name its device");
            }
            String metric = SeriesName.of(name, labels);
            for (int s = 0; s < series.getRepeatedFieldCount(SAMPLES); s++) {
                DynamicMessage sample = (DynamicMessage) series.getRepeatedField(SAMPLES, s);
                double value = (Double) sample.getField(SAMPLE_VALUE);
                long timestamp = (Long) sample.getField(SAMPLE_TIMESTAMP);
                if (Double.isNaN(value)) {
                    skipped++;
                    continue;
                }
                if (timestamp < 0) {
                    throw new InvalidWriteException("time series " + (i + 1) + " (" + metric + ") has a sample before 1970: "
                            + timestamp);
                }
                readings.add(Reading.newBuilder().setTenant(tenant).setDeviceId(device).setMetric(metric)
                        .setTimestamp(Instant.ofEpochMilli(timestamp)).setValue(value).setTags(new LinkedHashMap<>(labels))
                        .build());
            }
        }
        return new Readings(readings, skipped);
    }

    /** One time series of a request: its labels ({@code __name__} among them) and samples. */
    public record Series(Map<String, String> labels, List<Sample> samples) {
    }

    /** A sample: epoch milliseconds and a value. */
    public record Sample(long timestamp, double value) {
    }

    /** Builds a {@code WriteRequest}, snappy-compressed, as Prometheus sends it: for clients and tests. */
    public static byte[] request(List<Series> series) throws IOException {
        DynamicMessage.Builder request = DynamicMessage.newBuilder(WRITE_REQUEST);
        for (Series one : series) {
            DynamicMessage.Builder timeSeries = DynamicMessage.newBuilder(LABELS.getContainingType());
            one.labels().forEach((name, value) -> timeSeries.addRepeatedField(LABELS, DynamicMessage.newBuilder(
                    LABEL_NAME.getContainingType()).setField(LABEL_NAME, name).setField(LABEL_VALUE, value).build()));
            for (Sample sample : one.samples()) {
                timeSeries.addRepeatedField(SAMPLES, DynamicMessage.newBuilder(SAMPLE_VALUE.getContainingType())
                        .setField(SAMPLE_VALUE, sample.value()).setField(SAMPLE_TIMESTAMP, sample.timestamp()).build());
            }
            request.addRepeatedField(TIMESERIES, timeSeries.build());
        }
        return Snappy.compress(request.build().toByteArray());
    }

    private static DescriptorProto message(String name, FieldDescriptorProto... fields) {
        DescriptorProto.Builder message = DescriptorProto.newBuilder().setName(name);
        for (FieldDescriptorProto field : fields) {
            message.addField(field);
        }
        return message.build();
    }

    private static FieldDescriptorProto field(String name, int number, FieldDescriptorProto.Type type, String typeName,
                                              boolean repeated) {
        FieldDescriptorProto.Builder field = FieldDescriptorProto.newBuilder().setName(name).setNumber(number).setType(type)
                .setLabel(repeated ? FieldDescriptorProto.Label.LABEL_REPEATED : FieldDescriptorProto.Label.LABEL_OPTIONAL);
        if (typeName != null) {
            field.setTypeName(typeName);
        }
        return field.build();
    }
}
